import { detectTransitions, entryKey, liveness } from "../../projection/index.ts";
import type { AgentEntry, CommentRecord, LivenessState, LivenessTransition } from "../../projection/index.ts";
import { alertBody, parseAlert } from "./stale-alert.ts";
import type { TrackerContext } from "../tracker-context.ts";

/** One issue's agents' liveness states, and the stale/silent alerts the writer posts once each. */
export class LivenessAlerts {
  private states: Record<string, LivenessState> = {};
  /** agent+session+lastSignalAt alerts already posted (recognised from our own comments too). */
  private readonly alerted = new Set<string>();

  constructor(private readonly t: TrackerContext) {}

  /** A comment seen: the bot's own alert comments are remembered, so they are not posted again. */
  noteComment(c: CommentRecord): void {
    if (c.author.toLowerCase() === this.t.o.selfLogin.toLowerCase()) {
      const key = parseAlert(c.body);
      if (key) this.alerted.add(key);
    }
  }

  /** Re-evaluate liveness; returns the transitions (each logged, shown and alerted once). */
  async check(): Promise<LivenessTransition[]> {
    const { o, projection } = this.t;
    const now = this.t.now();
    const next: Record<string, LivenessState> = {};
    // Only entries with a trusted signal have a liveness state (and so alerts and metrics): the
    // others never signalled, and may be named by anyone (issue 9). A map keeps this O(entries).
    const entries = new Map<string, AgentEntry>();
    for (const e of projection.snapshot().entries) {
      if (e.lastSignalAt === null) continue;
      const k = entryKey(e.agent, e.session);
      entries.set(k, e);
      next[k] = liveness(e, now, o.liveness).state;
    }
    const transitions = detectTransitions(this.states, next).filter((t) => t.from !== null || t.to !== "active");
    this.states = next;
    for (const t of transitions) {
      const entry = entries.get(t.key);
      o.metrics.transitions.inc({ to: t.to ?? "gone" });
      o.logger.info({ issue: this.t.key, agent: entry?.agent, session: entry?.session, from: t.from, to: t.to }, `agent is now ${t.to ?? "gone"}`);
      if (o.staleAlerts && entry && (t.to === "stale" || t.to === "silent")) {
        const alertKey = `${t.key}\u0000${t.to}\u0000${entry.lastSignalAt ?? ""}`;
        const fence = o.lease.current();
        // Only the lease holder alerts; recorded in the store (fenced) before posting, so no two processes post it.
        if (fence && !this.alerted.has(alertKey) && (await o.store.recordAlert(fence, this.t.storeKey, alertKey))) {
          this.alerted.add(alertKey);
          const l = liveness(entry, now, o.liveness);
          const to = t.to;
          const post = () => o.api.createComment(o.repo, o.issue, alertBody(entry, to, l, now));
          await (o.fencedWrite ? o.fencedWrite("alert", post) : post());
        }
      }
    }
    if (transitions.length) this.t.dashboard.markDirty();
    return transitions;
  }

  current(): Readonly<Record<string, LivenessState>> {
    return this.states;
  }
}
