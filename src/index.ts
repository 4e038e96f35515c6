// The public surface of the checkpost library (`import … from "checkpost"`). The bot is a separate
// entry, `checkpost/bot`, so this one loads neither probot nor prom-client.
export * from "./protocol/index.ts";
export * from "./projection/index.ts";
export * from "./dashboard/index.ts";
export * from "./forgejo-client/index.ts";
export * from "./session-client/index.ts";
export * from "./errors.ts";
export { createLogger } from "./log/create-logger.ts";
export * from "./snapshot/index.ts";
