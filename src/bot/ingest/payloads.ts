import * as z from "zod";

/**
 * Webhook payloads as Forgejo sends them (see fixtures/forgejo/webhook-issue_comment.example.json), checked
 * for the fields the bot reads. Probot's types are GitHub's, so we do not rely on them. Objects strip what
 * they do not name (tolerant of new fields, and cheaper than copying the whole issue and repository on
 * every delivery: issue 22's ingest profile).
 */
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

export const IssueCommentPayloadSchema = z.object({
  action: z.enum(["created", "edited", "deleted"]),
  issue: Issue,
  comment: Comment,
  repository: Repository,
  sender: User,
  is_pull: z.boolean().optional(),
});
export type IssueCommentPayload = z.infer<typeof IssueCommentPayloadSchema>;

export const IssuesPayloadSchema = z.object({
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
export type IssuesPayload = z.infer<typeof IssuesPayloadSchema>;
