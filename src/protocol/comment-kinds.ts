import type { CommentKind } from "./comment-kind.ts";
import { checkpointKind } from "./kinds/checkpoint-kind.ts";
import { controlKind } from "./kinds/control-kind.ts";
import { healthKind } from "./kinds/health-kind.ts";

/**
 * Every protocol comment kind the reader knows, by marker. A comment whose
 * first line opens with none of these markers is `{kind:"none"}`.
 */
export const COMMENT_KINDS = [checkpointKind, healthKind, controlKind] as const;

/** The kind names, as `{kind:"invalid", marker}` reports them. */
export type CommentKindName = (typeof COMMENT_KINDS)[number]["kind"];

/** The kind whose marker opens `head`, or undefined. */
export function kindForHead(head: string): (typeof COMMENT_KINDS)[number] | undefined {
  for (const k of COMMENT_KINDS) if (head.startsWith(k.marker)) return k;
  return undefined;
}

/** The marker of a kind by name ("[CHECKPOINT]" for "checkpoint"). */
export function markerOf(kind: CommentKindName): string {
  return (COMMENT_KINDS.find((k) => k.kind === kind) as CommentKind).marker;
}
