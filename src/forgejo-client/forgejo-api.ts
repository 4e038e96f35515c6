import { randomUUID } from "node:crypto";
import * as z from "zod";
import type { CommentWindow, HostAttachment, HostComment, HostWebhook, HostIssue, HostLabel, HostRepo, HostUser, IssueState, RepoAccess, RepoRef } from "../ports/issue-host.ts";
import type { HostCapabilities } from "../ports/issue-host.ts";
import { type ForgejoClient, isOutcomeUnknown } from "./forgejo-client.ts";
import { HostError } from "../errors.ts";
import { ForgejoApiError } from "./forgejo-error.ts";
import { forgejoTime } from "./forgejo-time.ts";
import { AttachmentSchema, CommentSchema, HookSchema, IssueSchema, LabelSchema, RepoPermissionSchema, RepoSchema, TeamSchema, UserSchema, VersionSchema } from "./schemas.ts";
import type { ForgejoLabel } from "./schemas.ts";
import { toHostAttachment, toHostComment, toHostWebhook, toHostIssue, toHostLabel, toHostRepo, toHostUser } from "./to-host.ts";

export type { RepoRef } from "../ports/issue-host.ts";

const repoName = (r: RepoRef) => `repository ${r.owner}/${r.repo}`;

/** Pages asked for by list reads; Forgejo caps it at [api] MAX_RESPONSE_ITEMS (50 by default, often lower). */
const PAGE_LIMIT = 50;
/** A list longer than this many pages is a runaway loop, not a repository. */
const MAX_PAGES = 10_000;

/** The page number of a Link header's rel="next" (Forgejo's genAPILinks, services/context/api.go:226-264), or null. */
export function nextPageFromLink(link: string | undefined): number | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (!m) continue;
    const page = Number(new URL(m[1] as string, "http://x/").searchParams.get("page"));
    return Number.isInteger(page) && page > 0 ? page : null;
  }
  return null;
}

/**
 * Whether a list read must ask for the page after `page`: Link rel="next" when the endpoint sends Link
 * (issues), else X-Total-Count against what was read so far (labels, hooks, collaborators send only the
 * count), else "this page was not empty". Never "the page was full": an instance that lowers
 * MAX_RESPONSE_ITEMS answers shorter pages than asked for, and stopping at a short page would end the
 * read early.
 */
export function hasMorePages(headers: Record<string, string | undefined>, page: number, itemsSoFar: number, pageLength: number): number | null {
  if (pageLength === 0) return null;
  const next = nextPageFromLink(headers["link"]);
  if (headers["link"] !== undefined) return next !== null && next > page ? next : null;
  const total = headers["x-total-count"];
  if (total !== undefined && /^\d+$/.test(total.trim())) return itemsSoFar < Number(total) ? page + 1 : null;
  return page + 1;
}
const issueName = (r: RepoRef, n: number) => `issue #${n} of ${r.owner}/${r.repo}`;
const Empty = z.unknown();

/**
 * What Forgejo (v13) can do: content history is kept for every comment; issues take attachments
 * (POST …/issues/{index}/assets); tokens are scoped by kind, not by repository; an issue's comment list
 * is one unpaged answer filtered by `since` and `before` (swagger.v1.json, issue comments GET); no
 * conditional write of a body.
 */
export const FORGEJO_CAPABILITIES: HostCapabilities = Object.freeze({
  editHistory: true,
  attachments: true,
  repositoryScopedTokens: false,
  pagedCommentLists: false,
  commentsUntil: true,
  compareAndSetBody: false,
  issueRightsApartFromCode: true,
});

/** A query of Forgejo's issue list: `labels` comma-separated names (AND-ed), `q` its keyword search. */
export interface IssueQuery {
  state?: IssueState;
  labels?: string;
  q?: string;
  type?: "issues" | "pulls";
}

/**
 * Forgejo's REST, one function per endpoint checkpost uses, each validated with zod and mapped to the
 * port's neutral records (src/forgejo-client/to-host.ts), so Forgejo's snake_case stays here. Forgejo
 * specifics are noted where they differ from GitHub's API. The port's intents are built on these in
 * ForgejoApi (forgejo-issue-host.ts); only the adapter and tests that stage a forge call them directly.
 */
