/** How fresh an answer is (issue 18, item 5): what it was read as of, and whether it may be behind Forgejo. */
export interface Freshness {
  /** When the answering process last read (or was told about) the session issue: the answer holds everything up to then. */
  as_of: string | null;
  /** The highest comment id the answer folded, and the newest `updated_at` among them. */
  watermark: number;
  watermark_updated_at: string | null;
  /** The answer may be missing newer comments: nothing confirmed it within `budget_ms`, or nothing was read yet. */
  may_be_stale: boolean;
  /** How old `as_of` may be before the answer may be stale (null: no bound, reads are driven by hand). */
  budget_ms: number | null;
  /** Why it may be stale, in words (absent when it is not). */
  reason?: string;
}

/**
 * Freshness of an answer, pure: `asOf` is when the answering process last
 * read the issue or folded a delivery, `budgetMs` how long that may be ago
 * (a few poll intervals, see the bot's `freshnessBudgetMs`).
 */
export function freshnessOf(o: { asOf: Date | null; watermark: number; watermarkUpdatedAt: string | null; budgetMs: number | null; now: Date }): Freshness {
  const base = { as_of: o.asOf?.toISOString() ?? null, watermark: o.watermark, watermark_updated_at: o.watermarkUpdatedAt, budget_ms: o.budgetMs };
  if (o.asOf === null) return { ...base, may_be_stale: true, reason: "the session issue has not been read yet" };
  const age = o.now.getTime() - o.asOf.getTime();
  if (o.budgetMs !== null && age > o.budgetMs)
    return { ...base, may_be_stale: true, reason: `nothing read from Forgejo for ${Math.round(age / 1000)} s (more than ${Math.round(o.budgetMs / 1000)} s): newer comments may be missing` };
  return { ...base, may_be_stale: false };
}
