import { HostError } from "../errors.ts";
import { sha256SignatureProblem } from "../util/hmac-signature.ts";
import type {
  AttachTarget,
  CommentWindow,
  DeliveryHeaders,
  HostAttachment,
  HostComment,
  HostIssue,
  HostLabel,
  HostWebhook,
  IssueBody,
  IssueHost,
  IssueWriteAccess,
  RepoRef,
  SessionIssueQuery,
  WebhookEvent,
} from "../ports/issue-host.ts";
import { ForgejoRest, WRITE_MODES } from "./forgejo-api.ts";

/** The colour and description of a label checkpost creates (the session label). */
const NEW_LABEL = { color: "#0075ca", description: "Automated agent session state" };

/**
 * The IssueHost adapter for Forgejo: the port's intents, each on Forgejo's REST (ForgejoRest). What
 * Forgejo calls things (hook types, label ids, permission modes, teams' units) stays in this folder.
 */
export class ForgejoApi extends ForgejoRest implements IssueHost {
  /**
   * Issues only (type=issues), all pages. With a label, Forgejo filters by it (and drops an unknown name
   * silently, so the label is checked on each issue too); the title alone goes to Forgejo's keyword search
   * (`q`), and the title is checked on each issue: the search matches words, not the string.
   */
  async findSessionIssues(r: RepoRef, q: SessionIssueQuery): Promise<HostIssue[]> {
    const issues = await this.listAllIssues(r, {
      state: q.state ?? "open",
      type: "issues",
      ...(q.label !== undefined ? { labels: q.label } : q.title !== undefined ? { q: q.title } : {}),
    });
    return issues
      .filter((i) => !i.isPullRequest && (q.title === undefined || i.title.includes(q.title)) && (q.label === undefined || i.labels.some((l) => l.name === q.label)))
      .sort((a, b) => b.number - a.number);
  }

  /** Forgejo creates an issue's labels by id: a missing one is created first, then the issue names them. */
  async openSessionIssue(r: RepoRef, input: { title: string; body: string; labels?: string[] }): Promise<HostIssue> {
    const labels = input.labels ?? [];
    if (labels.length) {
      const have = new Set((await this.listLabels(r)).map((l) => l.name));
      for (const name of labels) if (!have.has(name)) await this.createLabel(r, { name, ...NEW_LABEL });
    }
    return this.createIssue(r, { title: input.title, body: input.body, ...(labels.length ? { labels } : {}) });
  }

  /** Forgejo takes names here (IssueLabelsOption); a name the repository lacks is dropped by Forgejo. */
  labelIssue(r: RepoRef, issue: number, labels: string[]): Promise<HostLabel[]> {
    return this.addIssueLabels(r, issue, labels);
  }
  readIssue(r: RepoRef, issue: number): Promise<HostIssue> {
    return this.getIssue(r, issue);
  }
  closeIssue(r: RepoRef, issue: number): Promise<HostIssue> {
    return this.editIssue(r, issue, { state: "closed" });
  }

  async readIssueBody(r: RepoRef, issue: number): Promise<IssueBody> {
    const i = await this.getIssue(r, issue);
    return { body: i.body, updatedAt: i.updatedAt, author: i.author };
  }
  /** A plain PATCH: Forgejo has no If-Match on an issue (see the port). */
  async writeIssueBody(r: RepoRef, issue: number, body: string): Promise<IssueBody> {
    const i = await this.editIssue(r, issue, { body });
    return { body: i.body, updatedAt: i.updatedAt, author: i.author };
  }

  listCommentsSince(r: RepoRef, issue: number, window?: CommentWindow): Promise<HostComment[]> {
    return this.listComments(r, issue, window);
  }
  readRecord(r: RepoRef, id: number): Promise<HostComment> {
    return this.getComment(r, id);
  }
  postRecord(r: RepoRef, issue: number, body: string, opts?: { retry?: boolean }): Promise<HostComment> {
    return this.createComment(r, issue, body, opts);
  }
  editRecord(r: RepoRef, id: number, body: string): Promise<HostComment> {
    return this.editComment(r, id, body);
  }
  deleteRecord(r: RepoRef, id: number): Promise<void> {
    return this.deleteComment(r, id);
  }

