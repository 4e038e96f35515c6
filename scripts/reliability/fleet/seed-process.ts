/** A long-running python3 process running the seed's own functions (seed-fleet.py serve): one request at a time. */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { REPO } from "./world.ts";

export const SEED_SCRIPT = fileURLToPath(new URL("./seed-fleet.py", import.meta.url));

export class SeedProcess {
  private readonly child: ChildProcess;
  private readonly answers: ((line: string) => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private exited: string | null = null;

  constructor(env: { url: string; token: string }) {
    this.child = spawn("python3", ["-W", "ignore", SEED_SCRIPT, "serve"], {
      env: { ...process.env, FORGEJO_URL: env.url, FORGEJO_TOKEN: env.token, FORGEJO_REPOSITORY: `${REPO.owner}/${REPO.repo}` },
      stdio: ["pipe", "pipe", "ignore"],
    });
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on("line", (l) => this.answers.shift()?.(l));
    this.child.once("exit", (code, signal) => {
      this.exited = `python3 exited (${code ?? signal})`;
      for (const a of this.answers.splice(0)) a(JSON.stringify({ error: this.exited }));
    });
  }

  /** One request; requests are answered in order. */
  request(req: Record<string, unknown>): Promise<Record<string, unknown> | unknown[]> {
    const run = async () => {
      if (this.exited) throw new Error(this.exited);
      const line = await new Promise<string>((resolve) => {
        this.answers.push(resolve);
        this.child.stdin?.write(`${JSON.stringify(req)}\n`);
      });
      return JSON.parse(line) as Record<string, unknown> | unknown[];
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  close(): void {
    this.child.stdin?.end();
    this.child.kill();
  }
}
