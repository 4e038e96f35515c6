import type { IssueHost, RepoRef } from "../ports/issue-host.ts";
import { ForgejoApiError } from "../errors.ts";
import { extractResumeIndex, extractResumeIndexFromComment, extractResumeIndexRef, resumeIndexScope } from "../dashboard/index.ts";
import type { ResumeIndexSigning } from "../dashboard/index.ts";
import { commentOnIssue } from "./comment-on-issue.ts";
import { parseComment, verifyControlSignature } from "../protocol/index.ts";
import type { Directive, TrustPolicy } from "../projection/index.ts";

/**
 * The directive the issue's resume index names for agent+session, verified:
 * the `[CONTROL]` comment it points to must exist, be of this agent+session,
 * unedited, by a trusted author and (with a key) signed. Costs one read of
 * the issue, plus one of the comment when the index names a directive. A
 * forged or stale hint yields null, never a directive nobody trusted gave.
 */
export async function readDirective(
  api: IssueHost,
  repo: RepoRef,
  issue: number,
  agent: string,
  session: string,
  /** Asked for only when the index names a directive (it may cost a GET /user). */
  policy: () => TrustPolicy | Promise<TrustPolicy>,
): Promise<{ directive: Directive | null; maxEpoch: number }> {
  const meta = await api.getIssue(repo, issue);
  // A small index is in the body; a large one in the comment the body points to (one more read, only then).
  const ref = extractResumeIndex(meta.body) ? null : extractResumeIndexRef(meta.body);
  let holder = meta.body;
  if (ref) {
    try {
      const c = await api.getComment(repo, ref.comment);
      holder = commentOnIssue(c, repo, issue) ? c.body : "";
    } catch (e) {
      if (!(e instanceof ForgejoApiError && e.status === 404)) throw e;
      holder = "";
    }
  }
  const read = (signing?: ResumeIndexSigning) => (ref ? extractResumeIndexFromComment(holder, signing ? { signing } : {}) : extractResumeIndex(holder, signing ? { signing } : {}));
  let entry = read()?.entries.find((e) => e.agent === agent && e.session === session);
  if (!entry?.directive) return { directive: null, maxEpoch: entry?.maxEpoch ?? 0 };
  const { trustedAuthors, signingKey } = await policy();
  if (signingKey) {
    // With a key, only the bot's signed index is believed (docs/security.md).
    entry = read({ key: signingKey, scope: resumeIndexScope(repo.owner, repo.repo, issue) })?.entries.find((e) => e.agent === agent && e.session === session);
    if (!entry?.directive) return { directive: null, maxEpoch: entry?.maxEpoch ?? 0 };
  }
  const maxEpoch = entry.maxEpoch;
  const directiveRef = entry.directive;
  let comment: Awaited<ReturnType<IssueHost["getComment"]>>;
  try {
    comment = await api.getComment(repo, directiveRef.commentId);
  } catch (e) {
    if (e instanceof ForgejoApiError && e.status === 404) return { directive: null, maxEpoch };
    throw e;
  }
  const p = parseComment(comment.body);
  if (!commentOnIssue(comment, repo, issue)) return { directive: null, maxEpoch };
  if (p.kind !== "control" || p.control.agent !== agent || p.control.session !== session) return { directive: null, maxEpoch };
  const c = p.control;
  const kind = directiveRef.kind;
  const actionFits = kind === "pause" ? c.action === "pause" : c.action === kind;
  const trusted = trustedAuthors.has(comment.author.toLowerCase()) && comment.updatedAt === comment.createdAt;
  if (!actionFits || !trusted || (signingKey !== undefined && !verifyControlSignature(c, signingKey))) return { directive: null, maxEpoch };
  return {
    directive: {
      kind,
      commentId: comment.id,
      action: c.action,
      by: c.by ?? null,
      at: new Date(Date.parse(comment.createdAt)).toISOString(),
      ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
      ...(c.target !== undefined ? { to: { commentId: c.target, ...(c.targetId !== undefined ? { id: c.targetId } : {}) } } : {}),
      ...(comment.htmlUrl ? { htmlUrl: comment.htmlUrl } : {}),
    },
    maxEpoch,
  };
}
