export type { ApplyResult, Fence, IssueKey, IssueMeta, Lease, ProjectionStore, ProjectionStoreOptions, StoredComment, Watermark } from "./projection-store.ts";
export { IssueMetaSchema } from "./projection-store.ts";
export { StaleLeaseError } from "./stale-lease-error.ts";
export { issueKey } from "./issue-key.ts";
