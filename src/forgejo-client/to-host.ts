import type { HostAttachment, HostComment, HostWebhook, HostIssue, HostLabel, HostRepo, HostUser } from "../ports/issue-host.ts";
import type { ForgejoAttachment, ForgejoComment, ForgejoHook, ForgejoIssue, ForgejoLabel, ForgejoRepo, ForgejoUser } from "./schemas.ts";

/**
 * Forgejo's validated answers (schemas.ts) mapped to the IssueHost port's neutral records: the only
 * place that knows Forgejo's field names. Optional fields are left out, not set to undefined, so a
 * record compares equal to one built by hand.
 */
export const toHostUser = (u: ForgejoUser): HostUser => ({ id: u.id, login: u.login, ...(u.is_admin === undefined ? {} : { isAdmin: u.is_admin }) });

export const toHostLabel = (l: ForgejoLabel): HostLabel => ({ name: l.name, ...(l.color === undefined ? {} : { color: l.color }) });

export const toHostIssue = (i: ForgejoIssue): HostIssue => ({
  id: i.id,
  number: i.number,
  title: i.title,
  body: i.body,
  state: i.state,
  htmlUrl: i.html_url,
  author: i.user.login,
  labels: i.labels.map(toHostLabel),
  ...(i.comments === undefined ? {} : { commentCount: i.comments }),
  createdAt: i.created_at,
  updatedAt: i.updated_at,
  ...(i.closed_at === undefined ? {} : { closedAt: i.closed_at }),
  // Forgejo sets pull_request (an object) on pull requests and null or nothing on issues.
  isPullRequest: Boolean(i.pull_request),
});

export const toHostComment = (c: ForgejoComment): HostComment => ({
  id: c.id,
  body: c.body,
  author: c.user.login,
  htmlUrl: c.html_url,
  ...(c.issue_url === undefined ? {} : { issueUrl: c.issue_url }),
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

export const toHostAttachment = (a: ForgejoAttachment): HostAttachment => ({ id: a.id, name: a.name, size: a.size, createdAt: a.created_at, downloadUrl: a.browser_download_url });

export const toHostWebhook = (h: ForgejoHook): HostWebhook => ({
  id: h.id,
  url: h.config?.["url"] ?? "",
  active: h.active,
  events: h.events,
  ...(h.config?.["content_type"] === undefined ? {} : { contentType: h.config["content_type"] }),
});

export const toHostRepo = (r: ForgejoRepo): HostRepo => ({
  id: r.id,
  fullName: r.full_name,
  private: r.private,
  ...(r.permissions === undefined ? {} : { access: r.permissions.admin ? "admin" : r.permissions.push ? "write" : r.permissions.pull ? "read" : "none" }),
});
