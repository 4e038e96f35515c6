import type { Logger } from "pino";
import { entryKey } from "../../projection/index.ts";
import { parseComment } from "../../protocol/index.ts";

/**
 * A late carry's last check (carryNewest): the newest save per agent+session that a trusted writer posted on
 * the head itself, as the forge lists it (the store may not have read it yet). A save on the closed issue
 * older than that one (comment ids are global) is not carried: its copy would be the head's newest comment,
 * and every reader would resume from the older save (the fleet's seed 2031, schedule 128).
 */
export class NewerOnHead {
  private readonly newest = new Map<string, number>();

  note(agent: string, session: string, commentId: number): void {
    const k = entryKey(agent, session);
    this.newest.set(k, Math.max(this.newest.get(k) ?? 0, commentId));
  }

  /** Whether the save `body` (comment `from` on the closed issue) is older than one on the head; logged when so. */
  skips(from: number, body: string, log: Pick<Logger, "info">, where: { issue: number; successor: number }): boolean {
    const p = parseComment(body);
    if (p.kind !== "checkpoint") return false;
    const newer = this.newest.get(entryKey(p.checkpoint.agent, p.checkpoint.session)) ?? 0;
    if (newer <= from) return false;
    log.info({ ...where, commentId: from, newer }, "late carry: the head holds a newer save of the agent+session; this older one is not carried");
    return true;
  }
}
