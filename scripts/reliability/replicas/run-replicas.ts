import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { defaultBotConfig } from "../../../src/config/bot-env.ts";
import type { BotConfig } from "../../../src/bot/bot-config.ts";
import { startForge } from "../../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import { PostgresProjectionStore } from "../../../src/bot-state/postgres/postgres-projection-store.ts";
import type { WriteLogRow } from "../../../src/bot-state/postgres/postgres-projection-store.ts";
import { createProjection } from "../../../src/projection/index.ts";
import type { AgentEntry } from "../../../src/projection/index.ts";
import { issueKey } from "../../../src/bot-state/index.ts";
import { formatCheckpoint, formatHealth, pythonUtcIsoformat } from "../../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, toCommentRecord } from "../../../src/session-client/index.ts";
import { RoundRobinDispatcher } from "../../../test/helpers/round-robin-dispatcher.ts";
import { startPostgres } from "../../../test/helpers/start-postgres.ts";
import { mulberry32 } from "../../../src/embedded-forge/prng.ts";

export interface ReplicaChaosOptions {
  /** Comments posted (each one webhook delivery, before duplicates). */
  comments: number;
  /** Leader SIGKILLs, spread over the run. */
  kills: number;
  replicas: number;
  seed: number;
  leaseTtlMs: number;
  duplicateRate: number;
  maxDelayMs: number;
  log?: (line: string) => void;
}

export interface ReplicaChaosFigures {
  deliveries: number;
  duplicates_sent: number;
  redelivered_after_failure: number;
  kills: number;
  lost: number;
  applied_twice: number;
  replicas_differing_from_rebuild: number;
  overlapping_dashboard_writes: number;
  dashboard_writes: number;
  distinct_writer_tokens: number;
  takeover_p50_ms: number;
  takeover_p99_ms: number;
  takeover_max_ms: number;
}

export const REPLICAS_MUST_BE_ZERO = ["lost", "applied_twice", "replicas_differing_from_rebuild", "overlapping_dashboard_writes"] as const;

const SECRET = "chaos-webhook-secret";
const API_TOKEN = "chaos-api-token-0123456789abcdef";
const REPO = { owner: "agent", repo: "work" };

const percentile = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};

/** What a person compares: each agent+session's resume point and counts (liveness is time-dependent, left out). */
const comparable = (entries: AgentEntry[]) =>
  JSON.stringify(
    entries.map((e) => ({
      a: e.agent,
      s: e.session,
      latest: e.latest?.commentId ?? null,
      phase: e.latest?.phase ?? null,
      counts: e.counts,
      health: e.health?.commentId ?? null,
      maxEpoch: e.maxEpoch,
    })),
  );

interface Replica {
  id: string;
  child: ChildProcess;
  url: string;
  alive: boolean;
  killedAt?: number;
}

/**
 * The replica chaos suite: N bot processes on one PostgreSQL behind a
 * round-robin dispatcher that delivers out of order and twice; the embedded
 * Forgejo's webhook goes to the dispatcher. While agents post, the replica
 * leading the session issue is SIGKILLed `kills` times (and a fresh replica
 * started each time). Then: nothing lost, nothing applied twice, every
 * replica's projection equal to a rebuild from a full read, no two dashboard
 * writes under different fencing tokens overlapping in time, takeover times.
 */
