/**
 * The second trust round (issue 19, docs/security.md): replayed webhook deliveries, a commenter's
 * successor issue at rollover, forged health archives, and a storm of wrong web sign-ins against the
 * embedded forge while the bot runs in the same process. Each reports what it sees, holes included.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { startBot as createBot } from "../../../src/app/start-bot.ts";
import type { Bot } from "../../../src/bot/create-bot.ts";
import { defaultBotConfig } from "../../../src/config/bot-env.ts";
import type { BotConfig } from "../../../src/bot/bot-config.ts";
import { runCli } from "../../../src/app/cli.ts";
import { sha256Hex } from "../../../src/compaction/archive-record.ts";
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import { createLogger } from "../../../src/log/create-logger.ts";
import { formatCheckpoint, formatHealth, IMPLEMENTATION_WORKER_PHASE_MAP, pythonUtcIsoformat } from "../../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../../src/session-client/index.ts";
import { AGENT_LOGIN, REPO, startReliabilityWorld } from "../reliability-world.ts";
import type { ReliabilityWorld } from "../reliability-world.ts";

const SECRET = "trust-19-webhook-secret";
const AGENT = "implementation-worker";
const WEBHOOK_PATH = "/api/github/webhooks";
const cp = (phase: string, epoch?: number) =>
  formatCheckpoint({ agent: AGENT, session: "s1", phase, timestamp: pythonUtcIsoformat(new Date()), data: { phase }, ...(epoch !== undefined ? { seq: epoch, epoch } : {}) });
const silent = () => createLogger({ level: "silent", pretty: false, secrets: [SECRET] });

async function startBot(w: ReliabilityWorld, o: Partial<BotConfig> = {}): Promise<Bot> {
  return createBot(
    {
      ...defaultBotConfig({ url: w.forge.url, token: w.token }, [REPO]),
      webhookSecret: SECRET,
      port: 0,
      pollIntervalMs: 0,
      reconcileIntervalMs: 0,
      dashboardIntervalMs: 0,
      livenessIntervalMs: 0,
      ...o,
    },
    { logger: silent() },
  );
}

/** Deliveries from the forge to the bot, wired like `checkpost install-webhook`. */
async function wire(w: ReliabilityWorld, bot: Bot): Promise<void> {
  await w.api().ensureWebhook(REPO, { url: `${bot.url}${WEBHOOK_PATH}`, secret: SECRET, events: ["issues", "issue_comment"] });
}

async function settle(w: ReliabilityWorld, bot: Bot): Promise<void> {
  await w.forge.admin.idle();
  await bot.idle();
}

const controls = async (w: ReliabilityWorld, action: string) =>
  (await w.api().listCommentsSince(REPO, w.issue)).filter((c) => c.body.startsWith("[CONTROL]") && new RegExp(`^Action: ${action}$`, "m").test(c.body)).length;

export interface ReplayFigures {
  replays_sent: number;
  redeliveries_sent: number;
  pause_records_from_replays: number;
  release_replays: number;
  fence_raised_by_replay: number;
}
export const REPLAY_MUST_BE_ZERO = ["pause_records_from_replays", "fence_raised_by_replay"] as const;

/**
 * A writer's `/checkpost pause`, then `resume`; the pause's signed delivery is then sent again unchanged
 * `replays` times and once more under a new delivery id (what Forgejo's "redeliver" does). Then a
 * `release`, whose delivery is replayed once: the fence must stay where the one release put it.
 */