export class ForgejoRest {
  readonly capabilities: HostCapabilities = FORGEJO_CAPABILITIES;
  constructor(readonly client: ForgejoClient) {}

  /** Label ids by repository and name, as last listed or created: Forgejo creates an issue's labels by id only. */
  private readonly labelIds = new Map<string, number>();
  private rememberLabels(r: RepoRef, labels: readonly ForgejoLabel[]): void {
    for (const l of labels) this.labelIds.set(`${r.owner}/${r.repo}\n${l.name}`, l.id);
  }
  /** The ids of labels named `names` (listing the repository's labels once when one is not known yet). */
  private async labelIdsOf(r: RepoRef, names: readonly string[]): Promise<number[]> {
    const key = (n: string) => `${r.owner}/${r.repo}\n${n}`;
    if (names.some((n) => !this.labelIds.has(key(n)))) await this.listLabels(r);
    return names.map((n) => {
      const id = this.labelIds.get(key(n));
      if (id === undefined) throw new HostError(`${repoName(r)} has no label "${n}": create it first (checkpost creates the session label when it creates the issue).`, "invalid");
      return id;
    });
  }

  get serverClockOffsetMs(): number {
    return this.client.serverClockOffsetMs;
  }

  get requestCount(): number {
    return this.client.requestCount;
  }

  withRetry<T>(fn: (attemptNumber: number) => Promise<T>, label?: string): Promise<T> {
    return this.client.withRetry(fn, label);
  }

  isOutcomeUnknown(error: unknown): boolean {
    return isOutcomeUnknown(error);
  }

  async version(): Promise<string> {
    return (await this.client.call("GET /version", { schema: VersionSchema })).data.version;
  }

  async currentUser(): Promise<HostUser> {
    return toHostUser((await this.client.call("GET /user", { schema: UserSchema, what: "the token's user" })).data);
  }

  /**
   * GET /repos/{owner}/{repo}/issues. Forgejo returns pull requests too unless
   * type=issues; several `labels` are AND-ed and unknown names silently dropped.
   */
  async listIssues(r: RepoRef, q: IssueQuery & { page?: number; limit?: number } = {}): Promise<{ issues: HostIssue[]; totalCount: number | null }> {
    const res = await this.client.call("GET /repos/{owner}/{repo}/issues", {
      params: { owner: r.owner, repo: r.repo, type: "issues", ...q },
      schema: z.array(IssueSchema),
      what: repoName(r),
    });
    const total = res.headers["x-total-count"];
    return { issues: res.data.map(toHostIssue), totalCount: total === undefined ? null : Number(total) };
  }

  /**
   * Every issue matching `q`, all pages: follows Link rel="next" (Forgejo sends it on this list), so a
   * lowered MAX_RESPONSE_ITEMS, which shortens every page, still reads to the end.
   */
  async listAllIssues(r: RepoRef, q: IssueQuery = {}): Promise<HostIssue[]> {
    return (await this.readAll("GET /repos/{owner}/{repo}/issues", { owner: r.owner, repo: r.repo, type: "issues", ...q }, z.array(IssueSchema), repoName(r))).map(toHostIssue);
  }

  /** Read a paged list to its end (see hasMorePages). */
  private async readAll<T>(route: string, params: Record<string, string | number | boolean | undefined>, schema: z.ZodType<T[]>, what: string): Promise<T[]> {
    const all: T[] = [];
    let page: number | null = 1;
    for (let n = 0; page !== null && n < MAX_PAGES; n++) {
      const res: { data: T[]; headers: Record<string, string | undefined> } = await this.client.call(route, { params: { ...params, page, limit: PAGE_LIMIT }, schema, what });
      all.push(...res.data);
      page = hasMorePages(res.headers, page, all.length, res.data.length);
    }
    return all;
  }

  async getIssue(r: RepoRef, index: number): Promise<HostIssue> {
    return toHostIssue((await this.client.call("GET /repos/{owner}/{repo}/issues/{index}", { params: { ...r, index }, schema: IssueSchema, what: issueName(r, index) })).data);
  }

