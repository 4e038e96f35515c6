/**
 * Fork the bot process and talk to it over IPC. bench/bot-process.ts is compiled
 * first (tsconfig.bench-bot.json → dist-bench/) and run as plain JS, as `npm start`
 * runs the bot: an in-process transpiler would add ~45 MiB to the RSS measured.
 */
import { execFileSync, fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { defaultBotConfig } from "../src/config/bot-env.ts";
import type { BotConfig } from "../src/bot/bot-config.ts";

export interface BotChild {
  pid: number;
  call<T = unknown>(cmd: string, extra?: Record<string, unknown>): Promise<T>;
  kill(): void;
  /** Resolves when the process has exited (after "stop", its --cpu-prof profile is written by then). */
  exited: Promise<void>;
}

let compiled = false;

/** Compile the bench's child processes (the bot, the warm-resume client) to dist-bench/, once per run. */
export function compileBenchProcesses(): void {
  if (compiled) return;
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync(process.execPath, [fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url)), "-p", "tsconfig.bench-bot.json"], { cwd: root, stdio: "inherit" });
  compiled = true;
}

export async function forkBot(): Promise<BotChild> {
  compileBenchProcesses();
  const child: ChildProcess = fork(fileURLToPath(new URL("../dist-bench/bench/bot-process.js", import.meta.url)), [], {
    // --optimize-for-size as in `npm start`: V8 grows the heap less eagerly (RSS at 50k: ~340 → ~190 MiB).
    execArgv: ["--expose-gc", "--optimize-for-size", ...(process.env["BENCH_BOT_NODE_OPTIONS"]?.split(" ").filter(Boolean) ?? [])],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // BENCH_BOT_EXEC=wrapper: run the bot under a wrapper script that execs node with its arguments (heaptrack, perf).
    ...(process.env["BENCH_BOT_EXEC"] ? { execPath: process.env["BENCH_BOT_EXEC"] } : {}),
    // As `npm start` runs it: two malloc arenas keep glibc from holding freed response buffers per thread.
    env: { ...process.env, MALLOC_ARENA_MAX: "2" },
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let ready!: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  child.on("message", (m: { id: number; result?: unknown; error?: string }) => {
    if (m.id === 0) return ready();
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(`bot process: ${m.error}`));
    else p?.resolve(m.result);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.on("exit", (code) => {
    for (const p of pending.values()) p.reject(new Error(`bot process exited (${code})`));
    pending.clear();
  });
  await readyP;
  return {
    pid: child.pid ?? 0,
    call: <T>(cmd: string, extra: Record<string, unknown> = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, cmd, ...extra });
      }),
    kill: () => {
      if (child.exitCode === null) child.kill();
    },
    exited,
  };
}

/** The bot API token the benchmark's bot accepts (the warm-resume probe sends it). */
export const BENCH_API_TOKEN = "bench-api-token-0123456789abcdef";

export function benchBotConfig(o: { forgeUrl: string; token: string; owner: string; repo: string; secret: string; trusted: string[] }): BotConfig {
  return {
    ...defaultBotConfig({ url: o.forgeUrl, token: o.token }, [{ owner: o.owner, repo: o.repo }]),
    trustedAuthors: o.trusted,
    webhookSecret: o.secret,
    apiTokens: [BENCH_API_TOKEN],
    port: 0,
    // Webhooks only during the benchmark: no poll or reconcile may hide a lost event,
    // and no timer may touch the forge while costs are being counted.
    pollIntervalMs: 0,
    reconcileIntervalMs: 0,
    livenessIntervalMs: 0,
    liveness: {},
    // The existing scenarios measure one big issue: no rollover (the retention scenario turns it on).
    rolloverAt: 0,
    retries: 3,
    timeoutMs: 60_000,
  };
}
