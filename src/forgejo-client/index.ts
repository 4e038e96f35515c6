export { ForgejoClient, isOutcomeUnknown, isRetryable } from "./forgejo-client.ts";
export type { ForgejoClientOptions, CallOptions, CallResult } from "./forgejo-client.ts";
export { FORGEJO_CAPABILITIES, ForgejoApi, hasMorePages, nextPageFromLink } from "./forgejo-api.ts";
export { forgejoHost } from "./forgejo-host.ts";
export { forgejoTime } from "./forgejo-time.ts";
export type { RepoRef } from "./forgejo-api.ts";
export * from "./schemas.ts";
export { ForgejoApiError, ForgejoResponseError, forgejoError, forgejoReason, networkError } from "./forgejo-error.ts";
export type * from "../ports/issue-host.ts";
