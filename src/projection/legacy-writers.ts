import * as z from "zod";

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
/** The additive headers that tell a checkpost writer from a 1.0 one (any checkpoint shape has them). */
export interface AdditiveHeaders {
  id?: string | undefined;
  seq?: number | undefined;
  epoch?: number | undefined;
  signature?: string | undefined;
}

export function isLegacyCheckpoint(cp: AdditiveHeaders): boolean {
  return cp.id === undefined && cp.seq === undefined && cp.epoch === undefined && cp.signature === undefined;
}