export async function runReplay(o: { replays: number }): Promise<{ figures: ReplayFigures }> {
  const w = await startReliabilityWorld();
  const bot = await startBot(w);
  await wire(w, bot);
  const mallory = new ForgejoApi(new ForgejoClient({ url: w.forge.url, token: w.forge.admin.createToken("mallory") })); // a writer, not a trusted author
  await w.api().postRecord(REPO, w.issue, cp("clone_complete", 1));
  await settle(w, bot);
  const deliveryOf = (commentId: number) => {
    const d = w.forge.admin.deliveries().find((x) => x.eventType === "issue_comment" && x.action === "created" && (JSON.parse(x.body) as { comment?: { id?: number } }).comment?.id === commentId);
    if (!d) throw new Error(`no delivery of comment ${commentId}`);
    return d;
  };
  const resend = async (d: ReturnType<typeof deliveryOf>, newId?: string) => {
    const headers = { ...d.requestHeaders };
    if (newId) for (const k of Object.keys(headers)) if (/-Delivery$/i.test(k)) headers[k] = newId;
    const r = await fetch(`${bot.url}${WEBHOOK_PATH}`, { method: "POST", headers, body: d.body });
    await r.arrayBuffer();
  };
  const pause = await mallory.postRecord(REPO, w.issue, `/checkpost pause ${AGENT} s1`);
  await settle(w, bot);
  await mallory.postRecord(REPO, w.issue, `/checkpost resume ${AGENT} s1`);
  await settle(w, bot);
  const pausesBefore = await controls(w, "pause");
  for (let i = 0; i < o.replays; i++) await resend(deliveryOf(pause.id));
  await resend(deliveryOf(pause.id), `redeliver-${Date.now()}`);
  await settle(w, bot);
  const pausesAfter = await controls(w, "pause");

  const release = await mallory.postRecord(REPO, w.issue, `/checkpost release ${AGENT} s1`);
  await settle(w, bot);
  const fence = () =>
    bot
      .trackers()[0]
      ?.projection.snapshot()
      .entries.find((e) => e.agent === AGENT && e.session === "s1")?.maxEpoch ?? -1;
  const fenceBefore = fence();
  await resend(deliveryOf(release.id));
  await settle(w, bot);
  const fenceAfter = fence();
  await bot.stop();
  await w.close();
  return {
    figures: {
      replays_sent: o.replays,
      redeliveries_sent: 1,
      pause_records_from_replays: pausesAfter - pausesBefore,
      release_replays: 1,
      fence_raised_by_replay: fenceAfter - fenceBefore,
    },
  };
}

export interface HijackFigures {
  foreign_successor_adopted: number;
  checkpoints_carried_into_foreign: number;
  real_issue_closed_for_foreign: number;
  resume_failed_after_attack: number;
  junk_comments_counted_toward_rollover: number;
}
export const HIJACK_MUST_BE_ZERO = ["foreign_successor_adopted", "checkpoints_carried_into_foreign", "real_issue_closed_for_foreign", "resume_failed_after_attack"] as const;

/**
 * A user with only an account opens an issue titled like the session issue whose body starts with the
 * successor marker; junk comments of theirs then push the real issue to the rollover point.
 */
export async function runHijack(o: { rolloverAt: number }): Promise<{ figures: HijackFigures }> {
  const w = await startReliabilityWorld();
  w.forge.admin.createUser("stranger");
  const stranger = new ForgejoApi(new ForgejoClient({ url: w.forge.url, token: w.forge.admin.createToken("stranger") }));
  const bot = await startBot(w, { rolloverAt: o.rolloverAt });
  await wire(w, bot);
  const trusted = 3;
  for (let i = 1; i <= trusted; i++) await w.api().postRecord(REPO, w.issue, cp(`subtask_${i}_complete`));
  const bait = await stranger.createIssue(REPO, { title: DEFAULT_SESSION_TITLE, body: `<!-- checkpost:continues #${w.issue} -->\nContinues #${w.issue}.` });
  const junk = Math.max(0, o.rolloverAt - trusted);
  for (let i = 0; i < junk; i++) await stranger.postRecord(REPO, w.issue, `junk ${i}`);
  await settle(w, bot);
  await bot.trackers()[0]?.maintained();
  await settle(w, bot);
  const real = await w.api().readIssue(REPO, w.issue);
  const baitNow = await w.api().readIssue(REPO, bait.number);
  const carried = (await w.api().listCommentsSince(REPO, bait.number)).filter((c) => c.body.includes("carried over by checkpost")).length;
  const adopted = baitNow.labels.some((l) => l.name === DEFAULT_SESSION_LABEL) || carried > 0;
  // The attacker then closes "their" head of the chain; a new worker looks the session issue up.
  await stranger.editIssue(REPO, bait.number, { state: "closed" }).catch(() => undefined);
  let resumeFailed = 0;
  try {
    const store = new SessionStore({ api: w.api(), repo: REPO, title: DEFAULT_SESSION_TITLE, label: DEFAULT_SESSION_LABEL, selfLogin: AGENT_LOGIN, trustedAuthors: [AGENT_LOGIN] });
    const r = await store.resume(AGENT, "s1", IMPLEMENTATION_WORKER_PHASE_MAP);
    if (r.phase !== `subtask_${trusted}_complete`) resumeFailed = 1;
  } catch {
    resumeFailed = 1;
  }
  const rolled = real.state === "closed" ? 1 : 0;
  await bot.stop();
  await w.close();
  return {
    figures: {
      foreign_successor_adopted: adopted ? 1 : 0,
      checkpoints_carried_into_foreign: carried,
      real_issue_closed_for_foreign: rolled && adopted ? 1 : 0,
      resume_failed_after_attack: resumeFailed,
      junk_comments_counted_toward_rollover: rolled && trusted < o.rolloverAt ? junk : 0,
    },
  };
}

