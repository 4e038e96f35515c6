import { z } from "zod";
import { AgentNameSchema, CheckpointIdSchema, EpochSchema, SeqSchema, SessionIdSchema } from "../protocol/index.ts";
import { directiveOf } from "../projection/index.ts";
import type { ProjectionSnapshot } from "../projection/index.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN } from "./markers.ts";

const CommentId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const ResumeIndexEntrySchema = z.object({
  agent: AgentNameSchema,
  session: SessionIdSchema,
  /** The comment holding this agent+session's resume point. */
  commentId: CommentId,
  id: CheckpointIdSchema.optional(),
  seq: SeqSchema.optional(),
  epoch: EpochSchema.optional(),
  /** Highest epoch seen for this agent+session, so a cold reader can spot a zombie in the tail. */
  maxEpoch: EpochSchema,
  /** `[CONTROL]` comments in effect (pause, hide, pending rewind/release), which a cold reader reads with the pointed comment. */
  controls: z.array(CommentId).max(3).optional(),
  /** The directive those controls give (a hint: `save` re-reads and verifies the comment). */
  directive: z.object({ kind: z.enum(["pause", "rewind", "release"]), commentId: CommentId }).optional(),
});

/**
 * A hint for cold readers: where each agent+session's resume point is and how
 * far the bot had read. Checked for internal consistency; the reader still
 * verifies the comment it points to.
 */
export const ResumeIndexSchema = z
  .object({
    v: z.literal(1),
    watermark: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    watermarkUpdatedAt: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be a time").optional(),
    entries: z.array(ResumeIndexEntrySchema).max(10_000),
  })
  .superRefine((ix, ctx) => {
    const seen = new Set<string>();
    ix.entries.forEach((e, i) => {
      const key = JSON.stringify([e.agent, e.session]);
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["entries", i], message: "duplicate agent+session" });
      seen.add(key);
      if (e.commentId > ix.watermark) ctx.addIssue({ code: "custom", path: ["entries", i, "commentId"], message: "beyond the watermark" });
      if ((e.epoch ?? 0) > e.maxEpoch) ctx.addIssue({ code: "custom", path: ["entries", i, "epoch"], message: "above maxEpoch" });
    });
  });
export type ResumeIndex = z.infer<typeof ResumeIndexSchema>;
export type ResumeIndexEntry = z.infer<typeof ResumeIndexEntrySchema>;

/** The index of a snapshot: one entry per agent+session that has a resume point, in snapshot order. */
export function buildResumeIndex(snapshot: ProjectionSnapshot): ResumeIndex {
  const entries: ResumeIndexEntry[] = [];
  for (const e of snapshot.entries) {
    const l = e.latest;
    if (!l) continue;
    const c = e.control;
    const controls = c ? [c.paused, c.hidden, c.pending].filter((x) => x !== null).map((x) => x.commentId) : [];
    const d = directiveOf(e);
    entries.push({
      agent: e.agent,
      session: e.session,
      commentId: l.commentId,
      ...(l.id !== undefined ? { id: l.id } : {}),
      ...(l.seq !== undefined ? { seq: l.seq } : {}),
      ...(l.epoch !== undefined ? { epoch: l.epoch } : {}),
      maxEpoch: e.maxEpoch,
      ...(controls.length ? { controls } : {}),
      ...(d ? { directive: { kind: d.kind, commentId: d.commentId } } : {}),
    });
  }
  return {
    v: 1,
    watermark: snapshot.watermark,
    ...(snapshot.watermarkUpdatedAt !== null ? { watermarkUpdatedAt: snapshot.watermarkUpdatedAt } : {}),
    entries,
  };
}

/**
 * The index as one HTML comment line. `<`, `>` and `&` are written as JSON
 * `\u` escapes, so no name can close the comment or fake a marker.
 */
export function formatResumeIndex(index: ResumeIndex): string {
  const json = JSON.stringify(index).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `${RESUME_INDEX_OPEN}${json}${RESUME_INDEX_CLOSE}`;
}
