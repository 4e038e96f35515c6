// `checkpost/bot`: the Probot bot. Kept out of the main entry so `import "checkpost"` never loads
// probot or prom-client.
export { createBot } from "./create-bot.ts";
export type { Bot } from "./create-bot.ts";
export { defaultBotConfig } from "./bot-config-from-env.ts";
export type { BotConfig, BotRepo } from "./bot-config.ts";
export { BotEnvSchema, botConfigFromEnv, loadBotEnv } from "./bot-config-from-env.ts";
export type { BotEnv } from "./bot-config-from-env.ts";
