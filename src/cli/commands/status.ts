import { setTimeout as sleep } from "node:timers/promises";
import { buildDashboardModel, renderStatusText } from "../../dashboard/index.ts";
import type { DashboardModel } from "../../dashboard/index.ts";
import { ExitError } from "../../errors.ts";
import { cliContext } from "../context.ts";
import type { RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
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
export async function status(io: CliIo, o: StatusOptions): Promise<void> {
  const ctx = cliContext(io, o);
  if (o.json) {
    const snap = await ctx.withStore((s) => s.snapshot());
    printJson(io, snap);
    return exitForAttention(buildDashboardModel(snap, new Date(), { maxRows: 1 }));
  }
  const every = o.watch === undefined || o.watch === false ? null : o.watch === true ? 10 : Number(o.watch);
  if (every !== null && !(every > 0)) throw usage(`--watch ${String(o.watch)}: give the refresh period in seconds, e.g. --watch 5`);
  const times = o.times === undefined ? Number.POSITIVE_INFINITY : Number(o.times);
  if (!(times >= 1)) throw usage(`--times ${String(o.times)}: give a positive count`);
  const color = io.isTTY === true && !io.env.NO_COLOR;
  for (let i = 0; ; i++) {
    const { text, model } = await ctx.withStore(async (s) => {
      const snap = await s.snapshot();
      const now = new Date();
      const issue = await s.issueNumber();
      const model = buildDashboardModel(snap, now, { maxRows: 500 });
      return { model, text: renderStatusText(model, now, { color, title: `${s.repo.owner}/${s.repo.repo}#${issue}` }) };
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
