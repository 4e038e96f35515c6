/**
 * issue_service.SetIssueUpdateDate (services/issue/issue.go:333-362): the optional `updated_at` of an issue,
 * comment or label write, or the multipart field of an upload. Only a repository admin or owner may set it
 * (403 "user needs to have admin or owner right"), and only between the issue's creation and now (403
 * "unallowed update date"). When set, the writes of that request use it instead of now (NoAutoTime:
 * models/issues/issue_update.go:36-43, comment.go:1167-1174).
 */
import { accessMode, isRepoAdmin } from "../access.ts";
import { apiError } from "../api-error.ts";
import type { RequestContext } from "../context.ts";
import { parseRfc3339ToUnix } from "../time.ts";
import type { IssueRow, RepoRow, UserRow } from "../types.ts";

/** The time this request's writes carry: the admin's `updated_at` when given, else now. */
export function updateTime(ctx: RequestContext, repo: RepoRow, issue: IssueRow, doer: UserRow, updated: string | undefined): { at: () => number; noAutoTime: boolean } {
  if (updated === undefined || updated === "") return { at: () => ctx.forge.nowUnix(), noAutoTime: false };
  const unix = parseRfc3339ToUnix(updated);
  // encoding/json's time.Time UnmarshalJSON fails on anything but RFC 3339: a binding error.
  if (unix === null) throw apiError(ctx.forge.baseUrl, 422, `parsing time "\\"${updated}\\"" as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse "${updated}" as "2006"`);
  if (!isRepoAdmin(accessMode(ctx.forge, repo, doer))) throw apiError(ctx.forge.baseUrl, 403, "user needs to have admin or owner right");
  if (unix < issue.created_unix || unix > ctx.forge.nowUnix()) throw apiError(ctx.forge.baseUrl, 403, "unallowed update date");
  return { at: () => unix, noAutoTime: true };
}