  async createIssue(r: RepoRef, input: { title: string; body?: string; labels?: string[] }): Promise<HostIssue> {
    const data = { ...input, ...(input.labels ? { labels: await this.labelIdsOf(r, input.labels) } : {}) };
    return toHostIssue((await this.client.call("POST /repos/{owner}/{repo}/issues", { params: { ...r }, data, schema: IssueSchema, what: repoName(r) })).data);
  }

  /** PATCH answers 201 on Forgejo (not 200). */
  async editIssue(r: RepoRef, index: number, input: { title?: string; body?: string; state?: "open" | "closed" }): Promise<HostIssue> {
    return toHostIssue((await this.client.call("PATCH /repos/{owner}/{repo}/issues/{index}", { params: { ...r, index }, data: input, schema: IssueSchema, what: issueName(r, index) })).data);
  }

  /**
   * Every comment of an issue: Forgejo does NOT page this endpoint. `since` and
   * `before` filter on the UPDATED time, in whole seconds (forgejoTime floors them).
   */
  async listComments(r: RepoRef, index: number, w: CommentWindow = {}): Promise<HostComment[]> {
    const q = { ...(w.sinceMs === undefined ? {} : { since: forgejoTime(w.sinceMs) }), ...(w.untilMs === undefined ? {} : { before: forgejoTime(w.untilMs) }) };
    return (
      await this.client.call("GET /repos/{owner}/{repo}/issues/{index}/comments", {
        params: { ...r, index, ...q },
        schema: z.array(CommentSchema),
        what: issueName(r, index),
      })
    ).data.map(toHostComment);
  }

  async getComment(r: RepoRef, id: number): Promise<HostComment> {
    return toHostComment(
      (await this.client.call("GET /repos/{owner}/{repo}/issues/comments/{id}", { params: { ...r, id }, schema: CommentSchema, what: `comment ${id} in ${r.owner}/${r.repo}` })).data,
    );
  }

  /** retry:false for callers that make the POST exactly-once themselves. */
  async createComment(r: RepoRef, index: number, body: string, opts: { retry?: boolean } = {}): Promise<HostComment> {
    return toHostComment(
      (
        await this.client.call("POST /repos/{owner}/{repo}/issues/{index}/comments", {
          params: { ...r, index },
          data: { body },
          schema: CommentSchema,
          what: issueName(r, index),
          ...(opts.retry === undefined ? {} : { retry: opts.retry }),
        })
      ).data,
    );
  }

  async editComment(r: RepoRef, id: number, body: string): Promise<HostComment> {
    return toHostComment((await this.client.call("PATCH /repos/{owner}/{repo}/issues/comments/{id}", { params: { ...r, id }, data: { body }, schema: CommentSchema, what: `comment ${id}` })).data);
  }

  async deleteComment(r: RepoRef, id: number): Promise<void> {
    await this.client.call("DELETE /repos/{owner}/{repo}/issues/comments/{id}", { params: { ...r, id }, schema: Empty, what: `comment ${id}` });
  }

  async listIssueAttachments(r: RepoRef, index: number): Promise<HostAttachment[]> {
    return (await this.client.call("GET /repos/{owner}/{repo}/issues/{index}/assets", { params: { ...r, index }, schema: z.array(AttachmentSchema), what: issueName(r, index) })).data.map(
      toHostAttachment,
    );
  }

  /** Upload a file to an issue (multipart/form-data, field "attachment"). Not retried: a retry after a lost answer would upload twice. */
  async createIssueAttachment(r: RepoRef, index: number, name: string, bytes: Uint8Array, contentType = "application/octet-stream"): Promise<HostAttachment> {
    const { body, type } = multipartFile(name, bytes, contentType);
    return toHostAttachment(
      (
        await this.client.call("POST /repos/{owner}/{repo}/issues/{index}/assets{?name}", {
          params: { ...r, index, name },
          data: body,
          headers: { "content-type": type },
          schema: AttachmentSchema,
          what: issueName(r, index),
          retry: false,
        })
      ).data,
    );
  }

  /** Every attachment of a comment (snapshots keep their parts there, docs/snapshots.md). */
  async listCommentAttachments(r: RepoRef, id: number): Promise<HostAttachment[]> {
    return (await this.client.call("GET /repos/{owner}/{repo}/issues/comments/{id}/assets", { params: { ...r, id }, schema: z.array(AttachmentSchema), what: `comment ${id}` })).data.map(
      toHostAttachment,
    );
  }

