export { SessionStore, newCheckpointId } from "./session-store.ts";
export type { SessionStoreOptions, SaveInput, SavedCheckpoint, StoredCheckpoint } from "./session-store.ts";
export { locateIssue, listSessionIssues, isSessionIssue } from "./locate-issue.ts";
export { postExactlyOnce } from "./post-exactly-once.ts";
export { coldResume } from "./cold-resume.ts";
export { toCommentRecord } from "./to-comment-record.ts";
export * from "./defaults.ts";
export { readAllComments, forEachCommentBatch } from "./read-all-comments.ts";
export type { ReadAllOptions } from "./read-all-comments.ts";
