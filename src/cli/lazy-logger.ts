import type { Logger } from "pino";

/** What the CLI's client and store log through. */
export type CliLogger = Pick<Logger, "debug" | "info" | "warn" | "error">;

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY } as const;
export type CliLogLevel = keyof typeof LEVELS;

/**
 * A logger that builds its pino instance on the first line at or above `level`. Building pino with
 * its redaction paths is a few milliseconds of every `checkpost save`, and a save that goes well logs
 * nothing at the default level ("warn"), so an agent's every step skips it.
 */
export function lazyLogger(level: CliLogLevel, make: () => Logger): CliLogger {
  let logger: Logger | undefined;
  const at =
    (name: "debug" | "info" | "warn" | "error"): Logger[typeof name] =>
    (...args: Parameters<Logger[typeof name]>) => {
      if (LEVELS[name] < LEVELS[level]) return;
      logger ??= make();
      (logger[name] as (...a: unknown[]) => void)(...args);
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
