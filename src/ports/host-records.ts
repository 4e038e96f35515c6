/**
 * The issue host port's records (issue 31): neutral and camelCase, what every adapter maps its host's
 * answers to. Types only. The port itself, by intent, is src/ports/issue-host.ts, which re-exports these.
 */
/** owner/repo of the repository holding the session issue. */
export interface RepoRef {
  owner: string;
  repo: string;
}

export interface HostUser {
  id: number;
  login: string;
  /** A site administrator (set when the host says so; absent otherwise). */
  isAdmin?: boolean;
}

/** A label, known by its name (hosts number labels differently, or not at all). */
export interface HostLabel {
  name: string;
  color?: string;
}

export interface HostIssue {
  id: number;
  number: number;
  title: string;
  /** "" when the issue has no body. */
  body: string;
  state: string;
  htmlUrl: string;
  /** The login of who opened it. */
  author: string;
  labels: HostLabel[];
  /** How many comments the issue has, when the host says. */
  commentCount?: number;
  createdAt: string;
  updatedAt: string;
  /** Set while the issue is closed; a chain walk reads the tail of comments from it. */
  closedAt?: string | null;
  /** The host lists pull requests among issues unless asked not to. */
  isPullRequest: boolean;
}

export interface HostComment {
  id: number;
  body: string;
  /** The login of who wrote it. */
  author: string;
  htmlUrl: string;
  /** The web URL of the issue it is on ("" for a pull request; absent when the host does not say). */
  issueUrl?: string;
  createdAt: string;
  updatedAt: string;
}

export interface HostAttachment {
  id: number;
  name: string;
  size: number;
  createdAt: string;
  /** Where its bytes are (same host, same token): pass to `downloadAttachment`. */
  downloadUrl: string;
}

/** A repository webhook, in the port's words: where it delivers and what. */
export interface HostWebhook {
  id: number;
  /** Where it delivers ("" when the host does not say). */
  url: string;
  active: boolean;
  /** The events it delivers, as the host lists them (a host may expand "issues" into several). */
  events: string[];
  /** How it encodes a payload ("json", "form"), when the host says. */
  contentType?: string;
}

/** The events the bot reads: an issue's changes and its comments (GitHub and Forgejo name them alike). */
export type WebhookEvent = "issues" | "issue_comment";

/** A user's access to a repository, in the port's words: an owner reads as "admin". */
export type RepoAccess = "admin" | "write" | "read" | "none";

/** Whether a user may write a repository's issues (so may command the bot), as far as the token can tell. */
export interface IssueWriteAccess {
  canWrite: boolean;
  /**
   * Groups (teams) that may write issues but whose members the token may not read: a user refused may be
   * in one of them. Empty when the answer is certain.
   */
  hiddenGroups: string[];
}

export interface HostRepo {
  id: number;
  fullName: string;
  private: boolean;
  /** The token user's access to it, when signed in. */
  access?: RepoAccess;
}

export type IssueState = "open" | "closed" | "all";

/** Which session issues `findSessionIssues` answers: every condition given must hold. */
export interface SessionIssueQuery {
  /** The title contains this. */
  title?: string;
  /** The issue carries this label (checked on the issue, not only asked of the host). */
  label?: string;
  /** Default "open". */
  state?: IssueState;
}

/** An issue's body as the dashboard reads and writes it. */
export interface IssueBody {
  /** "" when the issue has no body. */
  body: string;
  updatedAt: string;
  /** Who opened the issue. */
  author: string;
}

/** What an attachment hangs on: the issue itself, or one of its comments. */
export type AttachTarget = { issue: number } | { comment: number };

/**
 * A window of a comment list on the UPDATED time, in ms since the epoch; the host compares whole
 * seconds and includes both ends, so callers dedupe what a boundary second returns twice.
 */
export interface CommentWindow {
  /** Updated at or after. */
  sinceMs?: number;
  /** Updated at or before (an adapter whose host cannot bound a list above filters the answer itself). */
  untilMs?: number;
}

/**
 * What a host can and cannot do, as flags (issue 31): code that needs a feature asks here, never which
 * host it is talking to. A suite case that needs a feature is skipped by the flag, never by host name.
 */
export interface HostCapabilities {
  /** The host keeps a comment's earlier bodies, so an edited record can be audited (Forgejo, GitHub: yes). */
  editHistory: boolean;
  /** Files can be attached to an issue through the API: compaction's archives, snapshots (Forgejo: yes; GitHub: no). */
  attachments: boolean;
  /** A token can be limited to the one repository (Forgejo 13: no, its scopes are by kind; GitHub's fine-grained tokens: yes). */
  repositoryScopedTokens: boolean;
  /** An issue's comment list comes in pages the adapter follows (GitHub: per_page ≤ 100 and Link); Forgejo answers it whole. */
  pagedCommentLists: boolean;
  /** A comment list can be bounded above by updated time (`CommentWindow.untilMs`), not only below (GitHub: `since` only). */
  commentsUntil: boolean;
  /** A body can be written only if unchanged since it was read. Neither Forgejo nor GitHub: writers re-read instead. */
  compareAndSetBody: boolean;
  /**
   * Rights on issues can be granted apart from rights on the code, so a user whose repository access reads
   * as "read" may still write issues and command the bot (Forgejo's team units: issues write, code read;
   * mayCommand walks the teams). GitHub: no, writing issues comes with the write role.
   */
  issueRightsApartFromCode: boolean;
}
