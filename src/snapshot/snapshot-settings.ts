import type { StateKey } from "./core/state-key.ts";

/** Snapshot settings (src/config/snapshot-env.ts reads them from the environment; .env.example lists them). */
export interface SnapshotSettings {
  /** CHECKPOST_STATE_KEY: seal contents and manifests (null: plain, readable by every repository reader). */
  key: StateKey | null;
  /** CHECKPOST_STATE_OLD_KEYS: earlier keys, to restore what they sealed after a rotation. */
  oldKeys: StateKey[];
  /** CHECKPOST_SNAPSHOT_CHUNK_BYTES: the largest upload (default 768 KiB, under a reverse proxy's common 1 MiB cap). */
  chunkBytes: number;
  /** CHECKPOST_SNAPSHOT_MAX_FILE_BYTES. */
  maxFileBytes: number;
  /** CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES. */
  maxTotalBytes: number;
  /** CHECKPOST_SNAPSHOT_KEEP: snapshots kept per agent+session; older ones are deleted after each save. */
  keep: number;
}

export const DEFAULT_SNAPSHOT_SETTINGS: SnapshotSettings = {
  key: null,
  oldKeys: [],
  chunkBytes: 768 * 1024,
  maxFileBytes: 256 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  keep: 3,
};
