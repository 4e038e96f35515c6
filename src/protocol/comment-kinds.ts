import * as z from "zod";
import type { AnyCommentKind, CommentKind } from "./comment-kind.ts";
import { checkpointKind } from "./kinds/checkpoint-kind.ts";
import { controlKind } from "./kinds/control-kind.ts";
import { healthKind } from "./kinds/health-kind.ts";
import { snapshotKind } from "./kinds/snapshot-kind.ts";
import { builtSchema, lazySchema } from "./lazy-schema.ts";

/**
 * Every protocol comment kind the reader knows. A comment whose first line opens with none of their
 * markers is `{kind:"none"}`. Adding a kind: its file in kinds/ and its line here; everything else
 * (parse, format, the parsed-comment union and its schema, the JSON Schema, `checkpost parse`'s
 * output, the store's protocol-body check) is derived from this list.
 */
export const COMMENT_KINDS = [checkpointKind, healthKind, controlKind, snapshotKind] as const;

/** The kind names, as `{kind:"invalid", marker}` reports them. */
export type CommentKindName = (typeof COMMENT_KINDS)[number]["kind"];

type ValueOf<K> = K extends CommentKind<string, infer V, infer _I, infer _O> ? V : never;
/** What `format` of a kind takes. */
export type InputOf<K> = K extends CommentKind<string, infer _V, infer I, infer _O> ? I : never;
type OutputOf<K> = K extends CommentKind<string, infer _V, infer _I, infer O> ? O : never;

/** The reader's value for one kind: `{kind: "checkpoint", checkpoint: Checkpoint}`. */
export type ParsedOf<K> = K extends AnyCommentKind ? { kind: K["kind"] } & { [P in K["kind"]]: ValueOf<K> } : never;
/** The reader's verdict under a list of kinds. Never thrown: invalid bodies say why. */
export type ParsedFor<Ks extends readonly AnyCommentKind[]> = ParsedOf<Ks[number]> | { kind: "invalid"; marker: Ks[number]["kind"]; agent: string | null; error: string } | { kind: "none" };
/** `checkpost parse`'s flat output under a list of kinds. */
export type ParseOutputFor<Ks extends readonly AnyCommentKind[]> =
  | (Ks[number] extends infer K ? (K extends AnyCommentKind ? { kind: K["kind"] } & OutputOf<K> : never) : never)
  | { kind: "invalid"; agent: string | null; error: string; marker: Ks[number]["kind"] }
  | { kind: "none" };

/** A list of kinds with what the reader and the store look up in it. */
export interface KindRegistry<Ks extends readonly AnyCommentKind[] = readonly AnyCommentKind[]> {
  readonly kinds: Ks;
  /** How many characters of a body's first non-blank line decide its kind (the longest marker). */
  readonly headLength: number;
  /** The kind whose marker opens `head`, or undefined. */
  forHead(head: string): Ks[number] | undefined;
  /** The kind of this name, or undefined. */
  byName(name: string): Ks[number] | undefined;
}

export function kindRegistry<const Ks extends readonly AnyCommentKind[]>(kinds: Ks): KindRegistry<Ks> {
  const names = new Set<string>();
  for (const k of kinds) {
    if (names.has(k.kind)) throw new Error(`two comment kinds named "${k.kind}"`);
    if (k.kind === "invalid" || k.kind === "none") throw new Error(`"${k.kind}" is the reader's own verdict, not a kind name`);
    names.add(k.kind);
  }
  const byName = new Map<string, Ks[number]>(kinds.map((k) => [k.kind, k]));
  return {
    kinds,
    headLength: Math.max(0, ...kinds.map((k) => k.marker.length)),
    forHead(head) {
      for (const k of kinds) if (head.startsWith(k.marker)) return k;
      return undefined;
    },
    byName: (name) => byName.get(name),
  };
}

/** The protocol's kinds: what every reader, writer and store in checkpost uses. */
export const PROTOCOL_KINDS = kindRegistry(COMMENT_KINDS);
export type ProtocolKinds = typeof COMMENT_KINDS;

/** The reader's verdict on one comment body. Never thrown: invalid bodies say why. */
export type ParsedComment = ParsedFor<ProtocolKinds>;

/** The kind whose marker opens `head`, or undefined. */
export function kindForHead(head: string): (typeof COMMENT_KINDS)[number] | undefined {
  return PROTOCOL_KINDS.forHead(head);
}

/** The marker of a kind by name ("[CHECKPOINT]" for "checkpoint"); a name no registry line has is shown as is. */
export function markerOf(kind: string, registry: KindRegistry = PROTOCOL_KINDS): string {
  return registry.byName(kind)?.marker ?? kind;
}

/** The zod schema of ParsedFor<Ks>, built from the kinds' own schemas. */
export function parsedCommentSchema<Ks extends readonly AnyCommentKind[]>(registry: KindRegistry<Ks>): z.ZodType<ParsedFor<Ks>> {
  const names = registry.kinds.map((k) => k.kind);
  const [first, ...rest] = [
    ...registry.kinds.map((k) => z.object({ kind: z.literal(k.kind), [k.kind]: builtSchema(k.schema) })),
    z.object({ kind: z.literal("invalid"), marker: z.enum(names as [string, ...string[]]), agent: z.string().nullable(), error: z.string() }),
    z.object({ kind: z.literal("none") }),
  ];
  return z.discriminatedUnion("kind", [first as z.ZodObject<{ kind: z.ZodLiteral<string> }>, ...rest]) as unknown as z.ZodType<ParsedFor<Ks>>;
}

/** The reader's verdict on one comment body, as a schema (validation at boundaries). */
export const ParsedCommentSchema = lazySchema(() => parsedCommentSchema(PROTOCOL_KINDS));
