/**
 * Snapshot speed and upload size (issue 30, item 4), against the embedded Forgejo in this process, on
 * loopback and at 20 ms per request:
 * - a 50 MiB JSONL transcript with 1 MiB appended: bytes sent to the forge by the second save (every
 *   request body: multipart envelopes, the manifest, the [SNAPSHOT] comment), goal ≤ 1.1 MiB;
 * - save (first, full) and restore times of a 1, 10 and 50 MiB transcript, sealed (CHECKPOST_STATE_KEY).
 *
 *   node --import tsx bench/snapshots.ts [--out FILE]      (part of `npm run bench`; `npm run bench:snapshots`)
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startForge } from "../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient } from "../src/forgejo-client/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, SessionStore } from "../src/session-client/index.ts";
import { DEFAULT_SNAPSHOT_SETTINGS, parseStateKey, restoreSnapshot, saveSnapshot } from "../src/snapshot/index.ts";

const MiB = 1024 * 1024;
const out = process.argv.includes("--out") ? process.argv[process.argv.indexOf("--out") + 1] : undefined;
const sizes = process.argv.includes("--quick") ? [1] : [1, 10, 50];

function transcript(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  let i = 0;
  while (n < bytes) {
    const l = `${JSON.stringify({ turn: i++, role: i % 2 ? "assistant" : "user", text: randomBytes(96).toString("base64") })}\n`;
    parts.push(l);
    n += l.length;
  }
  return parts.join("").slice(0, bytes);
}

interface Row {
  latencyMs: number;
  mib: number;
  saveMs: number;
  restoreMs: number;
  appendedMiB?: number;
  tailSaveMs?: number;
  tailSentBytes?: number;
}

const rows: Row[] = [];
for (const latencyMs of [0, 20]) {
  for (const mib of sizes) {
    const forge = await startForge({ port: 0 });
    const work = mkdtempSync(join(tmpdir(), "checkpost-bench-snap-"));
    try {
      forge.admin.createUser("agent");
      const token = forge.admin.createToken("agent");
      forge.admin.createRepo("agent", "work");
      forge.admin.createLabel("agent", "work", { name: DEFAULT_SESSION_LABEL });
      const issue = forge.admin.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, body: "", labels: [DEFAULT_SESSION_LABEL] }).number;
      forge.admin.setFaults({ latencyMs });
      let sent = 0;
      const counting: typeof fetch = async (input, init) => {
        const b = init?.body;
        if (typeof b === "string") sent += Buffer.byteLength(b);
        else if (b instanceof Uint8Array) sent += b.byteLength;
        return fetch(input, init);
      };
      const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token, fetch: counting }));
      const store = new SessionStore({ api, repo: { owner: "agent", repo: "work" }, issue });
      const settings = { ...DEFAULT_SNAPSHOT_SETTINGS, key: parseStateKey(randomBytes(32).toString("hex")) };
      const o = { store, api, agent: "worker", session: "s1", files: ["t.jsonl"], cwd: work, settings };
      writeFileSync(join(work, "t.jsonl"), transcript(mib * MiB));
      let t = performance.now();
      await saveSnapshot(o);
      const saveMs = performance.now() - t;
      const into = mkdtempSync(join(tmpdir(), "checkpost-bench-into-"));
      t = performance.now();
      await restoreSnapshot({ store, api, agent: "worker", session: "s1", into, settings });
      const restoreMs = performance.now() - t;
      rmSync(into, { recursive: true, force: true });
      const row: Row = { latencyMs, mib, saveMs: Math.round(saveMs), restoreMs: Math.round(restoreMs) };
      if (mib === Math.max(...sizes)) {
        appendFileSync(join(work, "t.jsonl"), transcript(MiB));
        sent = 0;
        t = performance.now();
        await saveSnapshot(o);
        row.tailSaveMs = Math.round(performance.now() - t);
        row.tailSentBytes = sent;
        row.appendedMiB = 1;
      }
      rows.push(row);
      console.log(JSON.stringify(row));
    } finally {
      await forge.close();
      rmSync(work, { recursive: true, force: true });
    }
  }
}
const tail = rows.find((r) => r.tailSentBytes !== undefined && r.latencyMs === 0);
const report = {
  machine: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  node: process.version,
  chunkBytes: DEFAULT_SNAPSHOT_SETTINGS.chunkBytes,
  rows,
  tailGoal: tail ? { sentMiB: Number(((tail.tailSentBytes ?? 0) / MiB).toFixed(3)), goalMiB: 1.1, met: (tail.tailSentBytes ?? 0) <= 1.1 * MiB } : null,
};
console.log(JSON.stringify(report.tailGoal));
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
}
if (report.tailGoal && !report.tailGoal.met) process.exitCode = 1;
