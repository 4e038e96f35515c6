import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { BUILTIN_PHASE_MAPS, PhaseMapSchema, toParseOutput } from "../../protocol/index.ts";
import type { PhaseMap } from "../../protocol/index.ts";
import { cliContext } from "../context.ts";
import type { RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
import { jsonObjectArg, usage } from "../parse-json-arg.ts";

export interface SaveOptions extends RepoFlags {
  agent: string;
  session: string;
  phase: string;
  data?: string;
  dataFile?: string;
  seq?: number;
  epoch?: number;
}

/** `checkpost save`: post a checkpoint exactly once; prints the comment id, issue and the checkpoint. */
export async function save(io: CliIo, o: SaveOptions): Promise<void> {
  const data = jsonObjectArg("--data", o.data, o.dataFile, io.cwd);
  const ctx = cliContext(io, o);
  const saved = await ctx.withStore((s) =>
    s.save({ agent: o.agent, session: o.session, phase: o.phase, data, ...(o.seq !== undefined ? { seq: o.seq } : {}), ...(o.epoch !== undefined ? { epoch: o.epoch } : {}) }, { checkDirective: true }),
  );
  printJson(io, {
    comment_id: saved.comment_id,
    issue: saved.issue,
    html_url: saved.html_url,
    ...toParseOutput({ kind: "checkpoint", checkpoint: saved.checkpoint }),
    directive: saved.directive ?? null,
    ...(saved.fenced ? { fenced: true } : {}),
  });
}

export interface HealthOptions extends RepoFlags {
  agent: string;
  session: string;
  metrics?: string;
  metricsFile?: string;
  status?: string;
}

/** `checkpost health`: post a health signal. */
export async function health(io: CliIo, o: HealthOptions): Promise<void> {
  const metrics = jsonObjectArg("--metrics", o.metrics, o.metricsFile, io.cwd);
  const ctx = cliContext(io, o);
  const r = await ctx.withStore((s) => s.health({ agent: o.agent, session: o.session, metrics, ...(o.status ? { status: o.status } : {}) }));
  printJson(io, { ...r, kind: "health", agent: o.agent, session: o.session, status: o.status ?? "Active", metrics });
}

/** `checkpost latest`: the newest trusted checkpoint as `parse` prints it plus comment_id, or null. */
export async function latest(io: CliIo, o: RepoFlags & { agent: string; session?: string }): Promise<void> {
  const ctx = cliContext(io, o);
  const cp = await ctx.withStore((s) => s.latest(o.agent, o.session));
  if (!cp) return printJson(io, null);
  const { commentId, createdAt: _c, htmlUrl, agent, session, phase, timestamp, data, ...extra } = cp;
  printJson(io, { kind: "checkpoint", agent, session, phase, version: "1.0", timestamp, data, ...extra, comment_id: commentId, html_url: htmlUrl });
}

/** A phase map by built-in name or from a JSON file ({"phase": "resume_point", …}). */
export function loadPhaseMap(spec: string | undefined, cwd: string): Readonly<PhaseMap> {
  const name = spec ?? "implementation-worker";
  // Own keys only: "__proto__" or "constructor" must not find Object.prototype's members.
  const builtin = Object.hasOwn(BUILTIN_PHASE_MAPS, name) ? BUILTIN_PHASE_MAPS[name] : undefined;
  if (builtin) return builtin;
  let raw: string;
  try {
    raw = readFileSync(resolve(cwd, name), "utf8");
  } catch {
    throw usage(`--map ${name}: not a built-in map (${Object.keys(BUILTIN_PHASE_MAPS).join(", ")}) and not a readable file`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw usage(`--map ${name}: not valid JSON: ${(e as Error).message}`);
  }
  const r = PhaseMapSchema.safeParse(value);
  if (!r.success) throw usage(`--map ${name}: must be a JSON object of phase → resume point strings`);
  return r.data;
}

/** `checkpost resume`: where to continue, the phase and the state as saved. */
export async function resume(io: CliIo, o: RepoFlags & { agent: string; session: string; map?: string; takeOver?: boolean }): Promise<void> {
  const map = loadPhaseMap(o.map, io.cwd);
  const ctx = cliContext(io, o);
  const r = await ctx.withStore((s) => s.resume(o.agent, o.session, map, { takeOver: o.takeOver === true }));
  printJson(io, {
    resume_point: r.resume_point,
    phase: r.phase,
    state: r.state,
    checkpoint: r.checkpoint,
    next_seq: r.next_seq,
    epoch: r.epoch,
    directive: r.directive,
    ...(r.takeover_comment_id !== undefined ? { takeover_comment_id: r.takeover_comment_id } : {}),
  });
}

/** `checkpost init`: locate the session issue, creating it (and its label) if missing. */
export async function init(io: CliIo, o: RepoFlags): Promise<void> {
  const ctx = cliContext(io, o);
  const issue = await ctx.withStore((s) => s.issueNumber({ create: true }));
  printJson(io, { issue, repo: `${ctx.store.repo.owner}/${ctx.store.repo.repo}` });
}
