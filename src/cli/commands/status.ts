import { setTimeout as sleep } from "node:timers/promises";
import { buildDashboardModel, renderStatusText } from "../../dashboard/index.ts";
import type { DashboardModel } from "../../dashboard/index.ts";
import { ExitError } from "../../errors.ts";
import { decideResume, freshnessOf } from "../../projection/index.ts";
import { phaseMapFor } from "../phase-maps.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, clockOf, printJson } from "../io.ts";
import { usage } from "../parse-json-arg.ts";

export interface StatusOptions extends RepoFlags {
  json?: boolean;
  /** Refresh every N seconds (true: 10). */
  watch?: boolean | string;
  /** With --watch: stop after this many refreshes. */
  times?: string;
}

/**
 * `checkpost status`: the dashboard's sections for a person (needs attention
 * first, agents by session with liveness, anomalies, legend), coloured on a
 * TTY unless NO_COLOR; `--json` prints the projection snapshot unchanged;
 * `--watch [s]` redraws every s seconds. Exits 3 when the (last) answer has something needing
 * attention (NEEDS_ATTENTION_EXIT), so scripts and CI can act on it without parsing.
 */
export async function status(io: CliIo, o: StatusOptions, root: CliRoot): Promise<void> {
  const ctx = await root.context(io, o);
  // The same thresholds the bot's dashboard uses (CHECKPOST_STALE_AFTER_MS, CHECKPOST_MIN_STALE_MS).
  const lv = { minStaleMs: ctx.env.CHECKPOST_MIN_STALE_MS, ...(ctx.env.CHECKPOST_STALE_AFTER_MS ? { staleAfterMs: ctx.env.CHECKPOST_STALE_AFTER_MS } : {}) };
  const maps = io.env["CHECKPOST_PHASE_MAPS"];
  if (o.json) {
    const { snap, issue } = await ctx.withStore(async (s) => ({ snap: await s.snapshot(), issue: await s.issueNumber() }));
    const now = clockOf(io)();
    printJson(io, {
      ...snap,
      // Each entry with the one resume decision (without the state: `latest.data` holds it) and its liveness.
      entries: snap.entries.map((e) => {
        const chosen = phaseMapFor(e.agent, { maps, cwd: io.cwd });
        const { state: _s, ...resume } = decideResume(e.agent, e, { map: chosen ?? null, liveness: lv, now });
        return { ...e, liveness: resume.liveness, resume };
      }),
      repo: `${ctx.store.repo.owner}/${ctx.store.repo.repo}`,
      // The open head of the session chain, read just now.
      issue,
      freshness: freshnessOf({ asOf: now, watermark: snap.watermark, watermarkUpdatedAt: snap.watermarkUpdatedAt, budgetMs: null, now }),
    });
    return exitForAttention(buildDashboardModel(snap, now, { maxRows: 1, liveness: lv }));
  }
  const every = o.watch === undefined || o.watch === false ? null : o.watch === true ? 10 : Number(o.watch);
  if (every !== null && !(every > 0)) throw usage(`--watch ${String(o.watch)}: give the refresh period in seconds, e.g. --watch 5`);
  const times = o.times === undefined ? Number.POSITIVE_INFINITY : Number(o.times);
  if (!(times >= 1)) throw usage(`--times ${String(o.times)}: give a positive count`);
  const color = io.isTTY === true && !io.env.NO_COLOR;
  for (let i = 0; ; i++) {
    const { text, model } = await ctx.withStore(async (s) => {
      const snap = await s.snapshot();
      const now = clockOf(io)();
      const issue = await s.issueNumber();
      const model = buildDashboardModel(snap, now, { maxRows: 500, liveness: lv });
      return { model, text: renderStatusText(model, now, { color, liveness: lv, title: `${s.repo.owner}/${s.repo.repo}#${issue}` }) };
    });
    // Clear the screen between refreshes only on a terminal.
    io.out(every !== null && color ? `\u001b[2J\u001b[H${text}` : text);
    if (every === null || i + 1 >= times) return exitForAttention(model);
    await sleep(every * 1000);
  }
}

/** `status`'s exit code when an agent needs attention (silent, stale, paused, an anomaly…): README, "Exit codes". */
export const NEEDS_ATTENTION_EXIT = 3;

/** Exit 3 when the model has a row needing attention (shown or left out by the row cap). */
function exitForAttention(model: DashboardModel): void {
  if (model.attention.length + model.omittedAttention > 0) throw new ExitError(NEEDS_ATTENTION_EXIT);
}
