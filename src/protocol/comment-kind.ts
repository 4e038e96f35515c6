import type { z } from "zod";
import type { JsonValue } from "./json-value.ts";

/** Thrown by a kind's `read` for a body that opens with its marker but cannot be read; the reader turns it into `{kind:"invalid"}`. */
export class InvalidComment extends Error {}

/**
 * One protocol comment kind: everything the reader, the writer, `checkpost parse`, the JSON Schema, the
 * store and the projection need to know about it. A new kind is one file in kinds/ plus its line in
 * `COMMENT_KINDS` (comment-kinds.ts); the parsed-comment union, its schema, the marker check the store
 * uses and the rest are derived from that list.
 *
 * `V` is the parsed value (`{kind, [kind]: V}`), `I` what a writer gives `format`, `O` the flat fields
 * `checkpost parse` prints after `kind`.
 */
export interface CommentKind<K extends string = string, V = unknown, I = never, O extends object = object> {
  /** The `kind` of the parsed value (`{kind:"checkpoint", checkpoint}`) and of `{kind:"invalid", marker}`. */
  kind: K;
  /** What opens the comment's first line, before the agent name. */
  marker: string;
  /** For people (dashboard, errors). */
  label: string;
  /** The parsed value's schema (JSON Schema export, validation at boundaries). */
  schema: z.ZodType<V>;
  /** Its name and description in the JSON Schema's $defs (schema/checkpost.schema.json). */
  jsonSchema: { id: string; description: string };
  /** Header names this kind reads (lower case, as written before ":") → field key. */
  headers: ReadonlyMap<string, string>;
  /** Whether a ```json block is required ("required") or must be absent ("none"). */
  json: "required" | "none";
  /** Build the value from the agent name, header lines and JSON block (null when `json` is "none"); throw `InvalidComment` to reject. */
  read(agent: string, headers: ReadonlyMap<string, string>, json: JsonValue | null): V;
  /** Write a comment body of this kind (validating the input; ProtocolInputError when it cannot). */
  format(input: I): string;
  /** The fields `checkpost parse` prints for it, after `"kind"`. */
  output(value: V): O;
  /** Agent and session the value belongs to (the projection's entry key). */
  entryOf(value: V): { agent: string; session: string };
  /**
   * The projection's hook for a kind it has no rules of its own for (checkpoint, health and control have
   * theirs in projection/derive-entry.ts): the newest trusted, unedited comment of this kind is shown in
   * its agent+session entry as `kinds[kind]`, as this returns it. Unset: the kind is read and stored, not projected.
   */
  project?(value: V): JsonValue;
}

/**
 * Any kind, whatever its types (a registry holds several; ParsedOf recovers each one's). Methods, not
 * function properties, so a kind of a narrower value still fits (TypeScript checks method parameters bivariantly).
 */
export type AnyCommentKind = CommentKind<string, unknown, never, object>;
