export type {
  ChangeListener,
  ApplyResult,
  BotState,
  CommandClaims,
  CommentLog,
  CommentQuery,
  EntryView,
  FeedCursor,
  Fence,
  IssueBookkeeping,
  IssueKey,
  IssueMeta,
  Lease,
  LeaseStore,
  ProjectionStore,
  ProjectionStoreOptions,
  ReplicaStore,
  StoredComment,
  Watermark,
  WriteLogRow,
} from "./projection-store.ts";
export { IssueMetaSchema } from "./projection-store.ts";
export { StaleLeaseError } from "./stale-lease-error.ts";
export { issueKey } from "./issue-key.ts";
export { createSqliteProjectionStore } from "./sqlite-projection-store.ts";
export { createMemoryProjectionStore } from "./memory-projection-store.ts";
export { foldStoredComment } from "./fold-stored-comment.ts";
export { advanceWatermark } from "./advance-watermark.ts";
export { isProtocolBody } from "./is-protocol-body.ts";
export { rebuildIssue } from "./rebuild-issue.ts";
export { parseSealedState, restoreStoredState } from "./sealed-state.ts";
export { ChangesUnheardError } from "./changes-unheard-error.ts";
