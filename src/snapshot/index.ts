// Snapshots of an agent's native state (docs/snapshots.md): the library's entry points.
export { saveSnapshot } from "./save-snapshot.ts";
export type { SaveSnapshotOptions, SaveSnapshotResult } from "./save-snapshot.ts";
export { restoreSnapshot } from "./restore-snapshot.ts";
export type { RestoreSnapshotOptions, RestoreSnapshotResult, RestoredFile } from "./restore-snapshot.ts";
export { readSnapshotHistory } from "./snapshot-history.ts";
export type { SnapshotComment, SnapshotHistory } from "./snapshot-history.ts";
export { DEFAULT_SNAPSHOT_SETTINGS } from "./snapshot-settings.ts";
export type { SnapshotSettings } from "./snapshot-settings.ts";
export { parseStateKey } from "./core/state-key.ts";
export type { StateKey } from "./core/state-key.ts";
export { ManifestSchema, FileEntrySchema, ChunkRefSchema } from "./core/manifest.ts";
export type { Manifest, FileEntry, ChunkRef } from "./core/manifest.ts";
export { SnapshotBusyError, SnapshotDivergentError, SnapshotFencedError, SnapshotKeyError, SnapshotLimitError, SnapshotOutOfSyncError, SnapshotsOffError } from "./core/snapshot-errors.ts";
