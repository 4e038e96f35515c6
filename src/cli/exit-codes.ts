/**
 * The CLI's exit codes, in one place: `checkpost --help` and README.md ("Exit codes") list the same.
 * Scripts branch on them, so a code never changes meaning; new cases get new numbers.
 */
export const EXIT = {
  ok: 0,
  /** Anything that failed; the message says what to fix. */
  failure: 1,
  /** A flag or argument is wrong. */
  usage: 2,
  /** `status` (and `doctor`): something needs a person's attention. */
  attention: 3,
  /** `resume --existing` / `latest --existing`: the agent has no checkpoint (a typo, or not the worker you meant). */
  unknownAgent: 4,
  /** `--env-file FILE` cannot be read (missing, a folder, no permission). */
  envFile: 5,
} as const;
