import type { z } from "zod";
import type { JsonValue } from "./json-value.ts";

/** Thrown by a kind's `read` for a body that opens with its marker but cannot be read; the reader turns it into `{kind:"invalid"}`. */
export class InvalidComment extends Error {}

/**
 * One protocol comment kind: everything the reader and writer need to know
 * about it, so a new kind is one file here plus a line in `COMMENT_KINDS`
 * (and its branch in `ParsedCommentSchema`).
 */
export interface CommentKind<K extends string = string, V = unknown> {
  /** The `kind` of the parsed value (`{kind:"checkpoint", checkpoint}`) and of `{kind:"invalid", marker}`. */
  kind: K;
  /** What opens the comment's first line, before the agent name. */
  marker: string;
  /** For people (dashboard, errors). */
  label: string;
  /** The parsed value's schema (JSON Schema export, validation at boundaries). */
  schema: z.ZodType<V>;
  /** Header names this kind reads (lower case, as written before ":") → field key. */
  headers: ReadonlyMap<string, string>;
  /** Whether a ```json block is required ("required") or must be absent ("none"). */
  json: "required" | "none";
  /** Build the value from the agent name, header lines and JSON block (null when `json` is "none"); throw `InvalidComment` to reject. */
  read(agent: string, headers: ReadonlyMap<string, string>, json: JsonValue | null): V;
}
