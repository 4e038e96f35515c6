import * as z from "zod";
import { builtSchema, lazySchema } from "../protocol/lazy-schema.ts";

/**
 * Lenient schemas: they check only the fields checkpost reads and let the rest
 * through, so a newer Forgejo adding fields never breaks us (Renovate's rule).
 */
export const UserSchema = lazySchema(() => z.looseObject({ id: z.number(), login: z.string(), is_admin: z.boolean().optional() }));
export type ForgejoUser = z.infer<typeof UserSchema>;

export const LabelSchema = lazySchema(() => z.looseObject({ id: z.number(), name: z.string(), color: z.string().optional() }));
export type ForgejoLabel = z.infer<typeof LabelSchema>;

export const AttachmentSchema = lazySchema(() => z.looseObject({ id: z.number(), name: z.string(), size: z.number(), created_at: z.string(), browser_download_url: z.string() }));
export type ForgejoAttachment = z.infer<typeof AttachmentSchema>;

export const IssueSchema = lazySchema(() =>
  z.looseObject({
    id: z.number(),
    number: z.number(),
    title: z.string(),
    body: z
      .string()
      .nullable()
      .transform((b) => b ?? ""),
    state: z.string(),
    html_url: z.string(),
    user: builtSchema(UserSchema),
    labels: z
      .array(builtSchema(LabelSchema))
      .nullable()
      .transform((l) => l ?? []),
    comments: z.number().optional(),
    created_at: z.string(),
    updated_at: z.string(),
    /** Set while the issue is closed (the swagger's Issue.closed_at); a chain walk reads the tail of comments from it. */
    closed_at: z.string().nullable().optional(),
    pull_request: z.unknown().optional(),
  }),
);
export type ForgejoIssue = z.infer<typeof IssueSchema>;

/**
 * Comments come by the ten thousand (the list is not paged), each with a full
 * user object: this schema keeps only what is read (z.object strips the rest),
 * so the validated copy is small and the parsed response can be collected.
 */
export const CommentSchema = lazySchema(() =>
  z.object({
    id: z.number(),
    body: z.string(),
    user: z.object({ id: z.number(), login: z.string() }),
    html_url: z.string(),
    /** The issue's web URL ("" for a pull request); how a reader checks which issue a comment is on. */
    issue_url: z.string().optional(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type ForgejoComment = z.infer<typeof CommentSchema>;

export const HookSchema = lazySchema(() =>
  z.looseObject({
    id: z.number(),
    type: z.string(),
    active: z.boolean(),
    events: z.array(z.string()),
    config: z.record(z.string(), z.string()).optional(),
  }),
);
export type ForgejoHook = z.infer<typeof HookSchema>;

/** A repository, with the token user's permissions on it (Forgejo sets `permissions` for a signed-in caller). */
export const RepoSchema = lazySchema(() =>
  z.looseObject({
    id: z.number(),
    full_name: z.string(),
    private: z.boolean(),
    permissions: z.looseObject({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }).optional(),
  }),
);
export type ForgejoRepo = z.infer<typeof RepoSchema>;

/**
 * Team (modules/structs/org_team.go): `units_map` maps unit names ("repo.issues") to modes; `units`, the
 * deprecated list, names the units without modes (an older server may send only it).
 */
export const TeamSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  permission: z.string(),
  units: z.array(z.string()).nullable().optional(),
  units_map: z.record(z.string(), z.string()).nullable().optional(),
});

/** RepoCollaboratorPermission: `permission` is the access mode's string ("owner", "admin", "write", "read", "none"). */
export const RepoPermissionSchema = lazySchema(() => z.looseObject({ permission: z.string(), role_name: z.string().optional(), user: UserSchema.optional() }));
export type ForgejoRepoPermission = z.infer<typeof RepoPermissionSchema>;

export const VersionSchema = lazySchema(() => z.looseObject({ version: z.string() }));

/** Forgejo's APIError / APIValidationError body. */
export const ErrorBodySchema = lazySchema(() => z.looseObject({ message: z.string().optional() }));
