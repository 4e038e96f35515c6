// `checkpost/bot`: the Probot bot. Kept out of the main entry so `import "checkpost"` never loads
// probot or prom-client. The package entry is part of the composition root: its `createBot` opens the
// stores and the Forgejo client that config names (start-bot.ts); src/bot/ itself opens nothing.
export { startBot as createBot } from "./start-bot.ts";
export type { Bot } from "../bot/create-bot.ts";
export { defaultBotConfig } from "../config/bot-env.ts";
export type { BotConfig, BotRepo } from "../bot/bot-config.ts";
export { BotEnvSchema, botConfigFromEnv, loadBotEnv } from "../config/bot-env.ts";
export type { BotEnv } from "../config/bot-env.ts";
