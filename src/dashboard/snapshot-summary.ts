import type { AgentEntry } from "../projection/index.ts";
import { formatAge } from "./format-age.ts";

/** An entry's latest snapshot as the dashboard and `checkpost status` show it (the [SNAPSHOT] kind's projection). */
export interface SnapshotShown {
  files: number;
  bytes: number;
  /** Key id, or null: stored in plain text. */
  sealed: string | null;
  createdAt: string;
  commentId: number;
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** The entry's latest snapshot, or null (none, or a projection value of another shape). */
export function snapshotOf(entry: AgentEntry): SnapshotShown | null {
  const k = entry.kinds?.["snapshot"];
  const v = k?.value;
  if (!k || typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const { files, bytes, sealed } = v as Record<string, unknown>;
  if (!isNum(files) || !isNum(bytes) || !(sealed === null || typeof sealed === "string")) return null;
  return { files, bytes, sealed, createdAt: k.createdAt, commentId: k.commentId };
}

/** "12.1 MiB", "800 KiB", "42 B". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** "3 files, 12.1 MiB, sealed, 5m ago" (the age matches AGE_PATTERN, so time alone causes no dashboard write). */
export function formatSnapshotSummary(s: SnapshotShown, now: Date): string {
  return `${s.files} file${s.files === 1 ? "" : "s"}, ${formatBytes(s.bytes)}, ${s.sealed ? "sealed" : "not sealed"}, ${formatAge(now.getTime() - Date.parse(s.createdAt))}`;
}
