/**
 * The readers the mixed-fleet suite compares with its model, each reduced to one answer per
 * agent+session: which save it resumes from (the `n` in the checkpoint's data), the directive kind
 * and, where the reader has one, the resume point. Adapters read only the fields they need and
 * ignore any others, so new fields (freshness, as-of, liveness) do not break them.
 */
import { runCli } from "../../../src/app/cli.ts";
import { RESUME_INDEX_COMMENT_HEAD } from "../../../src/bot/upkeep/dashboard-writer.ts";
import { extractResumeIndex, extractResumeIndexFromComment, extractResumeIndexRef } from "../../../src/dashboard/index.ts";
import type { ResumeIndex } from "../../../src/dashboard/index.ts";
import type { IssueHost } from "../../../src/ports/issue-host.ts";
import { parseComment } from "../../../src/protocol/index.ts";
import type { PhaseMap } from "../../../src/protocol/index.ts";
import type { SessionStore } from "../../../src/session-client/index.ts";
import type { SeedProcess } from "./seed-process.ts";
import { API_TOKEN, BOT_LOGIN, REPO } from "./world.ts";

export interface ReaderAnswer {
  n: number | null;
  directive: string | null;
  /** Omitted when the reader has no resume point to compare (see the adapters). */
  resumePoint?: string | null;
  /** The reader failed for this agent (HTTP error, exit code, unreadable output). */
  error?: string;
}

export interface AgentRef {
  agent: string;
  session: string;
  /** The agent's phase map, when it has one. */
  map: Readonly<PhaseMap> | null;
}

type Json = unknown;
const obj = (v: Json): Record<string, Json> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, Json>) : {});
/** `n` of a state/data object, null when absent. */
export const nOf = (data: Json): number | null => {
  const n = obj(data)["n"];
  return typeof n === "number" ? n : null;
};
const kindOf = (d: Json): string | null => {
  const k = obj(d)["kind"];
  return typeof k === "string" ? k : null;
};

/** An answer in the shape of `/api/resume`, `checkpost resume` and `SessionStore.resume`. */
function fromResumeShape(body: Json): ReaderAnswer {
  const b = obj(body);
  const hasCheckpoint = b["checkpoint"] !== null && b["checkpoint"] !== undefined;
  return {
    n: hasCheckpoint ? nOf(b["state"]) : null,
    directive: kindOf(b["directive"]),
    resumePoint: typeof b["resume_point"] === "string" ? (b["resume_point"] as string) : null,
  };
}

/** `GET /api/resume?agent&session` as a user calls it (no issue: the bot picks). */
export async function apiResume(botUrl: string, a: AgentRef): Promise<ReaderAnswer> {
  const q = new URLSearchParams({ agent: a.agent, session: a.session });
  try {
    const r = await fetch(`${botUrl}/api/resume?${q}`, { headers: { authorization: `Bearer ${API_TOKEN}` }, signal: AbortSignal.timeout(10_000) });
    const body = (await r.json()) as Json;
    if (r.status !== 200) return { n: null, directive: null, error: `HTTP ${r.status} ${JSON.stringify(obj(body)["error"] ?? "")}` };
    return fromResumeShape(body);
  } catch (e) {
    return { n: null, directive: null, error: e instanceof Error ? e.message : String(e) };
  }
}

export interface CliEnv {
  url: string;
  token: string;
  cacheDir: string;
  trusted: string[];
}

/** Run the CLI in this process (the same code as the `checkpost` binary; each reader has its own cache folder). */
export async function cliInProcess(args: string[], e: CliEnv): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readStdin: async () => "",
    env: {
      FORGEJO_URL: e.url,
      FORGEJO_TOKEN: e.token,
      FORGEJO_REPOSITORY: `${REPO.owner}/${REPO.repo}`,
      CHECKPOST_TRUSTED_AUTHORS: e.trusted.join(","),
      CHECKPOST_CACHE_DIR: e.cacheDir,
      CHECKPOST_CODE_CACHE: "0",
      LOG_LEVEL: "silent",
    },
    cwd: process.cwd(),
  });
  return { code, out: out.join(""), err: err.join("") };
}

/** `checkpost resume --agent A --session S`, cold, with the reader's own cache folder. */
export async function cliResume(e: CliEnv, a: AgentRef): Promise<ReaderAnswer> {
  const r = await cliInProcess(["resume", "--agent", a.agent, "--session", a.session], e);
  if (r.code !== 0) return { n: null, directive: null, error: `exit ${r.code}: ${r.err.trim().slice(0, 200)}` };
  try {
    return fromResumeShape(JSON.parse(r.out) as Json);
  } catch {
    return { n: null, directive: null, error: `unreadable output: ${r.out.slice(0, 200)}` };
  }
}

