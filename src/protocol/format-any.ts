import type { AnyCommentKind } from "./comment-kind.ts";
import { PROTOCOL_KINDS } from "./comment-kinds.ts";
import type { InputOf, KindRegistry, ProtocolKinds } from "./comment-kinds.ts";

/**
 * Format a comment of any kind by name, through its registry line: `formatComment("health", {…})` is
 * `formatHealth({…})`. `registry`: the kinds to write (default the protocol's).
 */
export function formatComment<Ks extends readonly AnyCommentKind[] = ProtocolKinds, N extends Ks[number]["kind"] = Ks[number]["kind"]>(
  kind: N,
  input: InputOf<Extract<Ks[number], { kind: N }>>,
  registry?: KindRegistry<Ks>,
): string {
  const k = ((registry ?? PROTOCOL_KINDS) as KindRegistry).byName(kind);
  if (!k) throw new Error(`formatComment: no comment kind "${kind}"`);
  return (k.format as (input: unknown) => string)(input);
}
