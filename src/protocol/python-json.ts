import type { JsonValue } from "./json-value.ts";
import { ProtocolInputError } from "../errors.ts";

/**
 * Serialise like Python's `json.dumps(value, indent=…, sort_keys=…)` with its
 * defaults (ensure_ascii=True, separators "," and ": " when indented), so a
 * body we write is byte-identical to what the seed's Python agents write for
 * the same data. A hand-written walk rather than JSON.stringify because JS
 * objects enumerate integer-like keys first, which would break sort_keys.
 */
export function pythonJsonDumps(value: JsonValue, options: { indent?: number; sortKeys?: boolean } = {}): string {
  const indent = options.indent;
  const sortKeys = options.sortKeys ?? false;
  const itemSep = indent === undefined ? ", " : ",";
  const keySep = ": ";

  const walk = (v: JsonValue, depth: number): string => {
    if (v === null) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new ProtocolInputError("JSON numbers must be finite: NaN and Infinity cannot be checkpointed");
      return pythonNumber(v);
    }
    if (typeof v === "string") return asciiString(v);
    const pad = indent === undefined ? "" : "\n" + " ".repeat(indent * (depth + 1));
    const close = indent === undefined ? "" : "\n" + " ".repeat(indent * depth);
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      return "[" + v.map((x) => pad + walk(x, depth + 1)).join(itemSep) + close + "]";
    }
    const keys = Object.keys(v);
    if (keys.length === 0) return "{}";
    if (sortKeys) keys.sort(compareCodePoints);
    return "{" + keys.map((k) => pad + asciiString(k) + keySep + walk(v[k] as JsonValue, depth + 1)).join(itemSep) + close + "}";
  };
  return walk(value, 0);
}

/** Python sorts str keys by code point; JS's default sort compares UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0) as number;
    const cy = y.value.codePointAt(0) as number;
    if (cx !== cy) return cx - cy;
  }
}

/** JSON string literal with every non-ASCII UTF-16 unit escaped, as ensure_ascii does. */
function asciiString(s: string): string {
  // JSON.stringify already escapes " \ and controls with the same short forms Python uses.
  // Python's ensure_ascii escapes everything outside " "…"~", DEL (0x7f) included.
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/**
 * A JS number as Python's json writes it. JSON gives no int/float distinction,
 * so integral values are written as Python ints (all digits); others follow
 * float repr: shortest digits, scientific below 1e-4 or from 1e16, exponent
 * with a sign and at least two digits ("1e-07").
 */
function pythonNumber(v: number): string {
  // Below 1e21 JSON.stringify writes integral values as digits, which Python reads as int.
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return Object.is(v, -0) ? "0" : BigInt(v).toString();
  const [mantissa, exp] = v.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(v);
}
