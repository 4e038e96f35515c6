// Snapshot settings for the CLI (and the MCP server, which runs the same commands): part of the
// composition root (src/app/), the only place that runs the settings schemas.
import { parseEnv } from "../config/env.ts";
import { SnapshotEnvSchema } from "../config/snapshot-env.ts";
import type { CliIo } from "../cli/io.ts";
import { parseStateKey } from "../snapshot/core/state-key.ts";
import type { SnapshotSettings } from "../snapshot/snapshot-settings.ts";

export function snapshotSettings(io: CliIo): SnapshotSettings {
  const env = parseEnv(SnapshotEnvSchema, io.env);
  const old = (env.CHECKPOST_STATE_OLD_KEYS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    key: env.CHECKPOST_STATE_KEY ? parseStateKey(env.CHECKPOST_STATE_KEY) : null,
    oldKeys: old.map((k, i) => parseStateKey(k, `CHECKPOST_STATE_OLD_KEYS (key ${i + 1})`)),
    chunkBytes: env.CHECKPOST_SNAPSHOT_CHUNK_BYTES,
    maxFileBytes: env.CHECKPOST_SNAPSHOT_MAX_FILE_BYTES,
    maxTotalBytes: env.CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES,
    keep: env.CHECKPOST_SNAPSHOT_KEEP,
  };
}
