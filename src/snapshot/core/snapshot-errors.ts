import { CheckpostError } from "../../errors.ts";

/** A file whose stored prefix was rewritten, shortened or removed: refused, the last good snapshot stays restorable. */
export class SnapshotDivergentError extends CheckpostError {
  override name = "SnapshotDivergentError";
  constructor(readonly files: { path: string; why: string }[]) {
    super(
      `snapshot refused: ${files.map((f) => `${f.path} (${f.why})`).join("; ")} no longer extends what the last snapshot stored. ` +
        "The last snapshot stays restorable. Pass --force to publish these files as a full replacement, or restore the last snapshot first.",
    );
  }
}

/** History names a snapshot whose parts are gone: never restored partially, never silently started fresh. */
export class SnapshotOutOfSyncError extends CheckpostError {
  override name = "SnapshotOutOfSyncError";
}

/** A sealed snapshot without its key, with a wrong key, or with bytes that do not authenticate. */
export class SnapshotKeyError extends CheckpostError {
  override name = "SnapshotKeyError";
}

/** A file or the total over the configured limits; the message names both settings. */
export class SnapshotLimitError extends CheckpostError {
  override name = "SnapshotLimitError";
}

/** The writer's epoch is below the agent's fence: a zombie instance's snapshot is refused. */
export class SnapshotFencedError extends CheckpostError {
  override name = "SnapshotFencedError";
}

/** Another `snapshot save` of the same agent+session holds the lock on this machine. */
export class SnapshotBusyError extends CheckpostError {
  override name = "SnapshotBusyError";
}

/** The issue host has no attachment API (capabilities.attachments false): snapshots are off there. */
export class SnapshotsOffError extends CheckpostError {
  override name = "SnapshotsOffError";
  constructor() {
    super(
      "the issue host has no API to attach a file to a comment, so snapshots (files kept as attachments) are off there: nothing was written. " +
        "Keep the agent's state elsewhere, or run the session on a host whose API takes attachments (Forgejo).",
    );
  }
}
