import { type Clock, systemClock } from "../clock.ts";

/** Where a command writes; injectable so tests read what a user would see. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  /**
   * `env` already holds what .env or --env-file add (`checkpost mcp` read them once at start): the command
   * reads no .env of its own, so one run in another folder does not pick up that folder's .env.
   */
  envComplete?: boolean;
  cwd: string;
  /** stdout is a terminal (colours, screen refresh). */
  isTTY?: boolean;
  /** The clock commands read (tests pin it); default: the system clock. */
  now?: Clock;
}

/** The clock of a command's io. */
export const clockOf = (io: CliIo): Clock => io.now ?? systemClock;

export const printJson = (io: CliIo, value: unknown) => io.out(JSON.stringify(value));
