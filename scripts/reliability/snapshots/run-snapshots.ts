/**
 * SIGKILL trials of `snapshot save` and `snapshot restore` (issue 30, item 4). Each save trial appends to
 * a JSONL transcript, starts a save in a child process and kills it at a random point of the save; the
 * newest snapshot must then restore whole, as either the previous content or the new one, never anything
 * else. Each restore trial kills a restore over an older local copy; the file must then be whole, old or
 * new. Files are sealed and cut into small chunks so a save or restore is many requests long.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startForge } from "../../../src/embedded-forge/index.ts";
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

/** A small deterministic PRNG (mulberry32), so a seed replays the same kill points. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lines(rand: () => number, bytes: number): string {
  let out = "";
  while (out.length < bytes) out += `${JSON.stringify({ role: rand() < 0.5 ? "user" : "assistant", text: randomBytes(48).toString("base64") })}\n`;
  return out;
}

/** Run the worker; kill it `killAfterMs` after it says "go". Resolves whether it finished first. */
function runWorker(args: object, killAfterMs: number): Promise<{ finished: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(args)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let goAt = 0;
    let timer: NodeJS.Timeout | undefined;
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (!goAt && out.includes("go\n")) {
        goAt = performance.now();
        timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      }
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const finished = out.includes("\ndone ");
      if (!finished && signal !== "SIGKILL") reject(new Error(`worker failed (code ${code}): ${err.slice(0, 2000)}`));
      else resolve({ finished, ms: performance.now() - goAt });
    });
  });
}

export async function runSnapshotTrials(o: {
  trials: number;
  seed: number;
  chunkBytes?: number;
  initialBytes?: number;
  log?: (line: string) => void;
}): Promise<{ figures: SnapshotTrialFigures; problems: string[]; elapsedMs: number }> {
  const t0 = performance.now();
  const rand = prng(o.seed);
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
    const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token, minRetryDelayMs: 1, maxRetryDelayMs: 10 }));
    const store = new SessionStore({ api, repo: { owner: "agent", repo: "work" }, issue });
    const settings = { ...DEFAULT_SNAPSHOT_SETTINGS, chunkBytes, key: parseStateKey(key), keep: 2 };
    const file = "transcript.jsonl";
    const path = join(work, file);
    writeFileSync(path, lines(rand, o.initialBytes ?? 2 * 1024 * 1024));
    await saveSnapshot({ store, api, agent: "worker", session: "s1", files: [file], cwd: work, settings });
    let committed = readFileSync(path);
    const args = { url: forge.url, token, issue, file, chunkBytes, key };
    // How long an uninterrupted save and restore take here: kills are spread over that window.
    appendFileSync(path, lines(rand, 512 * 1024));
    const calSave = await runWorker({ ...args, op: "save", dir: work }, 600_000);
    committed = readFileSync(path);
    const calDir = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
    const calRestore = await runWorker({ ...args, op: "restore", dir: calDir }, 600_000);
    rmSync(calDir, { recursive: true, force: true });
    o.log?.(`calibration: save ${calSave.ms.toFixed(0)} ms, restore ${calRestore.ms.toFixed(0)} ms`);

    for (let t = 0; t < o.trials; t++) {
      // A save killed at a random point: the previous snapshot or the new one restores whole, nothing else.
      const previous = committed;
      appendFileSync(path, lines(rand, 128 * 1024 + Math.floor(rand() * 768 * 1024)));
      const next = readFileSync(path);
      f.save_trials++;
      const s = await runWorker({ ...args, op: "save", dir: work }, rand() * calSave.ms * 1.1);
      if (!s.finished) f.save_killed_mid_operation++;
      const check = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
      try {
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
      await saveSnapshot({ store, api, agent: "worker", session: "s1", files: [file], cwd: work, settings });
      committed = readFileSync(path);

      // A restore killed at a random point over an older local copy: the file is old or new, whole.
      const into = mkdtempSync(join(tmpdir(), "checkpost-snaptrial-into-"));
      try {
        writeFileSync(join(into, file), previous);
        utimesSync(join(into, file), new Date(2000, 0, 1), new Date(2000, 0, 1));
        f.restore_trials++;
        const r = await runWorker({ ...args, op: "restore", dir: into }, rand() * calRestore.ms * 1.1);
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
