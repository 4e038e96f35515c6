/**
 * Webhook ingest driver: comments are bulk-inserted into the forge first (so a
 * full re-read later sees them), then their `issue_comment` `created`
 * deliveries are signed and POSTed to the bot, shaped and signed as Forgejo
 * does (JSON indented by two spaces, HMAC-SHA256 over the exact bytes,
 * X-Forgejo-*, X-Gitea-*, X-Gogs-*, X-Hub-Signature(-256) and X-GitHub-* headers),
 * over keep-alive connections with bounded concurrency.
 */
import { createHmac, randomUUID } from "node:crypto";
import type { ForgeServer } from "../src/embedded-forge/index.ts";
import { goJsonIndent } from "../src/embedded-forge/index.ts";
import { AGENTS, AGENT_LOGIN, HUMAN_LOGIN, createGenerator } from "./data.ts";
import { httpRequest, keepAliveAgent, percentile } from "./http.ts";

type Json = Record<string, unknown>;

export interface IngestOptions {
  forge: ForgeServer;
  owner: string;
  repo: string;
  issue: number;
  botUrl: string;
  webhookPath: string;
  secret: string;
  durationMs: number;
  concurrency: number;
  seed: number;
  /**
   * true (default): after the window, send what is still queued, so every comment inserted is delivered
   * (the scenarios count lost events). false: stop at the window's end (requests in flight complete);
   * the store comparison, which counts none, then takes the window and not a 26,000-delivery drain.
   */
  drain?: boolean;
}

export interface IngestResult {
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  inserted: number;
}

async function getJson(url: string): Promise<Json> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} → ${res.status}`);
  return (await res.json()) as Json;
}

const rfc3339 = (sec: number) => new Date(sec * 1000).toISOString().replace(".000Z", "Z");

export async function runIngest(o: IngestOptions): Promise<IngestResult> {
  const { forge } = o;
  const api = forge.apiUrl;
  // Templates from the forge itself (public views, as Forgejo puts them in payloads).
  const saved = forge.admin.getFaults();
  forge.admin.setFaults({});
  const repository = await getJson(`${api}/repos/${o.owner}/${o.repo}`);
  const issue = await getJson(`${api}/repos/${o.owner}/${o.repo}/issues/${o.issue}`);
  const users: Record<string, Json> = {};
  forge.admin.setFaults(saved);

  const g = createGenerator(o.seed);
  const agent = keepAliveAgent(o.concurrency);
  const url = `${o.botUrl}${o.webhookPath}`;
  const queue: { body: Buffer; headers: Record<string, string> }[] = [];
  let inserted = 0;

  const refill = async (count: number) => {
    const nowMs = Date.now();
    const batch = Array.from({ length: count }, () => {
      const r = g.rnd();
      const who = g.pick(AGENTS);
      if (r < 0.6) return { login: AGENT_LOGIN, body: g.checkpoint(who, nowMs).body, createdAt: nowMs };
      if (r < 0.9) return { login: AGENT_LOGIN, body: g.health(who, nowMs), createdAt: nowMs };
      return { login: HUMAN_LOGIN, body: g.chatter(), createdAt: nowMs };
    });
    const { firstId, lastId } = forge.admin.bulkComments(o.owner, o.repo, o.issue, batch);
    if (lastId - firstId + 1 !== batch.length) throw new Error("bulkComments ids are not contiguous");
    inserted += batch.length;
    for (const login of new Set(batch.map((b) => b.login))) {
      if (!users[login]) {
        const c = await getJson(`${api}/repos/${o.owner}/${o.repo}/issues/comments/${firstId + batch.findIndex((b) => b.login === login)}`);
        users[login] = c["user"] as Json;
      }
    }
    const at = rfc3339(Math.floor(nowMs / 1000));
    const issueUrl = String(issue["html_url"]);
    batch.forEach((b, i) => {
      const id = firstId + i;
      const payload = {
        action: "created",
        issue: { ...issue, comments: Number(issue["comments"] ?? 0) + inserted, updated_at: at },
        comment: {
          id,
          html_url: `${issueUrl}#issuecomment-${id}`,
          pull_request_url: "",
          issue_url: issueUrl,
          user: users[b.login],
          original_author: "",
          original_author_id: 0,
          body: b.body,
          assets: [],
          created_at: at,
          updated_at: at,
        },
        repository,
        sender: users[b.login],
        is_pull: false,
      };
      const body = Buffer.from(goJsonIndent(payload));
      const sig256 = createHmac("sha256", o.secret).update(body).digest("hex");
      const sig1 = createHmac("sha1", o.secret).update(body).digest("hex");
      const uuid = randomUUID();
      const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(body.length), "user-agent": "Go-http-client/1.1" };
      for (const p of ["X-Forgejo", "X-Gitea", "X-Gogs"]) {
        headers[`${p}-Delivery`] = uuid;
        headers[`${p}-Event`] = "issue_comment";
        headers[`${p}-Event-Type`] = "issue_comment";
        headers[`${p}-Signature`] = sig256;
      }
      headers["X-Hub-Signature"] = `sha1=${sig1}`;
      headers["X-Hub-Signature-256"] = `sha256=${sig256}`;
      headers["X-GitHub-Delivery"] = uuid;
      headers["X-GitHub-Event"] = "issue_comment";
      headers["X-GitHub-Event-Type"] = "issue_comment";
      queue.push({ body, headers });
    });
  };

  const latencies: number[] = [];
  let non2xx = 0;
  let sent = 0;
  // Generate, sign and insert the deliveries before the clock starts, so the timed window
  // measures the bot and not this load generator (which shares the machine's two cores).
  const prefill = Math.max(2000, Math.ceil((o.durationMs / 1000) * 2600));
  for (let left = prefill; left > 0; left -= 2000) await refill(Math.min(2000, left));
  const t0 = performance.now();
  const deadline = t0 + o.durationMs;
  let refilling: Promise<void> | null = null;
  const worker = async () => {
    for (;;) {
      if (queue.length < 300 && !refilling && performance.now() < deadline) refilling = refill(100).finally(() => (refilling = null));
      if (o.drain === false && performance.now() >= deadline) return;
      const d = queue.shift();
      if (!d) {
        if (performance.now() >= deadline) return;
        await refilling;
        continue;
      }
      const r = await httpRequest(url, { method: "POST", headers: d.headers, body: d.body, agent });
      sent++;
      latencies.push(r.ms);
      if (r.status < 200 || r.status >= 300) non2xx++;
      if (performance.now() >= deadline && queue.length === 0) return;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return {
    deliveries: sent,
    seconds,
    perSecond: sent / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: percentile(latencies, 100),
    non2xx,
    inserted,
  };
}
