/**
 * Dashboard writes per hour under a steady workload, measured with the bot's
 * own rule (render, splice, write only when `dashboardChanged`): agents
 * checkpoint at their own cadence for a simulated day, the liveness tick runs
 * every `tickMs`, and writes are coalesced to one per `minIntervalMs` window,
 * as DashboardWriter does. Simulated clock: fast and deterministic.
 *
 * `node --import tsx bench/dashboard-writes.ts` prints the JSON result; `npm run bench` includes it.
 */
import { fileURLToPath } from "node:url";
import { createProjection } from "../src/projection/index.ts";
import { formatCheckpoint, pythonUtcIsoformat } from "../src/protocol/index.ts";
import { dashboardChanged, renderDashboard, spliceDashboard } from "../src/dashboard/index.ts";

export interface DashboardWritesResult {
  agents: number;
  hours: number;
  /** Agents checkpoint for this many hours, then stop (the rest measures an idle issue). */
  activeHours: number;
  checkpointsPerHour: number;
  writesPerHour: number;
  /** Ticks (liveness checks) that rendered but found nothing changed: writes avoided. */
  unchangedRendersPerHour: number;
  /** Writes per hour after every agent stopped (liveness transitions and the hourly timeline only), or null. */
  idleWritesPerHour: number | null;
  /** Largest body written (bytes). */
  maxBodyBytes: number;
}

export function simulateDashboardWrites(
  o: { agents?: number; hours?: number; activeHours?: number; cadenceMs?: number; tickMs?: number; minIntervalMs?: number; seed?: number } = {},
): DashboardWritesResult {
  const agents = o.agents ?? 20;
  const hours = o.hours ?? 3;
  const activeUntil = Date.parse("2026-11-29T00:00:00Z") + (o.activeHours ?? hours) * 3_600_000;
  const cadence = o.cadenceMs ?? 10 * 60_000;
  const tick = o.tickMs ?? 60_000;
  const minInterval = o.minIntervalMs ?? 10_000;
  let seed = o.seed ?? 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const start = Date.parse("2026-11-29T00:00:00Z");
  const end = start + hours * 3_600_000;
  const p = createProjection({ trustedAuthors: new Set(["bot"]) });
  // Each agent's next checkpoint time; agent 0 goes quiet after 1 h (a liveness transition to show), all stop at activeHours.
  const next = Array.from({ length: agents }, () => start + rand() * cadence);
  let id = 0;
  let body = "";
  let lastWrite = -Infinity;
  let pending = false;
  let writes = 0;
  let idleWrites = 0;
  let unchanged = 0;
  let checkpoints = 0;
  let maxBodyBytes = 0;
  const flush = (now: number) => {
    const nextBody = spliceDashboard(body, renderDashboard(p.snapshot(), new Date(now)));
    if (dashboardChanged(body, nextBody)) {
      body = nextBody;
      writes++;
      if (now >= activeUntil) idleWrites++;
      lastWrite = now;
      maxBodyBytes = Math.max(maxBodyBytes, Buffer.byteLength(body));
    } else unchanged++;
    pending = false;
  };
  for (let now = start; now < end; now += 1000) {
    for (let a = 0; a < agents; a++) {
      if ((next[a] as number) > now || (a === 0 && now > start + 3_600_000) || now >= activeUntil) continue;
      const t = new Date(now).toISOString();
      id++;
      p.apply({
        type: "upsert",
        comment: {
          id,
          author: "bot",
          createdAt: t,
          updatedAt: t,
          body: formatCheckpoint({ agent: `agent-${a}`, session: "s1", phase: `phase_${id % 7}`, timestamp: pythonUtcIsoformat(new Date(now)), data: { n: id }, seq: id }),
        },
      });
      checkpoints++;
      pending = true;
      next[a] = now + cadence * (0.8 + rand() * 0.4);
    }
    if ((now - start) % tick === 0) pending = true; // the liveness tick re-renders
    if (pending && now - lastWrite >= minInterval) flush(now);
  }
  return {
    agents,
    hours,
    activeHours: (activeUntil - start) / 3_600_000,
    checkpointsPerHour: checkpoints / hours,
    writesPerHour: writes / hours,
    unchangedRendersPerHour: unchanged / hours,
    idleWritesPerHour: end > activeUntil ? idleWrites / ((end - activeUntil) / 3_600_000) : null,
    maxBodyBytes,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify({ busy: simulateDashboardWrites({ hours: 2 }), idle: simulateDashboardWrites({ hours: 7, activeHours: 1 }) })}\n`);
}
