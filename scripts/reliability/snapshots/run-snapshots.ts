/**
 * SIGKILL trials of `snapshot save` and `snapshot restore` (issue 30, item 4). Each save trial appends to
 * a JSONL transcript, starts a save in a child process and kills it after a random one of its requests
 * to the forge, or just after the last (the commit, the prune); the
 * newest snapshot must then restore whole, as either the previous content or the new one, never anything
 * else. Each restore trial kills a restore over an older local copy the same way (after the last request
 * come the renames); the file must then be whole, old or new. Files are sealed and cut into small chunks so a save or restore is many requests long.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32, startForge } from "../../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../../../src/session-client/index.ts";
import { DEFAULT_SNAPSHOT_SETTINGS, parseStateKey, restoreSnapshot, saveSnapshot } from "../../../src/snapshot/index.ts";

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

export interface SnapshotTrialFigures {
  save_trials: number;
  /** Kills that landed before the save finished. */
  save_killed_mid_operation: number;
  /** After the kill, the newest snapshot restored as the previous content (the kill came before the commit). */
  save_previous_restored: number;
  /** …or as the new content (the commit was written before the kill). */
  save_new_restored: number;
  restore_trials: number;
  restore_killed_mid_operation: number;
  /** After the kill, the local file was the older copy, whole. */
  restore_old_whole: number;
  /** …or the snapshot's copy, whole. */
  restore_new_whole: number;
  /** Temp files a killed restore left beside the file (never read as the file; the next restore of it removes them). */
  restore_leftover_temp_files: number;
  /** A restored or local file that is neither the old nor the new content. */
  corrupt: number;
  /** The newest snapshot could not be restored after a kill (out of sync, missing manifest…). */
  unrestorable: number;
}

export const SNAPSHOT_MUST_BE_ZERO = ["corrupt", "unrestorable"] as const;

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

function lines(rand: () => number, bytes: number): string {
  let out = "";
  while (out.length < bytes) out += `${JSON.stringify({ role: rand() < 0.5 ? "user" : "assistant", text: randomBytes(48).toString("base64") })}\n`;
  return out;
}

/**
 * Where to kill a worker: after its `atRequest`-th answer from the forge (0: as soon as it says "go"), or,
 * with `atRequest` null, `afterLastMs` after its last request (the commit, the prune, the renames).
 */
interface KillPoint {
  atRequest: number | null;
  afterLastMs: number;
  /** How many requests the uninterrupted operation makes (to know which is the last). */
  total: number;
}

/** Run the worker; kill it at `kill` (never, when null). Resolves whether it finished first, and how many requests it made. */
function runWorker(args: object, kill: KillPoint | null): Promise<{ finished: boolean; requests: number }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(args)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let requests = 0;
    let timer: NodeJS.Timeout | undefined;
    const killAt = (ms: number) => {
      timer ??= setTimeout(() => child.kill("SIGKILL"), ms);
    };
    child.stdout?.on("data", (d: Buffer) => {
      const text = d.toString();
      out += text;
      if (!kill) return;
      if (kill.atRequest === 0 && text.includes("go\n")) killAt(0);
      requests += text.split("req\n").length - 1;
      if (kill.atRequest !== null && kill.atRequest > 0 && requests >= kill.atRequest) killAt(0);
      if (kill.atRequest === null && requests >= kill.total) killAt(kill.afterLastMs);
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const finished = out.includes("\ndone ");
      if (!finished && signal !== "SIGKILL") reject(new Error(`worker failed (code ${code}): ${err.slice(0, 2000)}`));
      else resolve({ finished, requests: out.split("req\n").length - 1 });
    });
  });
}

/** A kill point spread over the operation's requests, one in five after the last request. */
function killPoint(rand: () => number, total: number): KillPoint {
  return rand() < 0.2 ? { atRequest: null, afterLastMs: Math.floor(rand() * 30), total } : { atRequest: Math.floor(rand() * total), afterLastMs: 0, total };
}

