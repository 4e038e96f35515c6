import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { JsonObjectSchema } from "../protocol/index.ts";
import type { JsonObject } from "../protocol/index.ts";
import { ExitError } from "../errors.ts";

/** A usage error: exit code 2 with the message. */
export function usage(message: string): ExitError {
  return new ExitError(2, message);
}

/** --data JSON / --data-file F (`-`: stdin) → a JSON object, or a usage error saying what is wrong. */
export async function jsonObjectArg(flag: string, text: string | undefined, file: string | undefined, io: { cwd: string; readStdin: () => Promise<string> }): Promise<JsonObject> {
  if (text !== undefined && file !== undefined) throw usage(`give ${flag} or ${flag}-file, not both`);
  let raw = text;
  if (file === "-") raw = await io.readStdin();
  else if (file !== undefined) {
    try {
      raw = readFileSync(resolve(io.cwd, file), "utf8");
    } catch (e) {
      throw usage(`cannot read ${flag}-file ${file}: ${(e as Error).message}`);
    }
  }
  if (raw === undefined) throw usage(`${flag} is required (a JSON object, e.g. ${flag} '{"issue_number": 7}')`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw usage(`${flag} is not valid JSON: ${(e as Error).message}`);
  }
  const r = JsonObjectSchema.safeParse(value);
  if (!r.success) throw usage(`${flag} must be a JSON object (the seed saves keyword arguments), got ${Array.isArray(value) ? "an array" : typeof value}`);
  return r.data;
}
