import type { AgentEntry } from "../../projection/index.ts";
import { formatDuration as formatAge } from "../../util/format-duration.ts";
import { cliContext } from "../context.ts";
import type { RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";

function row(e: AgentEntry, now: number): string[] {
  const age = (iso: string | null | undefined) => (iso ? formatAge(now - Date.parse(iso)) : "-");
  return [e.agent, e.session, e.latest?.phase ?? "-", age(e.latest?.createdAt), e.health ? `${e.health.status} (${age(e.health.createdAt)})` : "-"];
}

/** `checkpost status`: agents × sessions with phase, checkpoint age and last health; --json for machines. */
export async function status(io: CliIo, o: RepoFlags & { json?: boolean }): Promise<void> {
  const ctx = cliContext(io, o);
  const snap = await ctx.withStore((s) => s.snapshot());
  if (o.json) return printJson(io, snap);
  const now = Date.now();
  const rows = [["AGENT", "SESSION", "PHASE", "CHECKPOINT AGE", "HEALTH"], ...snap.entries.map((e) => row(e, now))];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  io.out(rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd()).join("\n"));
  if (snap.anomalies.length) io.out(`\n${snap.anomalies.length} anomal${snap.anomalies.length === 1 ? "y" : "ies"} (see --json)`);
}
