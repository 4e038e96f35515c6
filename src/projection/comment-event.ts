import * as z from "zod";
import { LegacyWritersSchema } from "./legacy-writers.ts";
import type { LegacyWriters } from "./legacy-writers.ts";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";

/** RFC 3339 time as Forgejo sends it ("2026-11-29T10:00:00Z" or with an offset). */
const ServerTime = lazySchema(() => z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an RFC 3339 time"));

/** One issue comment as the projection needs it (a subset of Forgejo's `Comment`). */
export const CommentRecordSchema = lazySchema(() =>
  z.object({
    id: z.number().int().positive(),
    author: z.string(),
    body: z.string(),
    createdAt: builtSchema(ServerTime),
    updatedAt: builtSchema(ServerTime),
    htmlUrl: z.string().optional(),
  }),
);
export type CommentRecord = z.infer<typeof CommentRecordSchema>;

/**
 * What the projection folds. `upsert` covers created, edited and "seen in a
 * list"; `delete` tombstones the id for good (Forgejo never reuses ids).
 */
export const CommentEventSchema = lazySchema(() =>
  z.discriminatedUnion("type", [z.object({ type: z.literal("upsert"), comment: builtSchema(CommentRecordSchema) }), z.object({ type: z.literal("delete"), commentId: z.number().int().positive() })]),
);
export type CommentEvent = z.infer<typeof CommentEventSchema>;

/** Who is believed. Logins compare case-insensitively. */
export interface TrustPolicy {
  trustedAuthors: ReadonlySet<string>;
  /** When set, only checkpoints whose `Signature:` verifies with this key are believed. */
  signingKey?: string;
  /** A legacy (1.0) writer's checkpoint below a raised epoch fence: a zombie (`fence`, the default) or believed (`accept`). */
  legacyWriters?: LegacyWriters;
}

export const TrustPolicySchema = lazySchema(() =>
  z.object({
    trustedAuthors: z.custom<ReadonlySet<string>>((v) => v instanceof Set && [...(v as Set<unknown>)].every((x) => typeof x === "string"), "must be a Set of logins"),
    signingKey: z.string().min(1).optional(),
    legacyWriters: LegacyWritersSchema.optional(),
  }),
);
