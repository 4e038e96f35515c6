import * as z from "zod";
import { JsonValueSchema } from "../protocol/index.ts";
import type { Projection, SealedEntry, SealedState } from "../projection/index.ts";

/**
 * The stored projection state is read back through this schema (a boundary:
 * another checkpost version may have written it). The fold's records are the
 * projection's own plain data; their shape is checked at the top level only,
 * and a state that does not parse is ignored (the restart then parses every comment).
 */
const FoldSchema = z
  .object({
    agent: z.string(),
    session: z.string(),
    anomalies: z.array(z.object({ kind: z.string(), commentId: z.number() }).passthrough()),
    counts: z.object({ checkpoints: z.number(), health: z.number(), invalid: z.number(), untrusted: z.number() }),
    firstById: z.array(z.tuple([z.string(), z.number()])),
    maxEpoch: z.number(),
    prevSeq: z.object({ seq: z.number(), id: z.string().optional() }).nullable(),
    latestRecord: z
      .object({ kind: z.literal("checkpoint"), commentId: z.number() })
      .passthrough()
      .nullable(),
    healthRecord: z
      .object({ kind: z.literal("health"), commentId: z.number() })
      .passthrough()
      .nullable(),
    signals: z.array(z.number()),
    believed: z.array(z.object({ kind: z.literal("checkpoint"), commentId: z.number() }).passthrough()),
    control: z.object({ paused: z.unknown(), hidden: z.unknown(), pending: z.unknown() }),
    refused: z.array(z.object({ commentId: z.number(), reason: z.string() }).passthrough()),
    // Kinds projected through their `project` hook; absent in states written before there were any.
    kinds: z.record(z.string(), z.object({ commentId: z.number(), createdAt: z.string(), value: JsonValueSchema })).default({}),
  })
  .passthrough();

function isColdList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const t of v as unknown[]) {
    if (!Array.isArray(t) || t.length !== 4) return false;
    const [id, ms, hash, multi] = t as unknown[];
    if (!Number.isSafeInteger(id) || (id as number) <= 0 || typeof ms !== "number" || typeof hash !== "string" || typeof multi !== "boolean") return false;
  }
  return true;
}

const SealedStateSchema = z.object({
  v: z.literal(1),
  policy: z.string(),
  entries: z.array(
    z.object({
      key: z.string(),
      agent: z.string(),
      session: z.string(),
      sealedUpTo: z.number().int().min(0),
      fold: FoldSchema,
      // Checked in place, not copied (50,000 tuples at 50,000 comments: zod's copy doubled the restart's garbage).
      cold: z.custom<[number, number, string, boolean][]>(isColdList, "must be [id, updatedMs, hash, multi] tuples"),
    }),
  ),
});

/** Parse a stored projection state; null when it is not one this version reads. */
export function parseSealedState(text: string): SealedState | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const r = SealedStateSchema.safeParse(json);
  // The records inside the folds are the projection's own output (checked above at their top level).
  return r.success ? { v: 1, policy: r.data.policy, entries: r.data.entries as unknown as SealedEntry[] } : null;
}

/**
 * Give a projection its stored state back (a restart). The state's text and its JSON are garbage once
 * this returns, not held through the restart's read of the store (≈ 6 MiB at 50,000 comments).
 */
export function restoreStoredState(projection: Pick<Projection, "restoreSealed">, text: string | null): "none" | "restored" | "unusable" {
  if (text === null) return "none";
  const sealed = parseSealedState(text);
  return sealed && projection.restoreSealed(sealed) ? "restored" : "unusable";
}
