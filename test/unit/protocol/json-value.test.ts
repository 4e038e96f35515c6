import fc from "fast-check";
import * as z from "zod";
import { describe, expect, it } from "vitest";
import { JsonObjectSchema, JsonValueSchema, isJsonValue } from "../../../src/protocol/json-value.ts";
import type { JsonValue } from "../../../src/protocol/json-value.ts";

// The oracle: the recursive zod union JsonValueSchema used to be (slow, but plainly right).
const Oracle: z.ZodType<JsonValue> = z.lazy(() => z.union([z.null(), z.boolean(), z.number().refine(Number.isFinite), z.string(), z.array(Oracle), z.record(z.string(), Oracle)]));

describe("isJsonValue / JsonValueSchema", () => {
  it("accepts every JSON value", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => isJsonValue(v)));
  });

  it("agrees with the recursive zod union on arbitrary input", () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withTypedArray: true, withBoxedValues: true }), (v) => {
        expect(isJsonValue(v)).toBe(Oracle.safeParse(v).success);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["NaN", { x: Number.NaN }],
    ["Infinity", [1, Number.POSITIVE_INFINITY]],
    ["undefined", { x: undefined }],
    ["a function", { f: () => 1 }],
    ["a Date", { d: new Date(0) }],
    ["a class instance", { m: new Map() }],
    ["a bigint", { n: 1n }],
  ])("rejects %s", (_what, v) => {
    expect(isJsonValue(v)).toBe(false);
    expect(JsonValueSchema.safeParse(v).success).toBe(false);
  });

  it("rejects a cycle instead of looping", () => {
    const a: Record<string, unknown> = { x: 1 };
    a["self"] = a;
    const b: unknown[] = [];
    b.push(b);
    expect(isJsonValue(a)).toBe(false);
    expect(isJsonValue(b)).toBe(false);
  });

  it("accepts a shared (not cyclic) object and deep nesting without overflowing the stack", () => {
    const shared = { k: [1, 2] };
    expect(isJsonValue({ a: shared, b: [shared, shared] })).toBe(true);
    expect(Oracle.safeParse({ a: shared, b: [shared, shared] }).success).toBe(true);
    let deep: JsonValue = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(isJsonValue(deep)).toBe(true);
  });

  it("JsonObjectSchema wants an object at the top, with a message that says what JSON holds", () => {
    expect(JsonObjectSchema.safeParse({ a: [1, "x", null] }).success).toBe(true);
    for (const v of [[1], "x", null, 3]) expect(JsonObjectSchema.safeParse(v).success).toBe(false);
    const r = JsonObjectSchema.safeParse({ x: Number.NaN });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain("finite number");
  });
});