  attach(r: RepoRef, to: AttachTarget, name: string, bytes: Uint8Array, contentType?: string): Promise<HostAttachment> {
    return "issue" in to ? this.createIssueAttachment(r, to.issue, name, bytes, contentType) : this.createCommentAttachment(r, to.comment, name, bytes, contentType);
  }
  listAttachments(r: RepoRef, on: AttachTarget): Promise<HostAttachment[]> {
    return "issue" in on ? this.listIssueAttachments(r, on.issue) : this.listCommentAttachments(r, on.comment);
  }

  /**
   * Who may write issues: whoever Forgejo lets write them on the repository (CanWriteIssuesOrPulls,
   * models/perm/access/repo_permission.go:109-114: the issues unit's mode, at least write).
   *
   * The permission API answers the repository's AccessMode, not the issues unit's: for a member of a team
   * with per-unit rights it is the team's AccessMode, the lowest of its units (models/unit/unit.go:434-449),
   * so a triage team that may write issues but only read code reads as "read". The unit's mode is the
   * highest of the collaboration's mode and each of the user's teams' mode for the unit
   * (repo_permission.go:255-300). So when the permission reads "read", the adapter lists the repository's
   * teams (`units_map["repo.issues"]`) and, for each that may write issues, asks whether the user is a
   * member. Forgejo answers that only to a site admin, an owner of the organisation or a member of that
   * team (reqTeamMembership, routers/api/v1/api.go:551-586): a team it may not look into is named in
   * `hiddenGroups` (docs/security.md).
   */
  async mayCommand(r: RepoRef, user: string): Promise<IssueWriteAccess> {
    const mode = await this.collaboratorPermission(r, user);
    if (WRITE_MODES.has(mode)) return { canWrite: true, hiddenGroups: [] };
    // "none": no team of the user holds the repository (it would give read at least). Only "read" may hide a team's issue write.
    if (mode !== "read") return { canWrite: false, hiddenGroups: [] };
    const hiddenGroups: string[] = [];
    for (const team of (await this.listRepoTeams(r)).filter((t) => WRITE_MODES.has(t.issuesMode))) {
      try {
        if (await this.isTeamMember(team.id, user)) return { canWrite: true, hiddenGroups };
      } catch (e) {
        if (!(e instanceof HostError && e.reason === "forbidden")) throw e;
        hiddenGroups.push(team.name);
      }
    }
    return { canWrite: false, hiddenGroups };
  }

  /** A Forgejo-type hook posting JSON, signed with `secret` (Forgejo sends X-Hub-Signature-256 with it). */
  async ensureWebhook(r: RepoRef, input: { url: string; secret: string; events: readonly WebhookEvent[] }): Promise<{ webhook: HostWebhook; replaced: number[] }> {
    const replaced: number[] = [];
    for (const h of await this.listHooks(r))
      if (h.url === input.url) {
        await this.deleteHook(r, h.id);
        replaced.push(h.id);
      }
    const webhook = await this.createHook(r, { type: "forgejo", active: true, events: [...input.events], config: { url: input.url, content_type: "json", secret: input.secret } });
    return { webhook, replaced };
  }
  listWebhooks(r: RepoRef): Promise<HostWebhook[]> {
    return this.listHooks(r);
  }
  removeWebhook(r: RepoRef, id: number): Promise<void> {
    return this.deleteHook(r, id);
  }
}

/**
 * Forgejo signs a delivery as GitHub does, `X-Hub-Signature-256: sha256=<hex>` of the raw body (it sends
 * X-Forgejo-Signature too, the bare hex of the same HMAC); the GitHub-named header is the one checked.
 */
export function verifyForgejoDelivery(headers: DeliveryHeaders, rawBody: Buffer | string, secret: string): string | null {
  return sha256SignatureProblem("X-Hub-Signature-256", headers["x-hub-signature-256"], rawBody, secret);
}
