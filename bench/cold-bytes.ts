/**
 * What the bytes of one cold resume with the index are made of: each response of the bench's cold-resume
 * scenario (a machine that resumed before, so it knows the bot's index comment), split into the index
 * comment's body, the other comments' bodies, and the JSON around them (ids, users, URLs, dates).
 * Response headers are not in the bench's byte figure (the embedded forge counts bodies), so not here.
 * The steps before the measurement are the main scenario's: saves, the bot's first read and its write.
 *
 *   node --import tsx bench/cold-bytes.ts [--n 10000] [--saves 20] [--latency 20] [--dump INDEX_COMMENT_FILE] [--list]
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ForgejoApi, ForgejoClient } from "../src/forgejo-client/index.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP } from "../src/protocol/index.ts";
import { SessionStore } from "../src/session-client/index.ts";
import type { ResumeIndexRef } from "../src/dashboard/index.ts";
import { RESUME_INDEX_COMMENT_HEAD } from "../src/bot/upkeep/dashboard-writer.ts";
import { benchBotConfig, forkBot } from "./bot-harness.ts";
import { AGENT_LOGIN, BOT_LOGIN } from "./data.ts";
import { createWorld, savesForBench } from "./scenario.ts";

const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const n = Number(arg("--n") ?? 10000);
const saveReps = Number(arg("--saves") ?? 20);
// The bench's forge: +20 ms a request and 10 MiB/s (the saves then span seconds, as in the bench).
const latencyMs = Number(arg("--latency") ?? 20);
const dumpFile = arg("--dump");
const list = argv.includes("--list");

interface Seen {
  path: string;
  bytes: number;
  comments: number;
  indexBody: number;
  otherBodies: number;
  /** id, author and times of each other comment (--list). */
  others: string[];
}

const w = await createWorld(n, { latencyMs, bandwidthBytesPerSec: latencyMs > 0 ? 10 * 1024 * 1024 : 0 });
const dir = mkdtempSync(join(tmpdir(), "checkpost-cold-bytes-"));
const secret = randomBytes(16).toString("hex");
const bot = await forkBot();
try {
  await savesForBench(w, saveReps);
  const config = { ...benchBotConfig({ forgeUrl: w.forge.url, token: w.botToken, owner: "agent", repo: "work", secret, trusted: [AGENT_LOGIN] }), storeFile: join(dir, "projection.sqlite") };
  await bot.call("start", { config });
  await bot.call("flush");
  const refs = new Map<number, ResumeIndexRef>();
  const resumeOnce = async (agent: string, session: string): Promise<{ seen: Seen[]; via: string }> => {
    const seen: Seen[] = [];
    const fetchSpy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const text = await res.text();
      const path = new URL(typeof input === "string" || input instanceof URL ? input : input.url).pathname;
      const row: Seen = { path, bytes: Buffer.byteLength(text), comments: 0, indexBody: 0, otherBodies: 0, others: [] };
      const parsed: unknown = res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null;
      for (const c of Array.isArray(parsed) ? parsed : parsed && typeof parsed === "object" && "body" in parsed ? [parsed] : []) {
        const body = String((c as { body?: unknown }).body ?? "");
        // The body's bytes as the JSON carries them (escaped), so the three parts add up to the response.
        const b = Buffer.byteLength(JSON.stringify(body)) - 2;
        row.comments++;
        if ((c as { user?: { login?: string } }).user?.login === BOT_LOGIN && body.startsWith(RESUME_INDEX_COMMENT_HEAD)) {
          row.indexBody += b;
          if (dumpFile) writeFileSync(dumpFile, body);
        } else {
          row.otherBodies += b;
          const k = c as { id?: number; user?: { login?: string }; created_at?: string; updated_at?: string };
          row.others.push(`${k.id} ${k.user?.login} created ${k.created_at} updated ${k.updated_at}`);
        }
      }
      seen.push(row);
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
    const api = new ForgejoApi(new ForgejoClient({ url: w.forge.url, token: w.agentToken, timeoutMs: 120_000, fetch: fetchSpy }));
    const store = new SessionStore({
      api,
      repo: { owner: "agent", repo: "work" },
      issue: w.issue,
      trustedAuthors: [BOT_LOGIN],
      selfLogin: AGENT_LOGIN,
      selfLoginRemembered: true,
      indexRefs: { get: (i: number) => refs.get(i), set: (i: number, r: ResumeIndexRef) => void refs.set(i, r) },
    });
    const value = await store.resume(agent, session, IMPLEMENTATION_WORKER_PHASE_MAP);
    return { seen, via: (value as { via?: string }).via ?? "?" };
  };
  const probes = w.dataset.probes;
  await resumeOnce(probes[0]?.agent ?? "", probes[0]?.session ?? ""); // the machine resumed before: it knows the index comment
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  for (const p of probes) {
    const { seen, via } = await resumeOnce(p.agent, p.session);
    const total = seen.reduce((s, r) => s + r.bytes, 0);
    console.log(`probe ${p.kind} (${via}): ${seen.length} requests, ${kib(total)}`);
    for (const r of seen) {
      console.log(
        `  GET ${r.path}: ${kib(r.bytes)}, ${r.comments} comments: index comment body ${kib(r.indexBody)}, other bodies ${kib(r.otherBodies)}, JSON around them ${kib(r.bytes - r.indexBody - r.otherBodies)}`,
      );
      if (list) for (const o of r.others) console.log(`    ${o}`);
    }
  }
} finally {
  bot.kill();
  await w.forge.close();
  rmSync(dir, { recursive: true, force: true });
}
