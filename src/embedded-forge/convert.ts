/**
 * Rendering of rows to Forgejo v13 API structs (modules/structs + services/convert), keys in Go struct order.
 */
import { createHash } from "node:crypto";
import { GO_ZERO_TIME, rfc3339 } from "./time.ts";
import type { ForgeStore } from "./store-sqlite.ts";
import type { AccessMode, AttachmentRow, CommentRow, HookRow, IssueRow, LabelRow, RepoRow, UserRow } from "./types.ts";

export interface Renderer {
  store: ForgeStore;
  /** http://127.0.0.1:PORT (no trailing slash). */
  baseUrl: string;
}

function domainOf(baseUrl: string): string {
  return new URL(baseUrl).hostname;
}

/**
 * convert.ToUser: without a doer the e-mail is the placeholder "<lower>@noreply.<DOMAIN>", "active" false and
 * last_login the zero time; a doer that is the user or a site admin sees the private fields.
 */
export function toApiUser(r: Renderer, u: UserRow, doer: UserRow | null): Record<string, unknown> {
  const signed = doer !== null;
  const authed = signed && (doer.is_admin === 1 || doer.id === u.id);
  const lower = u.login.toLowerCase();
  return {
    id: u.id,
    login: u.login,
    login_name: "",
    source_id: 0,
    full_name: u.full_name,
    email: signed ? u.email : `${lower}@noreply.${domainOf(r.baseUrl)}`,
    avatar_url: `${r.baseUrl}/avatars/${createHash("md5").update(u.email.toLowerCase()).digest("hex")}`,
    html_url: `${r.baseUrl}/${u.login}`,
    language: authed ? "en-US" : "",
    is_admin: authed ? u.is_admin === 1 : false,
    last_login: authed ? rfc3339(u.created_unix) : GO_ZERO_TIME,
    created: rfc3339(u.created_unix),
    restricted: false,
    active: authed,
    prohibit_login: false,
    location: "",
    pronouns: "",
    website: "",
    description: "",
    visibility: "public",
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: u.login,
  };
}

export function toApiLabel(r: Renderer, l: LabelRow, repo: RepoRow): Record<string, unknown> {
  const owner = r.store.userById(repo.owner_id)!;
  return {
    id: l.id,
    name: l.name,
    exclusive: l.exclusive === 1,
    is_archived: l.is_archived === 1,
    color: l.color,
    description: l.description,
    url: `${r.baseUrl}/api/v1/repos/${owner.login}/${repo.name}/labels/${l.id}`,
  };
}

/** convert.ToRepo's permissions: admin = mode >= Admin, push = mode >= Write, pull = mode >= Read. */
export function permissionOf(mode: AccessMode): { admin: boolean; push: boolean; pull: boolean } {
  return { admin: mode === "admin" || mode === "owner", push: mode !== "none" && mode !== "read", pull: mode !== "none" };
}

export function toApiRepo(r: Renderer, repo: RepoRow, mode: AccessMode): Record<string, unknown> {
  const owner = r.store.userById(repo.owner_id)!;
  const full = `${owner.login}/${repo.name}`;
  return {
    id: repo.id,
    owner: toApiUser(r, owner, null),
    name: repo.name,
    full_name: full,
    description: repo.description,
    empty: false,
    private: repo.private === 1,
    fork: false,
    template: false,
    parent: null,
    mirror: false,
    size: 0,
    language: "",
    languages_url: `${r.baseUrl}/api/v1/repos/${full}/languages`,
    html_url: `${r.baseUrl}/${full}`,
    url: `${r.baseUrl}/api/v1/repos/${full}`,
    link: "",
    ssh_url: `git@${new URL(r.baseUrl).hostname}:${full}.git`,
    clone_url: `${r.baseUrl}/${full}.git`,
    original_url: "",
    website: "",
    stars_count: 0,
    forks_count: 0,
    watchers_count: 0,
    open_issues_count: r.store.countOpenIssues(repo.id, false),
    open_pr_counter: r.store.countOpenIssues(repo.id, true),
    release_counter: 0,
    default_branch: "main",
    archived: false,
    created_at: rfc3339(repo.created_unix),
    updated_at: rfc3339(repo.updated_unix),
    archived_at: "1970-01-01T00:00:00Z",
    permissions: permissionOf(mode),
    has_issues: true,
    internal_tracker: {
      enable_time_tracker: true,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: true,
    },
    has_wiki: true,
    wiki_branch: "main",
    globally_editable_wiki: false,
    has_pull_requests: true,
    has_projects: true,
    has_releases: true,
    has_packages: true,
    has_actions: false,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: true,
    allow_rebase_explicit: true,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: true,
    default_delete_branch_after_merge: false,
    default_merge_style: "merge",
    default_allow_maintainer_edit: false,
    default_update_style: "merge",
    avatar_url: "",
    internal: false,
    mirror_interval: "",
    object_format_name: "sha1",
    mirror_updated: GO_ZERO_TIME,
    repo_transfer: null,
    topics: null,
  };
}

