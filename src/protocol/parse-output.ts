import type { AnyCommentKind } from "./comment-kind.ts";
import { PROTOCOL_KINDS } from "./comment-kinds.ts";
import type { KindRegistry, ParseOutputFor, ParsedFor, ProtocolKinds } from "./comment-kinds.ts";

/** The flat JSON shape `checkpost parse` prints, for agents in other languages. */
export type ParseOutput = ParseOutputFor<ProtocolKinds>;

/** `{kind, ...the kind's output fields}`, or the invalid/none verdict as it is. */
export function toParseOutput<Ks extends readonly AnyCommentKind[] = ProtocolKinds>(p: ParsedFor<Ks>, registry?: KindRegistry<Ks>): ParseOutputFor<Ks> {
  if (p.kind === "invalid") return { kind: "invalid", agent: p.agent, error: p.error, marker: p.marker } as ParseOutputFor<Ks>;
  if (p.kind === "none") return { kind: "none" } as ParseOutputFor<Ks>;
  const kind = ((registry ?? PROTOCOL_KINDS) as KindRegistry).byName(p.kind);
  if (!kind) throw new Error(`toParseOutput: no comment kind "${p.kind}" in the registry it was given`);
  return { kind: p.kind, ...kind.output((p as Record<string, unknown>)[p.kind]) } as ParseOutputFor<Ks>;
}
