import { compareCodePoints, toParseOutput } from "../../protocol/index.ts";
import { closeNames } from "../../util/close-names.ts";
import type { LegacyWriters } from "../../projection/index.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
import { jsonObjectArg, usage } from "../parse-json-arg.ts";
import { phaseMapFor } from "../phase-maps.ts";
import { warnNoCheckpoint } from "./no-checkpoint-hint.ts";

export interface SaveOptions extends RepoFlags {
  agent: string;
  session: string;
  phase: string;
  data?: string;
  dataFile?: string;
  seq?: number;
  epoch?: number;
  map?: string;
  maps?: string;
}

const writerKey = (ctx: { memoryKey: string }, agent: string, session: string) => `${ctx.memoryKey}|${agent}|${session}`;

/**
 * `checkpost save`: post a checkpoint exactly once; prints the comment id, issue and the checkpoint.
 * Without --seq/--epoch it continues the fence `resume` took on this machine; an --epoch below that
 * fence is refused (the checkpoint would be fenced off as a zombie and never resumed).
 */
export async function save(io: CliIo, o: SaveOptions, root: CliRoot): Promise<void> {
  const data = await jsonObjectArg("--data", o.data, o.dataFile, io);
  const chosen = phaseMapFor(o.agent, { map: o.map, maps: o.maps ?? io.env["CHECKPOST_PHASE_MAPS"], cwd: io.cwd });
  if (chosen && !Object.hasOwn(chosen.map, o.phase))
    io.err(`checkpost: warning: phase "${o.phase}" is not in ${o.agent}'s phase map (${chosen.name}); a resume from this checkpoint starts at "start"`);
  const ctx = await root.context(io, o);
  const key = writerKey(ctx, o.agent, o.session);
  const held = ctx.writers.get(key);
  if (held && o.epoch !== undefined && o.epoch < held.epoch)
    throw usage(
      `--epoch ${o.epoch} is below epoch ${held.epoch}, which \`resume\` took over with on this machine: the checkpoint would be fenced off as a zombie and never resumed. Pass --epoch ${held.epoch} --seq ${held.next_seq}, or leave both out to continue the fence.`,
    );
  const epoch = o.epoch ?? held?.epoch;
  const seq = o.seq ?? (o.epoch === undefined || o.epoch === held?.epoch ? held?.next_seq : undefined);
  const saved = await ctx.withStore((s) =>
    s.save({ agent: o.agent, session: o.session, phase: o.phase, data, ...(seq !== undefined ? { seq } : {}), ...(epoch !== undefined ? { epoch } : {}) }, { checkDirective: true }),
  );
  if (epoch !== undefined) ctx.writers.set(key, { epoch, next_seq: (seq ?? 0) + 1 });
  warnNewAgent(io, o.agent, saved);
  printJson(io, {
    comment_id: saved.comment_id,
    issue: saved.issue,
    html_url: saved.html_url,
    ...toParseOutput({ kind: "checkpoint", checkpoint: saved.checkpoint }),
    directive: saved.directive ?? null,
    ...(saved.fenced ? { fenced: true } : saved.fenced === null ? { fenced: null } : {}),
  });
  // Said on stderr too, so a script that reads only the exit status and stderr is told (issue 28.5).
  if (saved.fenced)
    io.err(
      `checkpost: this save's epoch ${saved.checkpoint.epoch ?? 0} is below the fence: another worker took over, or a person released or rewound this session. The checkpoint is a zombie and is never resumed from: stop, or run \`checkpost resume\` to continue from the current point.`,
    );
  else if (saved.fenced === null)
    io.err("checkpost: could not tell whether this save is fenced (the issue has no usable resume index and too many comments to read beside a save); run `checkpost resume` to find out.");
}

/**
 * One stderr line when this save is the first of an agent the bot's index does not know while it knows
 * others: a typo in --agent otherwise starts a new worker in silence. Free: the save already read the index
 * (for the directive); without one (no bot, or not yet written) nothing is said.
 */
function warnNewAgent(io: CliIo, agent: string, saved: { comment_id: number; indexed?: { agent: string; commentId: number }[] }): void {
  const indexed = saved.indexed ?? [];
  if (indexed.some((e) => e.agent === agent && e.commentId !== saved.comment_id)) return;
  const others = [...new Set(indexed.filter((e) => e.agent !== agent).map((e) => e.agent))].sort(compareCodePoints);
  if (others.length === 0) return;
  const near = closeNames(agent, others);
  const listed = others.length <= 10 ? others.join(", ") : `${others.slice(0, 10).join(", ")} … (${others.length - 10} more)`;
  io.err(`checkpost: ${agent} is a new agent on this issue (known: ${listed})${near.length ? `; did you mean ${near.slice(0, 3).join(" or ")}?` : ""}`);
}

