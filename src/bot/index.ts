// `checkpost/bot`: the Probot bot. Kept out of the main entry so `import "checkpost"` never loads
// probot or prom-client.
export { createBot } from "./create-bot.ts";
export type { Bot } from "./create-bot.ts";
export { botConfigFromEnv, defaultBotConfig } from "./bot-config-from-env.ts";
export type { BotConfig } from "./bot-config-from-env.ts";
export { BotEnvSchema, loadBotEnv } from "./bot-config.ts";
export type { BotEnv, BotRepo } from "./bot-config.ts";
