/** zod schemas of request bodies (swagger definitions *Option), and Forgejo-style binding messages. */
import * as z from "zod";

/** Go binding "Required": the zero value ("" / missing) fails. */
const required = z.string().min(1);

export const CreateIssueOption = z.object({
  title: required,
  body: z.string().optional(),
  labels: z.array(z.number().int()).optional(),
  closed: z.boolean().optional(),
  ref: z.string().optional(),
});

export const EditIssueOption = z.object({
  title: z.string().optional(),
  body: z.string().optional(),
  state: z.string().optional(),
  ref: z.string().optional(),
  /** *time.Time (modules/structs/issue.go:117): SetIssueUpdateDate, admins only. */
  updated_at: z.string().nullable().optional(),
});

export const CreateIssueCommentOption = z.object({ body: required, updated_at: z.string().nullable().optional() });
export const EditIssueCommentOption = z.object({ body: required, updated_at: z.string().nullable().optional() });

export const CreateLabelOption = z.object({
  name: required,
  color: required,
  description: z.string().optional(),
  exclusive: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});

/** IssueLabelsOption: `labels` is []any in Go, so any JSON value binds; prepareForReplaceOrAdd sorts them out. */
export const IssueLabelsOption = z.object({
  labels: z.array(z.unknown()).nullable().optional(),
  updated_at: z.string().nullable().optional(),
});

export const CreateHookOption = z.object({
  type: z.enum(["forgejo", "dingtalk", "discord", "gitea", "gogs", "msteams", "slack", "telegram", "feishu", "wechatwork", "packagist"]),
  config: z.record(z.string(), z.string()),
  events: z.array(z.string()).optional(),
  active: z.boolean().optional(),
  authorization_header: z.string().optional(),
  branch_filter: z.string().optional(),
});

/** AddCollaboratorOption: `permission` is a *string; any value binds (unknown ones are discarded later). */
export const AddCollaboratorOption = z.object({ permission: z.string().nullable().optional() });

/** EditHookOption: every field optional; `active` a *bool. */
export const EditHookOption = z.object({
  config: z.record(z.string(), z.string()).nullable().optional(),
  events: z.array(z.string()).nullable().optional(),
  branch_filter: z.string().optional(),
  authorization_header: z.string().optional(),
  active: z.boolean().nullable().optional(),
});

/** EditAttachmentOptions: {name}. */
export const EditAttachmentOptions = z.object({ name: z.string().optional() });

export const CreateRepoOption = z.object({
  name: required,
  description: z.string().optional(),
  private: z.boolean().optional(),
});

function goFieldName(key: string): string {
  return key
    .split("_")
    .map((p) => (p ? p[0]!.toUpperCase() + p.slice(1) : p))
    .join("");
}

/** Parse a body or return Forgejo's binding message, e.g. "[Title]: Required". */
export function bindBody<T>(schema: z.ZodType<T>, body: unknown): { ok: true; value: T } | { ok: false; message: string } {
  // An absent body binds as {}; a JSON `null` (or any non-object) is a binding error, never "no change".
  const r = schema.safeParse(body === undefined ? {} : body);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const key = issue?.path[0];
  if (typeof key !== "string") return { ok: false, message: `[]: ${issue?.message ?? "invalid body"}` };
  const missing = issue?.code === "too_small" || (issue?.code === "invalid_type" && issue.input === undefined);
  return { ok: false, message: `[${goFieldName(key)}]: ${missing ? "Required" : "Invalid"}` };
}
