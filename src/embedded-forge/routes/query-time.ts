/** context.GetQueryBeforeSince: RFC 3339 query times as unix seconds (0 = unset); bad input → 422. */
import { apiError } from "../api-error.ts";
import type { RequestContext } from "../context.ts";
import { parseRfc3339ToUnix } from "../time.ts";

function parseFormTime(ctx: RequestContext, name: string): number {
  const value = (ctx.url.searchParams.get(name) ?? "").trim();
  if (value.length === 0) return 0;
  const unix = parseRfc3339ToUnix(value);
  if (unix === null) {
    throw apiError(ctx.forge.baseUrl, 422, `parsing time "${value}" as "2006-01-02T15:04:05Z07:00": cannot parse "${value}" as "2006"`);
  }
  return unix;
}

export function beforeSince(ctx: RequestContext): { before: number; since: number } {
  const before = parseFormTime(ctx, "before");
  const since = parseFormTime(ctx, "since");
  return { before, since };
}
