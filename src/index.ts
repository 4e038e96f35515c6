// The public surface of the checkpost library.
export * from "./protocol/index.ts";
export * from "./projection/index.ts";
export * from "./dashboard/index.ts";
export * from "./forgejo/index.ts";
export * from "./store/index.ts";
export * from "./errors.ts";
export { createLogger } from "./log/create-logger.ts";
export { createBot } from "./bot/create-bot.ts";
export type { Bot } from "./bot/create-bot.ts";
export type { BotConfig } from "./bot/bot-config.ts";