export async function runSnapshotTrials(o: {
  trials: number;
  seed: number;
  chunkBytes?: number;
  initialBytes?: number;
  log?: (line: string) => void;
}): Promise<{ figures: SnapshotTrialFigures; problems: string[]; elapsedMs: number }> {
  const t0 = performance.now();
  const rand = mulberry32(o.seed); // a seed replays the same kill points
  const chunkBytes = o.chunkBytes ?? 64 * 1024;
  const key = randomBytes(32).toString("hex");
  const forge = await startForge({ port: 0 });
  const work = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-"));
  const problems: string[] = [];
  const f: SnapshotTrialFigures = {
    save_trials: 0,
    save_killed_mid_operation: 0,
    save_previous_restored: 0,
    save_new_restored: 0,
    restore_trials: 0,
    restore_killed_mid_operation: 0,
    restore_old_whole: 0,
    restore_new_whole: 0,
    restore_leftover_temp_files: 0,
    corrupt: 0,
    unrestorable: 0,
  };
  try {
    forge.admin.createUser("agent");
    const token = forge.admin.createToken("agent");
    forge.admin.createRepo("agent", "work");
    forge.admin.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
    const issue = forge.admin.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "", labels: [DEFAULT_SESSION_LABEL] }).number;
    let requests = 0;
    let uploads = 0;
    const counting: typeof fetch = (input, init) => {
      requests++;
      if (init?.method === "POST" && String(input).includes("/assets")) uploads++;
      return fetch(input, init);
    };
    const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token, minRetryDelayMs: 1, maxRetryDelayMs: 10, fetch: counting }));
    const store = new SessionStore({ api, repo: { owner: "agent", repo: "work" }, issue });
    const settings = { ...DEFAULT_SNAPSHOT_SETTINGS, chunkBytes, key: parseStateKey(key), keep: 2 };
    const file = "transcript.jsonl";
    const path = join(work, file);
    writeFileSync(path, lines(rand, o.initialBytes ?? 2 * 1024 * 1024));
    await saveSnapshot({ store, api, agent: "worker", session: "s1", files: [file], cwd: work, settings });
    let committed = readFileSync(path);
    const args = { url: forge.url, token, issue, file, chunkBytes, key };
    // How many requests an uninterrupted save and restore make here: kills are spread over them.
    appendFileSync(path, lines(rand, 512 * 1024));
    const calSave = await runWorker({ ...args, op: "save", dir: work }, null);
    committed = readFileSync(path);
    const calDir = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
    const calRestore = await runWorker({ ...args, op: "restore", dir: calDir }, null);
    rmSync(calDir, { recursive: true, force: true });
    // A save's requests beyond one per new chunk (reads, one listing per parts comment in use, the parts
    // comment, the manifest, the [SNAPSHOT], the prune): it grows by one a trial, so it is re-measured below.
    let saveOverhead = Math.max(1, calSave.requests - Math.ceil((512 * 1024) / chunkBytes));
    o.log?.(`an uninterrupted save of 512 KiB makes ${calSave.requests} requests, a restore ${calRestore.requests}`);

    for (let t = 0; t < o.trials; t++) {
      // A save killed at a random point: the previous snapshot or the new one restores whole, nothing else.
      const previous = committed;
      const appended = 32 * 1024 + Math.floor(rand() * 224 * 1024);
      appendFileSync(path, lines(rand, appended));
      const next = readFileSync(path);
      f.save_trials++;
      const s = await runWorker({ ...args, op: "save", dir: work }, killPoint(rand, saveOverhead + Math.ceil(appended / chunkBytes)));
      if (!s.finished) f.save_killed_mid_operation++;
      const check = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
      try {
        requests = 0;
        await restoreSnapshot({ store, api, agent: "worker", session: "s1", into: check, settings });
        const got = sha(readFileSync(join(check, file)));
        if (got === sha(previous)) f.save_previous_restored++;
        else if (got === sha(next)) f.save_new_restored++;
        else {
          f.corrupt++;
          problems.push(`save trial ${t}: the restored file is neither the previous nor the new content`);
        }
      } catch (e) {
        f.unrestorable++;
        problems.push(`save trial ${t}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        rmSync(check, { recursive: true, force: true });
      }
      // Move on from whatever is stored: the next save extends it (and prunes what the kill left).
      requests = 0;
      uploads = 0;
      const caught = await saveSnapshot({ store, api, agent: "worker", session: "s1", files: [file], cwd: work, settings });
      // Requests besides the chunk uploads (the manifest upload counts as overhead), plus the listing of this new parts comment next time.
      if (caught.changed) saveOverhead = requests - (uploads - 1) + 1;
      else saveOverhead++;
      committed = readFileSync(path);
      // A restore of it, uninterrupted, to count its requests: the killed one below makes the same.
      const counted = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
      requests = 0;
      await restoreSnapshot({ store, api, agent: "worker", session: "s1", into: counted, settings });
      const restoreRequests = requests;
      rmSync(counted, { recursive: true, force: true });

      // A restore killed at a random point over an older local copy: the file is old or new, whole.
      const into = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
      try {
        writeFileSync(join(into, file), previous);
        utimesSync(join(into, file), new Date(2000, 0, 1), new Date(2000, 0, 1));
        f.restore_trials++;
        const r = await runWorker({ ...args, op: "restore", dir: into }, killPoint(rand, restoreRequests));
        if (!r.finished) f.restore_killed_mid_operation++;
        const got = sha(readFileSync(join(into, file)));
        if (got === sha(previous)) f.restore_old_whole++;
        else if (got === sha(committed)) f.restore_new_whole++;
        else {
          f.corrupt++;
          problems.push(`restore trial ${t}: the local file is neither the old nor the new content`);
        }
        f.restore_leftover_temp_files += readdirSync(into).filter((n) => n.endsWith(".tmp")).length;
      } finally {
        rmSync(into, { recursive: true, force: true });
      }
      if ((t + 1) % 10 === 0) o.log?.(`${t + 1}/${o.trials} trials`);
    }
  } finally {
    await forge.close();
    rmSync(work, { recursive: true, force: true });
  }
  return { figures: f, problems, elapsedMs: performance.now() - t0 };
}
