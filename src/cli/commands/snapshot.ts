import type { IssueHost } from "../../ports/issue-host.ts";
import { createHash } from "node:crypto";
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CheckpostError } from "../../errors.ts";
import { SnapshotBusyError, SnapshotFencedError, SnapshotsOffError } from "../../snapshot/core/snapshot-errors.ts";
import { parseDuration } from "../../util/parse-duration.ts";
import { cliCacheDir } from "../cache-dir.ts";
import type { CliContext, CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
import { usage } from "../parse-json-arg.ts";

export interface SnapshotSaveOptions extends RepoFlags {
  agent: string;
  session: string;
  sqlite?: string[];
  epoch?: number;
  force?: boolean;
  every?: string;
  paths: string[];
}

/** The Forgejo client of the context has the comment-attachment calls snapshots use (ForgejoApi). */
const snapshotHost = (ctx: CliContext): IssueHost => ctx.api;

/**
 * A lock per agent+session on this machine, so two snapshot saves never overlap (a --every loop and a
 * manual save, two loops). A lock whose process is gone is taken over.
 */
function takeLock(io: CliIo, ctx: CliContext, agent: string, session: string): () => void {
  const dir = join(cliCacheDir(ctx.env.CHECKPOST_CACHE_DIR, io.env), "snapshot-locks");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash("sha256").update(`${ctx.memoryKey}|${agent}|${session}`).digest("hex").slice(0, 24)}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new SnapshotBusyError(`another snapshot save of ${agent} (session ${session}) is running on this machine (pid ${pid}); let it finish, or stop it`);
      rmSync(file, { force: true });
    }
  }
  throw new SnapshotBusyError(`could not take the snapshot lock of ${agent} (session ${session}); try again`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * `checkpost snapshot save`: upload what changed in the agent's files (JSONL tails only, SQLite through a
 * consistent backup) and name it in a [SNAPSHOT] comment. Prints one JSON line per snapshot written; with
 * --every, snapshots on that interval and once more on SIGTERM/SIGINT before exiting.
 */
export async function snapshotSave(io: CliIo, o: SnapshotSaveOptions, root: CliRoot): Promise<void> {
  if (o.paths.length === 0 && (o.sqlite ?? []).length === 0) throw usage("snapshot save: name at least one PATH or --sqlite DB");
  const everyMs = o.every !== undefined ? parseDuration(o.every) : null;
  if (o.every !== undefined && (everyMs === null || everyMs < 1000)) throw usage(`--every ${o.every}: give an interval of at least 1s, e.g. 15s`);
  const settings = await root.snapshotSettings(io);
  const ctx = await root.context(io, o);
  if (!settings.key)
    io.err(
      `checkpost: warning: CHECKPOST_STATE_KEY is not set, so these files are stored in plain text: everyone who can read ${ctx.store.repo.owner}/${ctx.store.repo.repo} can read them (the transcript too). Set a 32-byte key to seal them (docs/snapshots.md).`,
    );
  const epoch = o.epoch ?? ctx.writers.get(`${ctx.memoryKey}|${o.agent}|${o.session}`)?.epoch;
  const { saveSnapshot } = await import("../../snapshot/save-snapshot.ts");
  const release = takeLock(io, ctx, o.agent, o.session);
  const once = async (force: boolean) => {
    const r = await ctx.withStore((store) =>
      saveSnapshot({
        store,
        api: snapshotHost(ctx),
        agent: o.agent,
        session: o.session,
        files: o.paths,
        sqlite: o.sqlite ?? [],
        cwd: io.cwd,
        settings,
        force,
        logger: ctx.logger,
        ...(epoch !== undefined ? { epoch } : {}),
      }),
    );
    return r;
  };
  try {
    if (everyMs === null) {
      printJson(io, await once(o.force === true));
      return;
    }
    // The loop: one save at a time (each awaits the last); a stop signal ends the wait at once, then a final save.
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let stopping = false;
    const onSignal = () => {
      stopping = true;
      stop();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    try {
      let force = o.force === true;
      while (!stopping) {
        try {
          const r = await once(force);
          force = false; // --force replaces once; later rounds extend what it published
          if (r.changed) printJson(io, r);
        } catch (e) {
          // A zombie stops, and so does a host with no attachment API; anything else (the forge down, a divergent file) is said and tried again next round.
          if (e instanceof SnapshotFencedError || e instanceof SnapshotsOffError || !(e instanceof CheckpostError)) throw e;
          io.err(`checkpost: snapshot failed (${e.message}); trying again in ${o.every}`);
        }
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, everyMs)))]);
        clearTimeout(timer);
      }
      const last = await once(false);
      printJson(io, { ...last, final: true });
    } finally {
      process.removeListener("SIGTERM", onSignal);
      process.removeListener("SIGINT", onSignal);
    }
  } finally {
    release();
  }
}

export interface SnapshotRestoreOptions extends RepoFlags {
  agent: string;
  session: string;
  into: string;
  force?: boolean;
}

/** `checkpost snapshot restore`: the agent's newest live snapshot into --into, atomically, never over newer local state. */
export async function snapshotRestore(io: CliIo, o: SnapshotRestoreOptions, root: CliRoot): Promise<void> {
  const settings = await root.snapshotSettings(io);
  const ctx = await root.context(io, o);
  const { restoreSnapshot } = await import("../../snapshot/restore-snapshot.ts");
  const { resolve } = await import("node:path");
  const r = await ctx.withStore((store) => restoreSnapshot({ store, api: snapshotHost(ctx), agent: o.agent, session: o.session, into: resolve(io.cwd, o.into), force: o.force === true, settings }));
  printJson(io, r);
  const kept = r.files.filter((f) => f.action === "kept");
  if (kept.length) io.err(`checkpost: kept ${kept.length} newer local file(s), not overwritten: ${kept.map((f) => `${f.path} (${f.why})`).join("; ")}. Pass --force to overwrite them.`);
  if (r.comment_id === null) io.err(`checkpost: ${o.agent} (session ${o.session}) has no snapshot yet: nothing to restore`);
}