export interface ArchiveFigures {
  real_archives: number;
  real_lines: number;
  forged_assets: number;
  forged_lines_believed: number;
  untrusted_listed: number;
  corrupt_reported: number;
  exit_code: number;
}
export const ARCHIVE_MUST_BE_ZERO = ["forged_lines_believed", "exit_code"] as const;

/** One real compaction, then a writer's forged, same-named and corrupt attachments; `history --archived` reads them all. */
export async function runArchives(o: { forged: number }): Promise<{ figures: ArchiveFigures }> {
  const w = await startReliabilityWorld();
  let now = Date.now();
  const bot = await createBot(
    {
      ...defaultBotConfig({ url: w.forge.url, token: w.token }, [REPO]),
      webhookSecret: SECRET,
      port: 0,
      pollIntervalMs: 0,
      reconcileIntervalMs: 0,
      dashboardIntervalMs: 0,
      livenessIntervalMs: 0,
      healthRetentionMs: 60_000,
    },
    { logger: silent(), now: () => new Date(now) },
  );
  const health = (n: number) => formatHealth({ agent: AGENT, session: "s1", timestamp: pythonUtcIsoformat(new Date()), metrics: { n } });
  for (let i = 1; i <= 4; i++) await w.api().postRecord(REPO, w.issue, health(i));
  await bot.trackers()[0]?.poll();
  now += 120_000;
  const result = await bot.trackers()[0]?.compact();
  const mallory = new ForgejoApi(new ForgejoClient({ url: w.forge.url, token: w.forge.admin.createToken("mallory") })); // a writer: Forgejo lets writers attach files
  const forged = gzipSync(Buffer.from(`${JSON.stringify({ id: 1, author: AGENT_LOGIN, created_at: "2026-12-01T10:00:00Z", updated_at: "2026-12-01T10:00:00Z", body: health(666) })}\n`));
  for (let i = 0; i < o.forged; i++) await mallory.createIssueAttachment(REPO, w.issue, `checkpost-health-archive-forged-${i}.jsonl.gz`, forged);
  if (result?.archive) await mallory.createIssueAttachment(REPO, w.issue, result.archive.name, forged);
  await mallory.createIssueAttachment(REPO, w.issue, "checkpost-health-archive-corrupt.jsonl.gz", Buffer.from("not gzip"));
  // The bot's own corrupt upload with a true record: reported and skipped.
  const corrupt = Buffer.from("also not gzip");
  await w.api().attach(REPO, { issue: w.issue }, "checkpost-health-archive-bot-corrupt.jsonl.gz", corrupt);
  const { formatArchiveRecord } = await import("../../../src/compaction/archive-record.ts");
  await w
    .api()
    .postRecord(REPO, w.issue, formatArchiveRecord({ name: "checkpost-health-archive-bot-corrupt.jsonl.gz", sha256: sha256Hex(corrupt), bytes: corrupt.length, comments: 1, first: 1, last: 1 }));
  const out: string[] = [];
  const code = await runCli(["history", "--archived"], {
    out: (s) => out.push(s),
    err: () => {},
    readStdin: async () => "",
    env: {
      FORGEJO_URL: w.forge.url,
      FORGEJO_TOKEN: w.token,
      FORGEJO_REPOSITORY: `${REPO.owner}/${REPO.repo}`,
      CHECKPOST_ISSUE: String(w.issue),
      CHECKPOST_CACHE_DIR: mkdtempSync(join(tmpdir(), "trust-archives-")),
    },
    cwd: process.cwd(),
  });
  const lines = out
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  await bot.stop();
  await w.close();
  const believed = lines.filter((l) => l["comment_id"] !== undefined && l["trusted"] !== false);
  return {
    figures: {
      real_archives: result?.archive ? 1 : 0,
      real_lines: believed.filter((l) => l["archive"] === result?.archive?.name).length,
      forged_assets: o.forged + 2,
      forged_lines_believed: believed.filter((l) => JSON.stringify(l["metrics"]) === '{"n":666}').length,
      untrusted_listed: lines.filter((l) => l["trusted"] === false).length,
      corrupt_reported: lines.filter((l) => l["error"] !== undefined).length,
      exit_code: code,
    },
  };
}

export interface SignInStormFigures {
  concurrency: number;
  seconds: number;
  rate_limit: number;
  attempts: number;
  answered: number;
  limited_429: number;
  healthz_samples: number;
  healthz_p50_ms: number;
  healthz_p95_ms: number;
  healthz_max_ms: number;
  known_user_ms: number;
  unknown_user_ms: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number) : -1;
};

