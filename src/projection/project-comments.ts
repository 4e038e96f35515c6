import type { CommentRecord, TrustPolicy } from "./comment-event.ts";
import { createProjection } from "./create-projection.ts";
import type { ProjectionOptions } from "./create-projection.ts";
import type { ProjectionSnapshot } from "./projection-snapshot.ts";

/**
 * One-shot fold of a full comment listing (a cold read). The same as feeding
 * every comment to `createProjection(policy).apply` in any order.
 *
 * @example projectComments(await listAllComments(issue), { trustedAuthors: new Set(["ci-bot"]) })
 */
export function projectComments(comments: readonly CommentRecord[], policy: TrustPolicy, options?: ProjectionOptions): ProjectionSnapshot {
  const p = createProjection(policy, options);
  for (const comment of comments) p.apply({ type: "upsert", comment });
  return p.snapshot();
}
