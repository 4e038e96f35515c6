/** fast-check arbitraries for protocol inputs: awkward unicode, awkward keys, awkward numbers. */
import fc from "fast-check";
import type { JsonObject, JsonValue } from "../../../src/protocol/index.ts";
import type { CheckpointInput, HealthInput } from "../../../src/protocol/index.ts";
import { pythonUtcIsoformat } from "../../../src/protocol/index.ts";

/** Any UTF-16 code unit, lone surrogates and controls included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const awkwardChar = fc.constantFrom("\u0000", "\t", "\u00a0", "\u2028", "\u2029", "\ufeff", "\u200b", "`", ":", "[", "]", "-", ">", "#", "\\", '"', "é", "😀", "\ud800", "\udfff");

/** Arbitrary text: full code points, raw UTF-16 units, or awkward punctuation. */
export const anyText = (maxLength: number) =>
  fc.string({ unit: fc.oneof({ weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) }, codeUnit, awkwardChar, fc.constantFrom("a", "b", "_", "-", " ")), maxLength });

/** A header value the writer accepts: one line, trimmed, 1–256 characters. */
export const headerValue: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_-]{0,30}$/) },
    { weight: 2, arbitrary: anyText(40) },
    { weight: 1, arbitrary: fc.constantFrom("[CHECKPOINT] x", "Session: other", "Phase: evil", "```json", "---", "x ] y", "__proto__", "constructor") },
  )
  .map((s) =>
    s
      .replace(/[\r\n]/g, "_")
      .trim()
      .slice(0, 256),
  )
  .filter((s) => s.length > 0 && s === s.trim());

const awkwardKey = fc.oneof(
  { weight: 3, arbitrary: anyText(12) },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "", "0", "01", "1e3", "-1", "Session", "Phase: x", "```") },
);

const awkwardNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -1e16, 1e16, 0.1, 123456789012345680000),
);

/** Build an object with OWN keys (a "__proto__" key stays a key, as JSON.parse makes it). */
function ownObject(entries: ReadonlyArray<readonly [string, JsonValue]>): JsonObject {
  const o: JsonObject = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const { value: jsonValue } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    awkwardNumber,
    anyText(24),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(awkwardKey, tie("value")), { maxLength: 4 }).map(ownObject),
  ),
}));

/** A checkpoint's data: a JSON object with awkward keys and values. */
export const jsonObject: fc.Arbitrary<JsonObject> = fc.array(fc.tuple(awkwardKey, jsonValue), { maxLength: 6 }).map(ownObject);

const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true }).map(pythonUtcIsoformat) },
  { weight: 1, arbitrary: headerValue },
);

const id = fc.stringMatching(/^[A-Za-z0-9._:-]{8,40}$/);
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `hmac-sha256=${h}`);

export const checkpointInput: fc.Arbitrary<CheckpointInput> = fc.record(
  {
    agent: headerValue,
    session: headerValue,
    phase: headerValue,
    data: jsonObject,
    timestamp,
    id,
    seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    epoch: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    signature: hex64,
  },
  { requiredKeys: ["agent", "session", "phase", "data", "timestamp"] },
);

export const healthInput: fc.Arbitrary<HealthInput> = fc.record(
  { agent: headerValue, session: headerValue, metrics: jsonObject, timestamp, status: headerValue, nextCheck: headerValue },
  { requiredKeys: ["agent", "session", "metrics", "timestamp"] },
);
