import * as z from "zod";
import type { CompactCheckpoint } from "./stored-comment.ts";

/**
 * What readers do with a legacy (1.0) writer's checkpoint that sits below a raised epoch fence
 * (CHECKPOST_LEGACY_WRITERS). `fence`: a zombie like any other, never resumed from (the default).
 * `accept`: believed despite the fence, since such a writer cannot write `Epoch:` at all.
 */
export const LegacyWritersSchema = z.enum(["fence", "accept"]);
export type LegacyWriters = z.infer<typeof LegacyWritersSchema>;
export const DEFAULT_LEGACY_WRITERS: LegacyWriters = "fence";

/**
 * A checkpoint a 1.0 writer (the seed's agents) wrote: none of checkpost's additive headers.
 * checkpost's writers always write `Id:`, so a checkpost checkpoint that merely lacks `Epoch:`
 * (a save that never resumed) is not legacy and stays fenced under either policy.
 */
export function isLegacyCheckpoint(cp: Pick<CompactCheckpoint, "id" | "seq" | "epoch" | "signature">): boolean {
  return cp.id === undefined && cp.seq === undefined && cp.epoch === undefined && cp.signature === undefined;
}
