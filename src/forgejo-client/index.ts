export { ForgejoClient, isOutcomeUnknown, isRetryable } from "./forgejo-client.ts";
export type { ForgejoClientOptions, CallOptions, CallResult } from "./forgejo-client.ts";
export { ForgejoApi, hasMorePages, nextPageFromLink } from "./forgejo-api.ts";
export { forgejoTime } from "./forgejo-time.ts";
export type { RepoRef } from "./forgejo-api.ts";
export * from "./schemas.ts";
export { forgejoError, networkError } from "./forgejo-error.ts";
export type * from "../ports/issue-host.ts";