  /**
   * Upload a file to a comment (multipart/form-data, field "attachment"). Not retried: a retry after a lost
   * answer would upload twice. Forgejo then updates the comment with its body unchanged, so it is `edited`.
   */
  async createCommentAttachment(r: RepoRef, id: number, name: string, bytes: Uint8Array, contentType = "application/octet-stream"): Promise<HostAttachment> {
    const { body, type } = multipartFile(name, bytes, contentType);
    return toHostAttachment(
      (
        await this.client.call("POST /repos/{owner}/{repo}/issues/comments/{id}/assets{?name}", {
          params: { ...r, id, name },
          data: body,
          headers: { "content-type": type },
          schema: AttachmentSchema,
          what: `comment ${id}`,
          retry: false,
        })
      ).data,
    );
  }

  /** The bytes of an attachment, from its browser_download_url (same host, same token). */
  async downloadAttachment(url: string): Promise<Buffer> {
    const res = await this.client.call(`GET ${url}`, { schema: z.instanceof(Uint8Array), what: `attachment ${url}` });
    return Buffer.from(res.data);
  }

  /** Every label of the repository, all pages (X-Total-Count): a repository may have more than one page of labels. */
  async listLabels(r: RepoRef): Promise<HostLabel[]> {
    const labels = await this.readAll("GET /repos/{owner}/{repo}/labels", { ...r }, z.array(LabelSchema), repoName(r));
    this.rememberLabels(r, labels);
    return labels.map(toHostLabel);
  }

  async createLabel(r: RepoRef, input: { name: string; color: string; description?: string }): Promise<HostLabel> {
    const label = (await this.client.call("POST /repos/{owner}/{repo}/labels", { params: { ...r }, data: input, schema: LabelSchema, what: repoName(r) })).data;
    this.rememberLabels(r, [label]);
    return toHostLabel(label);
  }

  /** Forgejo takes label names here (IssueLabelsOption: ids or names). */
  async addIssueLabels(r: RepoRef, index: number, labels: string[]): Promise<HostLabel[]> {
    return (
      await this.client.call("POST /repos/{owner}/{repo}/issues/{index}/labels", { params: { ...r, index }, data: { labels }, schema: z.array(LabelSchema), what: issueName(r, index) })
    ).data.map(toHostLabel);
  }

  /**
   * Every webhook of the repository, all pages. `events` is the list Forgejo keeps, expanded: a hook
   * created with ["issues"] lists issues, issue_assign, issue_label, issue_milestone and issue_comment.
   */
  async listHooks(r: RepoRef): Promise<HostWebhook[]> {
    return (await this.readAll("GET /repos/{owner}/{repo}/hooks", { ...r }, z.array(HookSchema), repoName(r))).map(toHostWebhook);
  }

  async createHook(r: RepoRef, input: { type: string; config: Record<string, string>; events: string[]; active: boolean }): Promise<HostWebhook> {
    return toHostWebhook((await this.client.call("POST /repos/{owner}/{repo}/hooks", { params: { ...r }, data: input, schema: HookSchema, what: repoName(r) })).data);
  }

  async deleteHook(r: RepoRef, id: number): Promise<void> {
    await this.client.call("DELETE /repos/{owner}/{repo}/hooks/{id}", { params: { ...r, id }, schema: Empty, what: `hook ${id} of ${r.owner}/${r.repo}` });
  }

  /** The repository, with `permissions` of the token's user. */
  async getRepo(r: RepoRef): Promise<HostRepo> {
    return toHostRepo((await this.client.call("GET /repos/{owner}/{repo}", { params: { ...r }, schema: RepoSchema, what: repoName(r) })).data);
  }

  /** Every collaborator, all pages (X-Total-Count; Forgejo sends no Link here). Forgejo lists users only, not their modes. */
  async listCollaborators(r: RepoRef): Promise<HostUser[]> {
    return (await this.readAll("GET /repos/{owner}/{repo}/collaborators", { ...r }, z.array(UserSchema), repoName(r))).map(toHostUser);
  }

