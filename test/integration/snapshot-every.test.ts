// `checkpost snapshot save --every`: snapshots on an interval, once more on SIGTERM, under a lock (issue 30).
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotWorld } from "../helpers/snapshot-world.ts";
import type { SnapshotWorld } from "../helpers/snapshot-world.ts";

let w: SnapshotWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const root = fileURLToPath(new URL("../..", import.meta.url));
/** tsx's loader by URL: the child runs in the agent's folder, where a bare "tsx" does not resolve. */
const TSX = import.meta.resolve("tsx");
const A = ["--agent", "worker", "--session", "s1"];

describe("checkpost snapshot save --every", () => {
  it("snapshots, writes nothing while idle, takes a final snapshot on SIGTERM, and holds a lock meanwhile", async () => {
    w = await snapshotWorld();
    const file = join(w.work, "t.jsonl");
    writeFileSync(file, '{"turn":0}\n');
    const child = spawn(process.execPath, ["--import", TSX, join(root, "src/app/cli-main.ts"), "snapshot", "save", ...A, "--every", "1s", "t.jsonl"], {
      cwd: w.work,
      env: { ...process.env, ...w.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: Record<string, unknown>[] = [];
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    let onLine: (() => void) | undefined;
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        lines.push(JSON.parse(buf.slice(0, i)) as Record<string, unknown>);
        buf = buf.slice(i + 1);
        onLine?.();
      }
    });
    const nextLine = (n: number) =>
      new Promise<void>((resolve) => {
        if (lines.length >= n) return resolve();
        onLine = () => {
          if (lines.length >= n) resolve();
        };
      });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await nextLine(1);
    expect(lines[0]).toMatchObject({ changed: true, files: 1 });
    // The lock: a second save of the same agent+session on this machine is refused while the loop runs.
    const busy = await w.cli(["snapshot", "save", ...A, "t.jsonl"]);
    expect(busy.code).toBe(1);
    expect(busy.err).toMatch(/another snapshot save of worker \(session s1\) is running on this machine \(pid \d+\)/);
    // Only rounds that changed something post (idle rounds: changed:false, tested in snapshot.test.ts).
    const before = (await w.comments()).length;
    appendFileSync(file, '{"turn":1}\n');
    child.kill("SIGTERM");
    expect(await exited, err).toBe(0);
    const last = lines.at(-1);
    expect(last).toMatchObject({ final: true, changed: true, bytes: 22 });
    expect((await w.comments()).length).toBe(before + 2); // the final snapshot's parts and [SNAPSHOT]
    expect(err.match(/CHECKPOST_STATE_KEY is not set/g)).toHaveLength(1);
    // The lock is released.
    const locks = join(w.env.CHECKPOST_CACHE_DIR as string, "snapshot-locks");
    expect(existsSync(locks) ? readdirSync(locks) : []).toEqual([]);
  });
});
