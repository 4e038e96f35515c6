import * as z from "zod";

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (what agents checkpoint). */
export type JsonObject = { [key: string]: JsonValue };

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * True for what JSON can hold: null, booleans, finite numbers, strings, and arrays and plain objects of
 * those, with no cycles (an object shared by two branches is fine, as for JSON.stringify). Iterative,
 * so a deeply nested state cannot overflow the stack, and one pass: zod's recursive union tried six
 * schemas per value, several milliseconds of a CLI save's data.
 */
export function isJsonValue(root: unknown): root is JsonValue {
  // Depth-first; `LEAVE` marks where an array's or object's children end, so `open` holds exactly
  // the containers on the path from the root to the value at hand (a value among them is a cycle).
  const LEAVE = Symbol("leave");
  const stack: unknown[] = [root];
  const path: object[] = [];
  const open = new Set<object>();
  while (stack.length) {
    const v = stack.pop();
    if (v === LEAVE) {
      open.delete(path.pop() as object);
      continue;
    }
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
      continue;
    }
    const array = Array.isArray(v);
    if ((!array && !isPlainObject(v)) || open.has(v as object)) return false;
    open.add(v as object);
    path.push(v as object);
    stack.push(LEAVE);
    if (array) for (const x of v) stack.push(x);
    else for (const k of Object.keys(v as object)) stack.push((v as Record<string, unknown>)[k]);
  }
  return true;
}

const NOT_JSON = "must be JSON: null, a boolean, a finite number (JSON has no NaN or Infinity), a string, or an array or object of those";

export const JsonValueSchema: z.ZodType<JsonValue> = z.custom<JsonValue>(isJsonValue, { message: NOT_JSON });

export const JsonObjectSchema: z.ZodType<JsonObject> = z.custom<JsonObject>((v) => isPlainObject(v) && isJsonValue(v), { message: `must be a JSON object; its values ${NOT_JSON}` });

/** JsonValueSchema's JSON Schema (a custom check has none of its own); `ref` is how the document refers to it. */
export function jsonValueJsonSchema(ref: string): Record<string, unknown> {
  return {
    anyOf: [
      { type: "null" },
      { type: "boolean" },
      { type: "number" },
      { type: "string" },
      { type: "array", items: { $ref: ref } },
      { type: "object", propertyNames: { type: "string" }, additionalProperties: { $ref: ref } },
    ],
  };
}
