export type { ApplyResult, CommentQuery, Fence, IssueKey, IssueMeta, Lease, ProjectionStore, ProjectionStoreOptions, StoredComment, Watermark } from "./projection-store.ts";
export { IssueMetaSchema } from "./projection-store.ts";
export { StaleLeaseError } from "./stale-lease-error.ts";
export { issueKey } from "./issue-key.ts";
export { createSqliteProjectionStore } from "./sqlite-projection-store.ts";
export { foldStoredComment } from "./fold-stored-comment.ts";
export { advanceWatermark } from "./advance-watermark.ts";
export { isProtocolBody } from "./is-protocol-body.ts";
export { rebuildIssue } from "./rebuild-issue.ts";
