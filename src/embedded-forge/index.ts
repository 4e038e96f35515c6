/** Embedded Forgejo-compatible server (see docs/forge.md). Imports nothing from elsewhere in src/. */
export { startForge, type ForgeServer } from "./server.ts";
export type { ForgeAdmin, AdminUser, AdminRepo, AdminIssue, SeedIssue, SeedComment } from "./admin.ts";
export { FORGE_ROUTES, type RouteSpec } from "./routes-table.ts";
export type { ForgeSeams } from "./context.ts";
export { DEFAULT_ATTACHMENT_ALLOWED_TYPES } from "./upload-verify.ts";
export { FORGEJO_VERSION } from "./routes/meta.ts";
export { forgeCommand, type ForgeCommandOptions } from "./main.ts";
export { goJsonIndent, goJsonEncode } from "./go-json.ts";
export { mulberry32 } from "./prng.ts";
export type { FaultOptions, FaultMatch, FaultKind, ForgeOptions, ForgeStats, DeliveryRecord, AccessMode } from "./types.ts";