  /**
   * GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission: the user's access mode to the
   * repository ("owner", "admin", "write", "read" or "none"). A site admin reads as "owner", like the
   * repository's owner (models/perm/access/repo_permission.go:225-226); a team member reads as the team's
   * mode, which for a team with per-unit rights is the lowest of them (models/unit/unit.go:434-449), so it
   * can say "read" for someone who may write issues. Forgejo answers 403 unless the token's user is a site
   * admin, a repo admin, or the user asked about; 404 for an unknown user.
   */
  async collaboratorPermission(r: RepoRef, user: string): Promise<string> {
    const res = await this.client.call("GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission", {
      params: { ...r, collaborator: user },
      schema: RepoPermissionSchema,
      what: `${user}'s permission on ${repoName(r)}`,
    });
    return res.data.permission;
  }

  /**
   * GET /repos/{owner}/{repo}/teams (routers/api/v1/api.go:1180-1181, reqAnyRepoReader; repo/teams.go:18-59):
   * every team of the organisation holding the repository, unpaged. 405 for a user's repository: no teams.
   * A team's issues mode is its `units_map["repo.issues"]` (Team.GetUnitsMap, models/organization/team.go:124-136:
   * an admin team maps every unit to its own mode); a server sending only `units` gives the team's mode to
   * each unit listed.
   */
  async listRepoTeams(r: RepoRef): Promise<ForgejoTeam[]> {
    try {
      const res = await this.client.call("GET /repos/{owner}/{repo}/teams", { params: { ...r }, schema: z.array(TeamSchema), what: `teams of ${repoName(r)}` });
      return res.data.map((t) => ({
        id: t.id,
        name: t.name,
        permission: t.permission,
        issuesMode: t.units_map ? (t.units_map["repo.issues"] ?? "none") : (t.units ?? []).includes("repo.issues") ? t.permission : "none",
      }));
    } catch (e) {
      if (e instanceof ForgejoApiError && e.status === 405) return []; // "repo is not owned by an organization"
      throw e;
    }
  }

  /**
   * GET /teams/{id}/members/{username} (routers/api/v1/api.go:1627-1648; org/team.go:432-470): 200 when a
   * member, 404 when not. reqTeamMembership (api.go:551-586) answers the bot 404 unless it is a site admin,
   * an owner of the organisation or a member of that team (403 when it is only an organisation member):
   * both are "not known to be a member"; a 403 is thrown so the caller can say the bot may not look.
   */
  async isTeamMember(teamId: number, user: string): Promise<boolean> {
    try {
      await this.client.call("GET /teams/{id}/members/{username}", { params: { id: teamId, username: user }, schema: UserSchema, what: `${user}'s membership of team ${teamId}` });
      return true;
    } catch (e) {
      if (e instanceof ForgejoApiError && e.status === 404) return false;
      throw e;
    }
  }

  /** The port's access: Forgejo's "owner" (the repository's owner, or a site admin) reads as "admin". */
  async repoAccess(r: RepoRef, user: string): Promise<RepoAccess> {
    return toRepoAccess(await this.collaboratorPermission(r, user));
  }
}

/** Forgejo's access modes that may write. */
export const WRITE_MODES: ReadonlySet<string> = new Set(["write", "admin", "owner"]);

function toRepoAccess(mode: string): RepoAccess {
  if (mode === "owner" || mode === "admin") return "admin";
  return mode === "write" || mode === "read" ? mode : "none";
}

/** A team of the repository's organisation that holds the repository, as Forgejo says. */
export interface ForgejoTeam {
  id: number;
  name: string;
  /** The team's mode ("read", "write", "admin", "owner"; for per-unit teams the lowest of its units). */
  permission: string;
  /** The team's mode on the issues unit ("none" when the team has none). */
  issuesMode: string;
}

/** One file as multipart/form-data under the field "attachment", as Forgejo's asset uploads read it. */
function multipartFile(name: string, bytes: Uint8Array, contentType: string): { body: Buffer; type: string } {
  const boundary = `checkpost-${randomUUID()}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="${name.replace(/["\r\n]/g, "_")}"\r\nContent-Type: ${contentType}\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head, "utf8"), Buffer.from(bytes), Buffer.from(`\r\n--${boundary}--\r\n`, "utf8")]), type: `multipart/form-data; boundary=${boundary}` };
}
