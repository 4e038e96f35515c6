/**
 * The trust-boundary suite (issue 9, docs/security.md): a flood of rejected webhook deliveries,
 * thousands of untrusted agent names, and one huge comment by an untrusted author, each against
 * the embedded Forgejo and the real bot, with figures that must be 0 where the threat model
 * says an attacker gains nothing.
 */
import { createHmac } from "node:crypto";
import { startBot as createBot } from "../../../src/app/start-bot.ts";
import type { Bot } from "../../../src/bot/create-bot.ts";
import { defaultBotConfig } from "../../../src/config/bot-env.ts";
import type { BotConfig } from "../../../src/bot/bot-config.ts";
import { createLogger } from "../../../src/log/create-logger.ts";
import { formatCheckpoint, IMPLEMENTATION_WORKER_PHASE_MAP, pythonUtcIsoformat } from "../../../src/protocol/index.ts";
import { AGENT_LOGIN, REPO, startReliabilityWorld } from "../reliability-world.ts";
import type { ReliabilityWorld } from "../reliability-world.ts";

const SECRET = "trust-suite-webhook-secret";
const AGENT = "implementation-worker";
const cp = (agent: string, phase = "clone_complete") => formatCheckpoint({ agent, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase } });

/** A log sink that counts lines and bytes, and how many lines hold `canary`. */
function countingLog(canary: string) {
  const sink = { lines: 0, bytes: 0, canaryLines: 0 };
  const logger = createLogger({
    level: "info",
    pretty: false,
    secrets: [SECRET],
    destination: {
      write(s: string) {
        sink.lines++;
        sink.bytes += Buffer.byteLength(s);
        if (s.includes(canary)) sink.canaryLines++;
      },
    },
  });
  return { sink, logger };
}

async function startBot(w: ReliabilityWorld, logger: ReturnType<typeof createLogger>, o: Partial<BotConfig> = {}, now?: () => Date): Promise<Bot> {
  const config: BotConfig = {
    ...defaultBotConfig({ url: w.forge.url, token: w.token }, [REPO]),
    webhookSecret: SECRET,
    port: 0,
    pollIntervalMs: 0,
    reconcileIntervalMs: 0,
    dashboardIntervalMs: 0,
    livenessIntervalMs: 0,
    liveness: { minStaleMs: 60_000 },
    staleAlerts: true,
    ...o,
  };
  return createBot(config, { logger, ...(now ? { now } : {}) });
}

export interface FloodFigures {
  deliveries: number;
  payload_mib: number;
  rejected: number;
  log_lines: number;
  log_bytes: number;
  log_bytes_per_delivery: number;
  payload_lines_logged: number;
  valid_delivery_missed: number;
}
export const FLOOD_MUST_BE_ZERO = ["payload_lines_logged", "valid_delivery_missed"] as const;

/**
 * `deliveries` unsigned or badly signed deliveries of `payloadBytes` each (every third one over the
 * size cap), `concurrency` at a time; then one valid delivery, which must still be applied.
 */
export async function runFlood(o: { deliveries: number; payloadBytes: number; concurrency: number }): Promise<{ figures: FloodFigures; elapsedMs: number }> {
  const w = await startReliabilityWorld();
  const canary = `CANARY-${Date.now()}`;
  const { sink, logger } = countingLog(canary);
  const bot = await startBot(w, logger, { maxWebhookBytes: o.payloadBytes + 1024 });
  const url = `${bot.url}/api/github/webhooks`;
  const started = Date.now();
  const before = { lines: sink.lines, bytes: sink.bytes };
  let rejected = 0;
  let next = 0;
  const worker = async () => {
    while (next < o.deliveries) {
      const i = next++;
      const big = i % 3 === 2; // over the cap: refused with 413 before it is read whole
      const body = JSON.stringify({ action: "created", pad: canary + "x".repeat(big ? o.payloadBytes + 4096 : o.payloadBytes) });
      const headers: Record<string, string> = { "content-type": "application/json", "x-github-event": i % 2 ? "issue_comment" : `junk-${i}`, "x-github-delivery": `flood-${i}` };
      if (i % 3 === 1) headers["x-hub-signature-256"] = `sha256=${createHmac("sha256", "wrong").update(body).digest("hex")}`;
      const r = await fetch(url, { method: "POST", headers, body });
      await r.arrayBuffer();
      if (r.status >= 400 && r.status < 500) rejected++;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const flood = { lines: sink.lines - before.lines, bytes: sink.bytes - before.bytes };

  // A real delivery still gets through and is applied.
  const comment = await w.api().postRecord(REPO, w.issue, cp(AGENT));
  const payload = JSON.stringify({
    action: "created",
    issue: { number: w.issue, title: "t", state: "open", labels: [] },
    comment: { id: comment.id, body: comment.body, user: { login: AGENT_LOGIN }, created_at: comment.createdAt, updated_at: comment.updatedAt, html_url: comment.htmlUrl },
    repository: { name: REPO.repo, full_name: `${REPO.owner}/${REPO.repo}`, owner: { login: REPO.owner } },
    sender: { login: AGENT_LOGIN },
  });
  const sig = `sha256=${createHmac("sha256", SECRET).update(payload).digest("hex")}`;
  await (
    await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "real-1", "x-hub-signature-256": sig }, body: payload })
  ).arrayBuffer();
  await bot.idle();
  const applied = bot.trackers()[0]?.projection.latest(AGENT, "s1")?.commentId === comment.id;
  const elapsedMs = Date.now() - started;
  await bot.stop();
  await w.close();
  return {
    figures: {
      deliveries: o.deliveries,
      payload_mib: Math.round((o.deliveries * o.payloadBytes) / 1024 / 1024),
      rejected,
      log_lines: flood.lines,
      log_bytes: flood.bytes,
      log_bytes_per_delivery: Math.ceil(flood.bytes / Math.max(1, o.deliveries)),
      payload_lines_logged: sink.canaryLines,
      valid_delivery_missed: applied ? 0 : 1,
    },
    elapsedMs,
  };
}