export async function runReplicaChaos(o: ReplicaChaosOptions): Promise<{ figures: ReplicaChaosFigures; problems: string[]; elapsedMs: number }> {
  const started = Date.now();
  const log = (line: string) => o.log?.(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);
  const random = mulberry32(o.seed);
  const problems: string[] = [];
  const pg = await startPostgres();
  const dbUrl = await pg.createDatabase("chaos");
  const forge = await startForge({ port: 0 });
  const replicas: Replica[] = [];
  let observer: PostgresProjectionStore | null = null;
  let dispatcher: RoundRobinDispatcher | null = null;
  try {
    const a = forge.admin;
    for (const u of ["checkpost-bot", "agent"]) a.createUser(u);
    const botToken = a.createToken("checkpost-bot");
    const agentToken = a.createToken("agent");
    a.createRepo("agent", "work");
    a.addCollaborator("agent", "work", "checkpost-bot", "write");
    a.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    const issue = a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "Chaos run.\n", labels: [DEFAULT_SESSION_LABEL] }).number;
    const key = issueKey(REPO, issue);
    const config: BotConfig = {
      ...defaultBotConfig({ url: forge.url, token: botToken }, [REPO]),
      trustedAuthors: ["agent"],
      webhookSecret: SECRET,
      apiTokens: [API_TOKEN],
      port: 0,
      pollIntervalMs: 0,
      reconcileIntervalMs: 0,
      livenessIntervalMs: 0,
      dashboardIntervalMs: 100,
      leaseTtlMs: o.leaseTtlMs,
      retries: 4,
      timeoutMs: 10_000,
    };
    dispatcher = new RoundRobinDispatcher({
      backends: () => replicas.filter((r) => r.alive).map((r) => `${r.url}${config.webhookPath}`),
      mode: "queue",
      duplicateRate: o.duplicateRate,
      maxDelayMs: o.maxDelayMs,
      random,
    });
    await dispatcher.start();
    const agentApi = new ForgejoApi(new ForgejoClient({ url: forge.url, token: agentToken, retries: 8, minRetryDelayMs: 5, maxRetryDelayMs: 200 }));
    await agentApi.ensureWebhook(REPO, { url: dispatcher.url, secret: SECRET, events: ["issues", "issue_comment"] });

    let nextReplica = 1;
    // One bundle for every replica process: each then starts in well under a second instead of transpiling src/ again.
    const script = join(process.cwd(), ".data", "chaos", "replica-process.mjs");
    await build({
      entryPoints: [fileURLToPath(new URL("./replica-process.ts", import.meta.url))],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      outfile: script,
      logLevel: "warning",
    });
    const spawnReplica = async (): Promise<Replica> => {
      const id = `replica-${nextReplica++}`;
      const cfg: BotConfig = { ...config, database: { url: dbUrl, feedIntervalMs: 100, replicaId: id } };
      const child = fork(script, [], { execArgv: [], env: { ...process.env, CHAOS_BOT_CONFIG: JSON.stringify(cfg) }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
      const url = await new Promise<string>((resolve, reject) => {
        child.once("message", (m: { url: string }) => resolve(m.url));
        child.once("exit", (code) => reject(new Error(`${id} exited (${code}) before it was up`)));
      });
      const r: Replica = { id, child, url, alive: true };
      child.once("exit", () => (r.alive = false));
      replicas.push(r);
      return r;
    };
    for (let i = 0; i < o.replicas; i++) await spawnReplica();
    observer = await PostgresProjectionStore.open({ url: dbUrl });
    log(`replicas up: ${replicas.map((r) => r.id).join(", ")}`);

    // Agents post: 20 agents, checkpoints with seq and health signals, 4 at a time.
    const posted: number[] = [];
    let n = 0;
    const seqs = new Map<string, number>();
    const post = async () => {
      while (n < o.comments) {
        const i = n++;
        const agent = `agent-${i % 20}`;
        const body =
          i % 3 === 2
            ? formatHealth({ agent, session: "s1", timestamp: pythonUtcIsoformat(new Date()), metrics: { i } })
            : (() => {
                const seq = (seqs.get(agent) ?? 0) + 1;
                seqs.set(agent, seq);
                return formatCheckpoint({ agent, session: "s1", phase: `step-${seq}`, seq, timestamp: pythonUtcIsoformat(new Date()), data: { i } });
              })();
        posted.push((await agentApi.createComment(REPO, issue, body)).id);
      }
    };
    const load = Promise.all([post(), post(), post(), post()]);

    // The killer: wait for a leader, let it work a little, SIGKILL it, time the takeover, start a fresh replica.
    const takeovers: number[] = [];
    const killTimes = new Map<string, number>();
    let kills = 0;
    const leaderNow = async () => {
      const l = await observer!.currentLease(key);
      return l && l.live ? l : null;
    };
    const killer = (async () => {
      while (kills < o.kills) {
        const progress = n / o.comments;
        // Spread the kills over the load; after it, keep killing until the count is reached.
        if (progress < 1 && progress < (kills + 1) / (o.kills + 1)) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        const lease = await leaderNow();
        const victim = lease && replicas.find((r) => r.alive && lease.holder.startsWith(`${r.id}:`));
        if (!lease || !victim) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        await new Promise((r) => setTimeout(r, 200 + Math.floor(random() * 800)));
        if (!victim.alive) continue;
        const current = await leaderNow();
        if (!current || current.token !== lease.token) continue; // it lost the lease meanwhile
        const killedAt = Date.now();
        victim.child.kill("SIGKILL");
        victim.alive = false;
        victim.killedAt = killedAt;
        killTimes.set(victim.id, killedAt);
        kills++;
        const replacement = spawnReplica();
        // Takeover: the first live lease with a higher token.
        for (;;) {
          const l = await leaderNow();
          if (l && l.token > lease.token) {
            const row = await observer!.currentLease(key);
            takeovers.push(Date.now() - killedAt);
            log(`kill ${kills}: ${victim.id} (token ${lease.token}) → ${row?.holder} (token ${l.token}) in ${takeovers.at(-1)} ms`);
            break;
          }
          await new Promise((r) => setTimeout(r, 10));
        }
        await replacement;
      }
    })();
    await Promise.all([load, killer]);
    log(`posted ${posted.length} comments, ${kills} kills; waiting for every delivery to be acknowledged`);
    await forge.admin.idle();
    await dispatcher.idle();

    // Let every replica fold the feed and the leader write the final dashboard.
    await new Promise((r) => setTimeout(r, 1500));
    const all = await observer.comments(key);
    const stored = new Set(all.filter((c) => !c.deleted).map((c) => c.id));
    const lost = posted.filter((id) => !stored.has(id));
    for (const id of lost.slice(0, 5)) problems.push(`comment ${id} was posted but is not in the store`);
    const applied = await observer.appliedCounts(key);
    const twice = posted.filter((id) => (applied.get(id) ?? 0) > 1);
    for (const id of twice.slice(0, 5)) problems.push(`comment ${id} was applied ${applied.get(id)} times`);

    // A rebuild from a full read of Forgejo, against every live replica's answer.
    const rebuilt = createProjection({ trustedAuthors: new Set(["agent", "checkpost-bot"]) });
    rebuilt.applyAll((await agentApi.listComments(REPO, issue)).map((c) => ({ type: "upsert" as const, comment: toCommentRecord(c) })));
    const want = comparable(rebuilt.snapshot().entries);
    let differing = 0;
    for (const r of replicas.filter((x) => x.alive)) {
      let got = "";
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          const res = await fetch(`${r.url}/api/agents`, { headers: { authorization: `Bearer ${API_TOKEN}`, connection: "close" } });
          got = comparable(((await res.json()) as { agents: AgentEntry[] }).agents);
        } catch (e) {
          // A keep-alive socket the replica closed as it was reused: ask again.
          got = `unreachable: ${e instanceof Error ? e.message : String(e)}`;
        }
        if (got === want) break;
        await new Promise((res2) => setTimeout(res2, 100));
      }
      if (got !== want) {
        differing++;
        problems.push(`${r.id}'s projection differs from a rebuild`);
      }
    }

    // Dashboard writes under different tokens must never overlap in time. A write cut off by a
    // SIGKILL has no end: it is counted as lasting until its writer was killed.
    const writes = (await observer.writeLog(key)).filter((w) => w.kind === "dashboard");
    const end = (w: WriteLogRow) => w.endedMs ?? killTimes.get(w.holder.split(":")[0] ?? "") ?? Number.POSITIVE_INFINITY;
    let overlaps = 0;
    for (let i = 0; i < writes.length; i++)
      for (let j = i + 1; j < writes.length; j++) {
        const x = writes[i] as WriteLogRow;
        const y = writes[j] as WriteLogRow;
        if (y.startedMs >= end(x)) break; // sorted by start: no later one overlaps x either
        if (x.token !== y.token) {
          overlaps++;
          if (overlaps <= 5) problems.push(`dashboard writes under tokens ${x.token} and ${y.token} overlap`);
        }
      }
    const figures: ReplicaChaosFigures = {
      deliveries: dispatcher.stats.received,
      duplicates_sent: dispatcher.stats.duplicates,
      redelivered_after_failure: dispatcher.stats.retried,
      kills,
      lost: lost.length,
      applied_twice: twice.length,
      replicas_differing_from_rebuild: differing,
      overlapping_dashboard_writes: overlaps,
      dashboard_writes: writes.length,
      distinct_writer_tokens: new Set(writes.map((w) => w.token)).size,
      takeover_p50_ms: percentile(takeovers, 50),
      takeover_p99_ms: percentile(takeovers, 99),
      takeover_max_ms: Math.max(0, ...takeovers),
    };
    return { figures, problems, elapsedMs: Date.now() - started };
  } finally {
    for (const r of replicas) if (r.alive) r.child.kill("SIGKILL");
    await dispatcher?.close();
    await observer?.close();
    await forge.close();
    await pg.stop();
  }
}
