import type { DirectiveKind } from "../protocol/index.ts";
import type { AgentEntry, Directive } from "./projection-snapshot.ts";

/** The directive an entry's controls give its agent (pause first), or null. */
export function directiveOf(entry: Pick<AgentEntry, "control"> | null | undefined): Directive | null {
  const c = entry?.control;
  if (!c) return null;
  // A pause over a pending rewind/release still carries that fence's epoch: resume above it.
  if (c.paused) return { ...c.paused, kind: "pause", ...(c.pending?.epoch !== undefined ? { epoch: c.pending.epoch } : {}) };
  // A pending fence is told as its own action (rewind, release: the registry's fence actions).
  if (c.pending) return { ...c.pending, kind: c.pending.action as DirectiveKind };
  return null;
}