/** The library's resume through a long-lived handle (a supervisor process), with the agent's map. */
export async function libResume(store: SessionStore, a: AgentRef): Promise<ReaderAnswer> {
  try {
    const r = await store.resume(a.agent, a.session, a.map ?? {});
    const ans = fromResumeShape(r);
    // The library takes the map as an argument: with none given, "start" is the seed's rule, not a reader's choice.
    if (!a.map) delete ans.resumePoint;
    return ans;
  } catch (e) {
    return { n: null, directive: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** `checkpost status --json`: one read for every agent. */
export async function statusJson(e: CliEnv, agents: AgentRef[]): Promise<ReaderAnswer[]> {
  const r = await cliInProcess(["status", "--json"], e);
  const fail = (error: string) => agents.map(() => ({ n: null, directive: null, error }));
  // Exit 3 is `status` saying something needs attention (a paused agent, a stale one): an answer, not a failure.
  if (r.code !== 0 && r.code !== 3) return fail(`exit ${r.code}: ${r.err.trim().slice(0, 200)}`);
  let snap: Json;
  try {
    snap = JSON.parse(r.out) as Json;
  } catch {
    return fail(`unreadable output: ${r.out.slice(0, 200)}`);
  }
  const entries = Array.isArray(obj(snap)["entries"]) ? (obj(snap)["entries"] as Json[]) : [];
  return agents.map((a) => {
    const e = entries.map(obj).find((x) => x["agent"] === a.agent && x["session"] === a.session);
    if (!e) return { n: null, directive: null };
    const latest = obj(e["latest"]);
    // A reader that reports its directive says so; else the entry's controls, read as the dashboard does.
    const resume = obj(e["resume"]);
    const directive = "directive" in e ? kindOf(e["directive"]) : "directive" in resume ? kindOf(resume["directive"]) : directiveFromControl(e["control"]);
    return { n: e["latest"] ? nOf(latest["data"]) : null, directive };
  });
}

/** docs/dashboard.md: pause first, then a pending rewind or release. */
function directiveFromControl(c: Json): string | null {
  const x = obj(c);
  if (x["paused"]) return "pause";
  const p = obj(x["pending"]);
  const action = p["action"];
  return action === "rewind" ? "rewind" : action === "release" ? "release" : null;
}

/**
 * The issue's resume index as docs/dashboard.md says to read it alone: the body's (inline, or in
 * the comment its pointer names), or the bot's index comment when that one is newer (the bot keeps
 * the index there while a person's edit holds the body). `indexComments`: the bot's index comments
 * (not events a reader waits for).
 */
export async function currentIndex(
  api: IssueHost,
  issue: number,
  body?: string,
): Promise<{ index: ResumeIndex | null; indexComments: Set<number>; maxId: number; comments: Awaited<ReturnType<IssueHost["listCommentsSince"]>> }> {
  const text = body ?? (await api.readIssue(REPO, issue)).body ?? "";
  const comments = await api.listCommentsSince(REPO, issue);
  const isIndexComment = (c: (typeof comments)[number]) => c.author === BOT_LOGIN && c.body.startsWith(RESUME_INDEX_COMMENT_HEAD);
  const indexComments = new Set(comments.filter(isIndexComment).map((c) => c.id));
  const ref = extractResumeIndexRef(text);
  const candidates = [
    extractResumeIndex(text),
    ...comments.filter((c) => indexComments.has(c.id) || c.id === ref?.comment).map((c) => (isIndexComment(c) ? extractResumeIndexFromComment(c.body) : null)),
  ];
  let index: ResumeIndex | null = null;
  for (const x of candidates) if (x && (!index || x.watermark > index.watermark)) index = x;
  const maxId = Math.max(0, ...comments.filter((c) => !indexComments.has(c.id)).map((c) => c.id));
  return { index, indexComments, maxId, comments };
}

/** The dashboard on the open session issue: its resume index (currentIndex), each pointed comment read for its `n`. */
export async function dashboard(api: IssueHost, head: number, agents: AgentRef[], bodies: Map<number, number | null>): Promise<ReaderAnswer[]> {
  let index: ResumeIndex | null;
  let maxId: number;
  try {
    ({ index, maxId } = await currentIndex(api, head));
  } catch (e) {
    return agents.map(() => ({ n: null, directive: null, error: e instanceof Error ? e.message : String(e) }));
  }
  // An issue with no comment yet has nothing to index: the bot writes its index comment with the first
  // comment it reads (an index needs a watermark time), so the dashboard shows no agent.
  if (!index && maxId === 0) return agents.map(() => ({ n: null, directive: null }));
  if (!index) return agents.map(() => ({ n: null, directive: null, error: `no resume index on #${head}` }));
  const out: ReaderAnswer[] = [];
  for (const a of agents) {
    const e = index.entries.find((x) => x.agent === a.agent && x.session === a.session);
    if (!e) {
      out.push({ n: null, directive: null });
      continue;
    }
    let n = bodies.get(e.commentId);
    if (n === undefined) {
      try {
        const p = parseComment((await api.readRecord(REPO, e.commentId)).body);
        n = p.kind === "checkpoint" ? nOf(p.checkpoint.data) : null;
      } catch {
        n = null;
      }
      bodies.set(e.commentId, n);
    }
    out.push({ n, directive: e.directive?.kind ?? null });
  }
  return out;
}

/** The seed's own resume_agent_work (python3, seed-fleet.py) for every agent. */
export async function seedResume(seed: SeedProcess, agents: AgentRef[]): Promise<(ReaderAnswer & { phase: string | null })[]> {
  try {
    const answers = await seed.request({ cmd: "resume", pairs: agents.map((a) => [a.agent, a.session]) });
    if (!Array.isArray(answers)) throw new Error(String(obj(answers)["error"] ?? "no answer"));
    return (answers as [Json, string][]).map(([data, phase]) => ({ n: phase === "fresh_start" ? null : nOf(data), directive: null, phase: phase === "fresh_start" ? null : phase }));
  } catch (e) {
    return agents.map(() => ({ n: null, directive: null, phase: null, error: e instanceof Error ? e.message.slice(0, 200) : String(e) }));
  }
}
