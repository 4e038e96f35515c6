import * as z from "zod";

/** One stored chunk: its content address, the comment whose attachment holds it, its plain size, the key that sealed it. */
export const ChunkRefSchema = z.object({
  n: z.string().regex(/^[0-9a-f]{64}$/),
  c: z.number().int().positive(),
  s: z.number().int().nonnegative(),
  k: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
});
export type ChunkRef = z.infer<typeof ChunkRefSchema>;

/**
 * A path as stored: relative, "/"-separated, no "." or ".." part, no empty part. A manifest that names
 * anything else is refused before a byte is written (a planted manifest cannot write outside --into).
 */
export const SnapshotPathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.startsWith("/") && !p.includes("\\") && !p.includes("\0") && p.split("/").every((s) => s !== "" && s !== "." && s !== ".."), {
    message: "must be a relative path inside the snapshot, without '..'",
  });

export const FileEntrySchema = z.object({
  path: SnapshotPathSchema,
  /** "file": any file, tails of append-only files uploaded alone; "sqlite": an online backup, checked with quick_check. */
  kind: z.enum(["file", "sqlite"]),
  size: z.number().int().nonnegative(),
  /** Permission bits (0o644…). */
  mode: z.number().int().min(0).max(0o7777),
  /** The local file's modification time when it was read (ms since the epoch). */
  mtimeMs: z.number(),
  /** sha256 of the whole content (inside a sealed manifest, so the forge never sees it). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The chunks, in order; their sizes add up to `size`. */
  chunks: z.array(ChunkRefSchema),
  /** The prefix proof of a file that extends its stored version: the first `size` bytes had this sha256. */
  extends: z.object({ size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
});
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** What a snapshot's manifest holds (the [SNAPSHOT] comment names it; it is sealed when a state key is set). */
export const ManifestSchema = z.object({
  v: z.literal(1),
  agent: z.string().min(1),
  session: z.string().min(1),
  /** The writer's epoch: a snapshot below the agent's fence is a zombie's. */
  epoch: z.number().int().nonnegative(),
  /** When the writer took it (ISO, the writer's clock). */
  created: z.string(),
  /** The key id that sealed it, or null. */
  key: z.string().nullable(),
  files: z.array(FileEntrySchema),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** Sum of the files' sizes. */
export const manifestBytes = (m: Pick<Manifest, "files">) => m.files.reduce((n, f) => n + f.size, 0);
