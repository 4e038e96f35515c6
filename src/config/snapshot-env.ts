import * as z from "zod";

const bytes = (def: number) => z.coerce.number().int().positive().default(def);

/** The snapshot settings (`checkpost snapshot`, docs/snapshots.md). Every one is listed in .env.example. */
export const SnapshotEnvSchema = z.object({
  /** 32 bytes (64 hex digits or base64): seal every uploaded byte with AES-256-GCM. */
  CHECKPOST_STATE_KEY: z.string().min(1).optional(),
  /** Earlier state keys, comma-separated: what they sealed stays restorable after a rotation. */
  CHECKPOST_STATE_OLD_KEYS: z.string().optional(),
  /** The largest upload; keep it under the reverse proxy's body cap (often 1 MiB). */
  CHECKPOST_SNAPSHOT_CHUNK_BYTES: z.coerce
    .number()
    .int()
    .min(4096, "must be at least 4096")
    .max(64 * 1024 * 1024, "must be at most 64 MiB")
    .default(768 * 1024),
  CHECKPOST_SNAPSHOT_MAX_FILE_BYTES: bytes(256 * 1024 * 1024),
  CHECKPOST_SNAPSHOT_MAX_TOTAL_BYTES: bytes(1024 * 1024 * 1024),
  CHECKPOST_SNAPSHOT_KEEP: z.coerce.number().int().min(1, "must be at least 1 (the snapshot a restore takes)").default(3),
});
export type SnapshotEnv = z.infer<typeof SnapshotEnvSchema>;
