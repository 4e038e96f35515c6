import type { Logger } from "pino";

/** What the CLI's client and store log through. */
export type CliLogger = Pick<Logger, "debug" | "info" | "warn" | "error">;

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY } as const;
export type CliLogLevel = keyof typeof LEVELS;
type Method = "debug" | "info" | "warn" | "error";

/** Loads in flight, of every lazy logger: an entry that exits the process itself waits for them. */
const loading = new Set<Promise<void>>();

/** Resolves once every line logged so far through a lazy logger has been written. */
export async function lazyLoggersSettled(): Promise<void> {
  while (loading.size) await Promise.all([...loading]);
}

/**
 * A logger that loads and builds pino on the first line at or above `level`. Loading pino (its worker
 * thread and stream modules) and building it with the redaction paths is several milliseconds of every
 * `checkpost save`, and a save that goes well logs nothing at the default level ("warn"), so an agent's
 * every step skips it. Lines logged while pino loads are kept, in order, and written once it has; the
 * load is a pending promise, so the process does not end before they are out. If pino cannot load, the
 * lines' messages go to `fallback` as JSON, with the reason: never dropped.
 */
export function lazyLogger(level: CliLogLevel, load: () => Promise<Logger>, fallback: (line: string) => void): CliLogger & { settled(): Promise<void> } {
  let logger: Logger | undefined;
  let started: Promise<void> | undefined;
  const queue: [Method, unknown[]][] = [];
  const write = (l: Logger, name: Method, args: unknown[]) => (l[name] as (...a: unknown[]) => void)(...args);
  const start = () => {
    const p = load().then(
      (l) => {
        logger = l;
        for (const [name, args] of queue.splice(0)) write(l, name, args);
      },
      (e: unknown) => {
        fallback(JSON.stringify({ level: "error", msg: `checkpost: the logger could not load (${e instanceof Error ? e.message : String(e)}); lines follow unformatted` }));
        // Only the message texts: the objects could hold what pino would have redacted.
        for (const [name, args] of queue.splice(0)) fallback(JSON.stringify({ level: name, msg: args.filter((a) => typeof a === "string").join(" ") }));
      },
    );
    loading.add(p);
    void p.finally(() => loading.delete(p));
    return p;
  };
  const at =
    (name: Method): Logger[Method] =>
    (...args: unknown[]) => {
      if (LEVELS[name] < LEVELS[level]) return;
      if (logger) return write(logger, name, args);
      queue.push([name, args]);
      started ??= start();
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), settled: () => started ?? Promise.resolve() };
}
