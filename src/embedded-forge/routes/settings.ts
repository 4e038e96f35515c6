/**
 * GET /settings/api and GET /settings/attachment (routers/api/v1/settings/settings.go:32-47, :71-86), public.
 * Clients read the page-size cap and the upload limits here. Values are Forgejo's defaults
 * (modules/setting/api.go:24-27, modules/setting/attachment.go:15-18), except MAX_RESPONSE_ITEMS, which a
 * test may lower (startForge({maxResponseItems})).
 */
import type { RouteHandler } from "../context.ts";
import { DEFAULT_PAGING_NUM } from "../paging.ts";

export const getApiSettings: RouteHandler = (ctx) => ({
  status: 200,
  json: { max_response_items: ctx.forge.maxResponseItems, default_paging_num: DEFAULT_PAGING_NUM, default_git_trees_per_page: 1000, default_max_blob_size: 10485760 },
});

/**
 * allowed_types is the ALLOWED_TYPES every upload is checked against (upload-verify.ts); max_size (MiB) and
 * max_files are Forgejo's defaults, reported only: Forgejo's API does not enforce them either.
 */
export const getAttachmentSettings: RouteHandler = (ctx) => ({
  status: 200,
  json: { enabled: true, allowed_types: ctx.forge.attachmentAllowedTypes, max_size: 2048, max_files: 5 },
});