export interface HealthOptions extends RepoFlags {
  agent: string;
  session: string;
  metrics?: string;
  metricsFile?: string;
  status?: string;
}

/** `checkpost health`: post a health signal. */
export async function health(io: CliIo, o: HealthOptions, root: CliRoot): Promise<void> {
  const metrics = await jsonObjectArg("--metrics", o.metrics, o.metricsFile, io);
  const ctx = await root.context(io, o);
  const r = await ctx.withStore((s) => s.health({ agent: o.agent, session: o.session, metrics, ...(o.status ? { status: o.status } : {}) }));
  printJson(io, { ...r, kind: "health", agent: o.agent, session: o.session, status: o.status ?? "Active", metrics });
}

/** `checkpost latest`: the newest trusted checkpoint as `parse` prints it plus comment_id, or null. */
export async function latest(io: CliIo, o: RepoFlags & { agent: string; session?: string; existing?: boolean }, root: CliRoot): Promise<void> {
  const ctx = await root.context(io, o);
  const cp = await ctx.withStore((s) => s.latest(o.agent, o.session));
  if (!cp) {
    printJson(io, null);
    return warnNoCheckpoint(io, ctx, o.agent, o.session, o.existing);
  }
  const { commentId, createdAt: _c, htmlUrl, agent, session, phase, timestamp, data, ...extra } = cp;
  printJson(io, { kind: "checkpoint", agent, session, phase, version: "1.0", timestamp, data, ...extra, comment_id: commentId, html_url: htmlUrl });
}

/**
 * `checkpost resume`: where to continue, the phase and the state as saved. Every resume takes over
 * the agent+session (a new epoch); the epoch and next Seq are remembered on this machine so a plain
 * `save` continues the fence.
 */
export async function resume(
  io: CliIo,
  o: RepoFlags & { agent: string; session: string; map?: string; maps?: string; takeOver?: boolean; legacyWriters?: LegacyWriters; existing?: boolean },
  root: CliRoot,
): Promise<void> {
  const chosen = phaseMapFor(o.agent, { map: o.map, maps: o.maps ?? io.env["CHECKPOST_PHASE_MAPS"], cwd: io.cwd });
  // --legacy-writers wins over the env, through the same validated setting.
  const ctx = await root.context(o.legacyWriters ? { ...io, env: { ...io.env, CHECKPOST_LEGACY_WRITERS: o.legacyWriters } } : io, o);
  // The one resume decision: no map for this agent resumes at its own phase, never silently at "start".
  const r = await ctx.withStore(async (s) => ({ ...(await s.resume(o.agent, o.session, chosen ?? null, { takeOver: o.takeOver === true })), issue: await s.issueNumber() }));
  ctx.writers.set(writerKey(ctx, o.agent, o.session), { epoch: r.epoch, next_seq: r.next_seq });
  printJson(io, {
    resume_point: r.resume_point,
    phase: r.phase,
    state: r.state,
    mapped: r.mapped,
    ...(r.map !== undefined ? { map: r.map } : {}),
    checkpoint: r.checkpoint,
    next_seq: r.next_seq,
    epoch: r.epoch,
    directive: r.directive,
    // Newer checkpoints that were refused (a fenced legacy writer, an edit…), each with its reason and the setting to change.
    not_used: r.not_used,
    // As every reader answers it (CHECKPOST_STALE_AFTER_MS, CHECKPOST_MIN_STALE_MS): the agent's last signal before this resume.
    liveness: r.liveness,
    // The issue answered from: the open head of the session chain.
    issue: r.issue,
    ...(r.takeover_comment_id !== undefined ? { takeover_comment_id: r.takeover_comment_id } : {}),
  });
  if (r.checkpoint === null) await warnNoCheckpoint(io, ctx, o.agent, o.session, o.existing);
}

/** `checkpost init`: locate the session issue, creating it (and its label) if missing. */
export async function init(io: CliIo, o: RepoFlags, root: CliRoot): Promise<void> {
  const ctx = await root.context(io, o);
  const issue = await ctx.withStore((s) => s.issueNumber({ create: true }));
  printJson(io, { issue, repo: `${ctx.store.repo.owner}/${ctx.store.repo.repo}` });
}