export interface NamesFigures {
  untrusted_names: number;
  comments: number;
  startup_ms: number;
  entries: number;
  untrusted_entries: number;
  liveness_states_untrusted: number;
  alerts_for_untrusted: number;
  anomaly_lines: number;
  dashboard_bytes: number;
}
export const NAMES_MUST_BE_ZERO = ["untrusted_entries", "liveness_states_untrusted", "alerts_for_untrusted"] as const;

/** `names` untrusted agent names (from `authors` untrusted users) plus one trusted checkpoint; time a bot's start-up over them. */
export async function runNames(o: { names: number; authors: number }): Promise<{ figures: NamesFigures }> {
  const w = await startReliabilityWorld();
  const a = w.forge.admin;
  for (let u = 0; u < o.authors; u++) a.createUser(`stranger${u}`);
  a.bulkComments(
    REPO.owner,
    REPO.repo,
    w.issue,
    Array.from({ length: o.names }, (_, i) => ({ login: `stranger${i % o.authors}`, body: cp(`ghost-${i}`) })),
  );
  a.bulkComments(REPO.owner, REPO.repo, w.issue, [{ login: AGENT_LOGIN, body: cp(AGENT) }]);
  const { logger } = countingLog("-");
  const t0 = performance.now();
  const bot = await startBot(w, logger, {}, () => new Date(Date.now() + 3600_000)); // an hour on: every agent would be Silent
  const startupMs = Math.round(performance.now() - t0);
  const t = bot.trackers()[0];
  const snap = t?.projection.snapshot();
  await bot.flushDashboards();
  const body = (await w.api().readIssue(REPO, w.issue)).body;
  const alerts = (await w.api().listCommentsSince(REPO, w.issue)).filter((c) => c.body.startsWith("<!-- checkpost:alert") && !c.body.includes(JSON.stringify(AGENT)));
  const figures: NamesFigures = {
    untrusted_names: o.names,
    comments: snap?.comments ?? 0,
    startup_ms: startupMs,
    entries: snap?.entries.length ?? 0,
    untrusted_entries: snap?.entries.filter((e) => e.agent !== AGENT).length ?? -1,
    liveness_states_untrusted: Object.keys(t?.livenessStates() ?? {}).filter((k) => !k.includes(AGENT)).length,
    alerts_for_untrusted: alerts.length,
    anomaly_lines: snap?.anomalies.length ?? 0,
    dashboard_bytes: Buffer.byteLength(body),
  };
  await bot.stop();
  await w.close();
  return { figures };
}

export interface HugeFigures {
  comment_mib: number;
  full_read_ms: number;
  failed_reads: number;
  wrong_answers: number;
  bot_startup_ms: number;
}
export const HUGE_MUST_BE_ZERO = ["failed_reads", "wrong_answers"] as const;

/** One `mib` MiB comment by an untrusted author between two trusted checkpoints: every read path answers right. */
export async function runHugeComment(o: { mib: number }): Promise<{ figures: HugeFigures }> {
  const w = await startReliabilityWorld();
  const malloryToken = w.forge.admin.createToken("mallory");
  const agent = w.api();
  await agent.postRecord(REPO, w.issue, cp(AGENT, "clone_complete"));
  const huge = `[CHECKPOINT] ${AGENT}\nSession: s1\nPhase: pr_created\n\`\`\`json\n{"pad":"${"x".repeat(o.mib * 1024 * 1024)}"}\n\`\`\`\n`;
  await w.api({ token: malloryToken }).postRecord(REPO, w.issue, huge);
  await agent.postRecord(REPO, w.issue, cp(AGENT, "subtask_1_complete"));
  let failed = 0;
  let wrong = 0;
  const check = async (what: () => Promise<string | undefined>) => {
    try {
      if ((await what()) !== "subtask_1_complete") wrong++;
    } catch {
      failed++;
    }
  };
  const store = w.store();
  const t0 = performance.now();
  await check(async () => (await store.snapshot()).entries.find((e) => e.agent === AGENT)?.latest?.phase);
  const fullReadMs = Math.round(performance.now() - t0);
  await check(async () => (await store.resume(AGENT, "s1", IMPLEMENTATION_WORKER_PHASE_MAP)).phase);
  await check(async () => (await store.latest(AGENT, "s1"))?.phase);
  const { logger } = countingLog("-");
  const t1 = performance.now();
  let botStartupMs = -1;
  try {
    const bot = await startBot(w, logger);
    botStartupMs = Math.round(performance.now() - t1);
    await check(async () => bot.trackers()[0]?.projection.latest(AGENT, "s1")?.phase);
    for (const step of [() => bot.trackers()[0]?.poll(), () => bot.trackers()[0]?.reconcile()])
      try {
        await step();
      } catch {
        failed++;
      }
    await check(async () => bot.trackers()[0]?.projection.latest(AGENT, "s1")?.phase);
    await bot.stop();
  } catch {
    failed++;
  }
  await w.close();
  return { figures: { comment_mib: o.mib, full_read_ms: fullReadMs, failed_reads: failed, wrong_answers: wrong, bot_startup_ms: botStartupMs } };
}
