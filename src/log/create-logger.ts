import pino from "pino";
import type { DestinationStream, Logger, LoggerOptions } from "pino";

/** Paths pino blanks out wherever they appear in a log line. */
export const REDACT_PATHS = [
  "token",
  "password",
  "*.password",
  "auth",
  "*.auth",
  "Authorization",
  "*.Authorization",
  "*.token",
  "secret",
  "*.secret",
  "signingKey",
  "*.signingKey",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "req.headers.authorization",
  'req.headers["x-hub-signature"]',
  'req.headers["x-hub-signature-256"]',
  'req.headers["x-forgejo-signature"]',
  'req.headers["x-gitea-signature"]',
  "config.secret",
  "*.config.secret",
  "FORGEJO_TOKEN",
  "WEBHOOK_SECRET",
  "CHECKPOST_SIGNING_KEY",
  "env.FORGEJO_TOKEN",
  "env.WEBHOOK_SECRET",
  "env.CHECKPOST_SIGNING_KEY",
];

export interface LoggerSettings {
  level?: string;
  /** Pretty lines for a person at a terminal; JSON otherwise. Default: stdout is a TTY. */
  pretty?: boolean;
  name?: string;
  destination?: DestinationStream;
  /** Literal secret values to scrub from messages too (a token pasted into an error text). */
  secrets?: string[];
}

/** pino, structured, with secrets redacted by path and by value. */
export function createLogger(settings: LoggerSettings = {}): Logger {
  const secrets = (settings.secrets ?? []).filter((s) => s.length >= 6);
  // Each secret as it appears raw and inside a JSON string (quotes, backslashes escaped).
  const needles = [...new Set(secrets.flatMap((x) => [x, JSON.stringify(x).slice(1, -1)]))];
  const scrub = (line: string) => needles.reduce((acc, x) => (acc.includes(x) ? acc.split(x).join("[redacted]") : acc), line);
  const options: LoggerOptions = {
    name: settings.name ?? "checkpost",
    level: settings.level ?? "info",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    // Paths catch secrets by key; the serialised line is also scrubbed for every known secret
    // value, wherever it hides (an error message, a nested object, a URL).
    hooks: needles.length ? { streamWrite: scrub } : {},
  };
  const pretty = settings.pretty ?? (!settings.destination && process.stdout.isTTY === true);
  if (pretty) return pino({ ...options, transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss" } } });
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