/** convert.ToAPIAttachment (services/convert/attachment.go:36-58; keys in Go struct order). */
export function toApiAttachment(r: Renderer, a: AttachmentRow): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    size: a.size,
    download_count: 0,
    created_at: rfc3339(a.created_unix),
    uuid: a.uuid,
    browser_download_url: `${r.baseUrl}/attachments/${a.uuid}`,
    type: "attachment",
  };
}

export function issueHtmlUrl(r: Renderer, repo: RepoRow, issue: IssueRow): string {
  const owner = r.store.userById(repo.owner_id)!;
  return `${r.baseUrl}/${owner.login}/${repo.name}/${issue.is_pull ? "pulls" : "issues"}/${issue.idx}`;
}

export function toApiIssue(r: Renderer, issue: IssueRow, repo: RepoRow, doer: UserRow | null): Record<string, unknown> {
  const owner = r.store.userById(repo.owner_id)!;
  const poster = r.store.userById(issue.poster_id)!;
  const html = issueHtmlUrl(r, repo, issue);
  return {
    id: issue.id,
    url: `${r.baseUrl}/api/v1/repos/${owner.login}/${repo.name}/issues/${issue.idx}`,
    html_url: html,
    number: issue.idx,
    user: toApiUser(r, poster, doer),
    original_author: "",
    original_author_id: 0,
    title: issue.title,
    body: issue.body,
    ref: "",
    // The issue's own attachments (issue.LoadAttributes; ListIssueAttachments returns exactly this list).
    assets: r.store.attachmentsOfIssue(issue.id).map((a) => toApiAttachment(r, a)),
    labels: r.store.labelsOfIssue(issue.id).map((l) => toApiLabel(r, l, repo)),
    milestone: null,
    assignee: null,
    assignees: null,
    state: issue.is_closed ? "closed" : "open",
    is_locked: issue.is_locked === 1,
    comments: issue.num_comments,
    created_at: rfc3339(issue.created_unix),
    updated_at: rfc3339(issue.updated_unix),
    closed_at: issue.is_closed ? rfc3339(issue.closed_unix) : null,
    due_date: null,
    pull_request: issue.is_pull ? { merged: false, merged_at: null, draft: false, html_url: html } : null,
    repository: { id: repo.id, name: repo.name, owner: owner.login, full_name: `${owner.login}/${repo.name}` },
    pin_order: 0,
  };
}

/** convert.ToAPIComment: the poster is rendered without a doer; issue_url is the issue's HTML URL ("" for PRs). */
export function toApiComment(r: Renderer, c: CommentRow, issue: IssueRow, repo: RepoRow, posterCache?: Map<number, Record<string, unknown>>, issueHtml?: string): Record<string, unknown> {
  let user = posterCache?.get(c.poster_id);
  if (!user) {
    user = toApiUser(r, r.store.userById(c.poster_id)!, null);
    posterCache?.set(c.poster_id, user);
  }
  const html = issueHtml ?? issueHtmlUrl(r, repo, issue);
  return {
    id: c.id,
    html_url: `${html}#issuecomment-${c.id}`,
    pull_request_url: issue.is_pull ? html : "",
    issue_url: issue.is_pull ? "" : html,
    user,
    original_author: "",
    original_author_id: 0,
    body: c.body,
    // comment.LoadAttachments: the comment's own attachments (models/repo/attachment.go:174-177).
    assets: r.store.attachmentsOfComment(c.id).map((a) => toApiAttachment(r, a)),
    created_at: rfc3339(c.created_unix),
    updated_at: rfc3339(c.updated_unix),
  };
}

/** The hook's stored (already expanded) event list. */
export function hookEvents(h: HookRow): string[] {
  const parsed: unknown = JSON.parse(h.events);
  return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === "string") : [];
}

/**
 * webhook_service.ToHook (services/webhook/general.go:328-366), keys in api.Hook's order: the
 * authorization header is returned in clear, as Forgejo does; the secret never is. `metadata` is null for
 * every type but slack/discord/… whose metadata this server does not keep.
 */
export function toApiHook(_r: Renderer, h: HookRow): Record<string, unknown> {
  return {
    id: h.id,
    type: h.type,
    branch_filter: h.branch_filter,
    url: h.url,
    config: { content_type: h.content_type, url: h.url },
    events: hookEvents(h),
    authorization_header: h.authorization_header,
    content_type: h.content_type,
    metadata: null,
    active: h.active === 1,
    updated_at: rfc3339(h.updated_unix),
    created_at: rfc3339(h.created_unix),
  };
}
