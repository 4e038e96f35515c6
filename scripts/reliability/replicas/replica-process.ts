/**
 * One bot replica in a process of its own, for the replica chaos suite: the
 * config comes in CHAOS_BOT_CONFIG (JSON BotConfig), the URL goes back over IPC.
 * The suite SIGKILLs it; nothing here cleans up on purpose.
 */
import { pino } from "pino";
import { startBot } from "../../../src/app/start-bot.ts";
import type { BotConfig } from "../../../src/bot/bot-config.ts";

const config = JSON.parse(process.env["CHAOS_BOT_CONFIG"] ?? "{}") as BotConfig;
const bot = await startBot(config, { logger: pino({ level: process.env["CHAOS_LOG_LEVEL"] ?? "silent" }, pino.destination(2)) });
process.send?.({ url: bot.url });
process.on("message", (m: { cmd?: string }) => {
  if (m.cmd === "stop") void bot.stop().then(() => process.exit(0));
});
