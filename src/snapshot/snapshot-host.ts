import type { HostAttachment, IssueHost, RepoRef } from "../ports/issue-host.ts";

/** What snapshots need from the issue host besides the session store's calls: attachments of comments. */
export interface CommentAttachments {
  listCommentAttachments(r: RepoRef, id: number): Promise<HostAttachment[]>;
  /** Not retried: a retry after a lost answer would upload twice. */
  createCommentAttachment(r: RepoRef, id: number, name: string, bytes: Uint8Array, contentType?: string): Promise<HostAttachment>;
}

/** The Forgejo client (src/forgejo-client/ForgejoApi) is one. */
export type SnapshotHost = IssueHost & CommentAttachments;
