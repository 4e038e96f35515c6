/** A spawned crash worker with its event stream, awaitable without polling. */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { WorkerEvent } from "./steps.ts";

const WORKER = fileURLToPath(new URL("./crash-worker.ts", import.meta.url));

export class WorkerProcess {
  readonly events: WorkerEvent[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr = "";
  private readonly child: ChildProcess;
  private waiters: Array<() => void> = [];
  private alive = true;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ["--import", "tsx", WORKER], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stderr?.on("data", (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      try {
        this.events.push(JSON.parse(line) as WorkerEvent);
      } catch {
        return;
      }
      this.wake();
    });
    this.exited = new Promise((resolve) =>
      this.child.on("exit", (code, signal) => {
        this.alive = false;
        this.wake();
        resolve({ code, signal });
      }),
    );
  }

  get running(): boolean {
    return this.alive;
  }

  signal(sig: NodeJS.Signals): void {
    if (this.alive) this.child.kill(sig);
  }

  /** Resolves once an event satisfies `pred` (true) or the process has exited without one (false). */
  async until(pred: (events: readonly WorkerEvent[]) => boolean): Promise<boolean> {
    for (;;) {
      if (pred(this.events)) return true;
      if (!this.alive) {
        await this.exited;
        return pred(this.events);
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** SIGKILL and wait for the exit. */
  async kill(): Promise<void> {
    this.signal("SIGCONT");
    this.signal("SIGKILL");
    await this.exited;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
