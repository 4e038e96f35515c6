// The clock (issue 31, item 6): besides the composition root (src/app/), the one module that reads the
// system time. Everything else takes a clock from its caller, so a test can drive time and a replica's
// view of "now" has one source; test/unit/import-rules.test.ts fails on a new Date.now() or
// argument-less new Date() anywhere else. These are the defaults a caller passes or falls back to.

/** A clock: the current instant. */
export type Clock = () => Date;

/** A clock in ms since the epoch, for modules that reason in numbers (stores, leases, caches). */
export type MsClock = () => number;

/** The system clock. Read at each call (never captured), so vitest's fake timers drive it. */
export const systemClock: Clock = () => new Date();

/** The system clock in ms since the epoch. */
export const systemMs: MsClock = () => Date.now();