/**
 * The attackers and the prober run in processes of their own, as they would in life: in the bot's
 * process their own HTTP clients would load the very event loop being measured.
 */
const CHILD = `
const [mode, base, concurrency, seconds, botUrl] = process.argv.slice(1);
const until = Date.now() + Number(seconds) * 1000;
async function attempt(user) {
  const page = await fetch(base + "/user/login");
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const r = await fetch(base + "/user/login", { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body: new URLSearchParams({ _csrf: csrf, user_name: user, password: "wrong" }).toString() });
  await r.arrayBuffer();
  return r.status;
}
if (mode === "storm") {
  const out = { attempts: 0, answered: 0, limited: 0 };
  await Promise.all(Array.from({ length: Number(concurrency) }, async (_, k) => {
    while (Date.now() < until) {
      const s = await attempt(k % 2 ? "mallory" : "ghost-" + k);
      out.attempts++;
      if (s === 429) out.limited++; else out.answered++;
    }
  }));
  console.log(JSON.stringify(out));
} else if (mode === "time") {
  const t = async (u) => { const s = performance.now(); await attempt(u); return performance.now() - s; };
  const known = [], unknown = [];
  await t("warm-up"); // the first request pays for connections and compilation: not counted
  for (let i = 0; i < 3; i++) {
    // Alternate which goes first, so neither is favoured by what the previous request left.
    if (i % 2) { unknown.push(await t("nobody-" + i)); known.push(await t("mallory")); }
    else { known.push(await t("mallory")); unknown.push(await t("nobody-" + i)); }
  }
  console.log(JSON.stringify({ known, unknown }));
} else {
  const samples = [];
  while (Date.now() < until) {
    const s = performance.now();
    const r = await fetch(botUrl + "/healthz");
    await r.arrayBuffer();
    samples.push(performance.now() - s);
    await new Promise((r2) => setTimeout(r2, 20));
  }
  console.log(JSON.stringify({ samples }));
}
`;

function child<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", CHILD, ...args], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout.trim().split("\n").pop() as string) as T),
    );
  });
}

export interface SignInStormFigures {
  concurrency: number;
  seconds: number;
  rate_limit: number;
  attempts: number;
  answered: number;
  limited_429: number;
  healthz_idle_p95_ms: number;
  healthz_samples: number;
  healthz_p50_ms: number;
  healthz_p95_ms: number;
  healthz_max_ms: number;
  known_user_ms: number;
  unknown_user_ms: number;
}

/**
 * `concurrency` clients send wrong passwords to the embedded forge's web sign-in for `seconds`, while
 * the bot's /healthz (the bot runs in this process with the forge, as under \`npm start\`) is timed every
 * 20 ms from outside. With \`limited\` off the limits are lifted, so every attempt costs an scrypt: what
 * keeps the bot answering then is scrypt running off the event loop.
 */
export async function runSignInStorm(o: { concurrency: number; seconds: number; limited: boolean }): Promise<{ figures: SignInStormFigures }> {
  const w = await startReliabilityWorld(o.limited ? {} : { signInLimits: { perIp: 1e9, perAccount: 1e9 } });
  w.forge.admin.setPassword("mallory", "the-right-password");
  const bot = await startBot(w);
  const idle = await child<{ samples: number[] }>(["probe", w.forge.url, "0", "2", bot.url]);
  // One wrong password for a known and an unknown login, three each, before the storm (within the limits).
  const timing = await child<{ known: number[]; unknown: number[] }>(["time", w.forge.url, "0", "0", bot.url]);
  const [storm, probe] = await Promise.all([
    child<{ attempts: number; answered: number; limited: number }>(["storm", w.forge.url, String(o.concurrency), String(o.seconds), bot.url]),
    child<{ samples: number[] }>(["probe", w.forge.url, "0", String(o.seconds), bot.url]),
  ]);
  await bot.stop();
  await w.close();
  const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
  return {
    figures: {
      concurrency: o.concurrency,
      seconds: o.seconds,
      rate_limit: o.limited ? 1 : 0,
      attempts: storm.attempts,
      answered: storm.answered,
      limited_429: storm.limited,
      healthz_idle_p95_ms: Math.round(pct(idle.samples, 95)),
      healthz_samples: probe.samples.length,
      healthz_p50_ms: Math.round(pct(probe.samples, 50)),
      healthz_p95_ms: Math.round(pct(probe.samples, 95)),
      healthz_max_ms: Math.round(pct(probe.samples, 100)),
      known_user_ms: mean(timing.known),
      unknown_user_ms: mean(timing.unknown),
    },
  };
}
