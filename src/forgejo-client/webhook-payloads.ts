import * as z from "zod";
import type { DeliveredIssue, ReadDelivery, RepoRef } from "../ports/issue-host.ts";

/**
 * The webhook boundary of the Forgejo adapter (issue 31): payloads as Forgejo sends them (see fixtures/forgejo/webhook-issue_comment.example.json), checked
 * for the fields the bot reads. Probot's types are GitHub's, so we do not rely on them. Objects strip what
 * they do not name (tolerant of new fields, and cheaper than copying the whole issue and repository on
 * every delivery: issue 22's ingest profile).
 */
/** Built on the first delivery: the CLI loads the adapter (and so this module) but never reads a payload. */
function build() {
  const User = z.object({ login: z.string() });
  const Label = z.object({ name: z.string() });
  const Repository = z.object({ name: z.string(), full_name: z.string(), owner: User });
  const Issue = z.object({
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string().nullable().optional(),
    state: z.string(),
    labels: z.array(Label).nullable().optional(),
    pull_request: z.unknown().optional(),
    /** Who opened it (who may edit its body besides the writers), and when it last changed (a tick's once-key). */
    user: User.optional(),
    updated_at: z.string().optional(),
  });
  const Comment = z.object({
    id: z.number().int().positive(),
    body: z.string(),
    user: User,
    created_at: z.string(),
    updated_at: z.string(),
    html_url: z.string().optional(),
  });

  const IssueCommentPayloadSchema = z.object({
    action: z.enum(["created", "edited", "deleted"]),
    issue: Issue,
    comment: Comment,
    repository: Repository,
    sender: User,
    is_pull: z.boolean().optional(),
  });

  const IssuesPayloadSchema = z.object({
    action: z.string(),
    issue: Issue,
    repository: Repository,
    sender: User,
    /** On "edited": what the title or body was before (Forgejo's ChangesPayload). */
    changes: z
      .looseObject({ body: z.object({ from: z.string() }).optional() })
      .nullable()
      .optional(),
  });
  return { Issue, Repository, IssueCommentPayloadSchema, IssuesPayloadSchema };
}
let built: ReturnType<typeof build> | undefined;
const schemas = () => (built ??= build());
type ForgejoIssuePayload = z.infer<ReturnType<typeof build>["Issue"]>;
type ForgejoRepositoryPayload = z.infer<ReturnType<typeof build>["Repository"]>;

const toDeliveredIssue = (i: ForgejoIssuePayload): DeliveredIssue => ({
  number: i.number,
  title: i.title,
  body: i.body ?? null,
  state: i.state,
  labels: (i.labels ?? []).map((l) => ({ name: l.name })),
  isPullRequest: Boolean(i.pull_request),
  author: i.user?.login ?? null,
  updatedAt: i.updated_at ?? null,
});
const repoOf = (r: ForgejoRepositoryPayload): RepoRef => ({ owner: r.owner.login, repo: r.name });

/** Forgejo's issue_comment and issues payloads as the port's HostDelivery (its snake_case stops here). */
export const readForgejoDelivery: ReadDelivery = (event, payload) => {
  if (event === "issue_comment") {
    const r = schemas().IssueCommentPayloadSchema.safeParse(payload);
    if (!r.success) return { invalid: r.error.issues[0] };
    const { action, issue, comment, repository, sender } = r.data;
    return {
      event: "comment",
      action,
      repo: repoOf(repository),
      issue: toDeliveredIssue(issue),
      comment: {
        id: comment.id,
        author: comment.user.login,
        body: comment.body,
        createdAt: comment.created_at,
        updatedAt: comment.updated_at,
        ...(comment.html_url ? { htmlUrl: comment.html_url } : {}),
      },
      sender: sender.login,
      onPullRequest: r.data.is_pull === true,
    };
  }
  if (event === "issues") {
    const r = schemas().IssuesPayloadSchema.safeParse(payload);
    if (!r.success) return { invalid: r.error.issues[0] };
    const { action, issue, repository, sender, changes } = r.data;
    const before = changes?.body?.from;
    return { event: "issue", action, repo: repoOf(repository), issue: toDeliveredIssue(issue), sender: sender.login, ...(before !== undefined ? { bodyBefore: before } : {}) };
  }
  return null;
};
