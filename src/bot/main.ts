// `npm start`: the bot, against FORGEJO_URL or, when unset, an embedded Forgejo.
import { ClientEnvSchema, parseEnv } from "../config/env.ts";
import { CheckpostError } from "../errors.ts";
import { createLogger } from "../log/create-logger.ts";
import { BotEnvSchema, botConfigFromEnv, loadBotEnv } from "./bot-config-from-env.ts";
import { createBot } from "./create-bot.ts";
import { randomSecret, startEmbeddedForgejo } from "./embedded-forgejo.ts";

async function main(): Promise<void> {
  const base = parseEnv(ClientEnvSchema, process.env);
  const logger = createLogger({ level: base.LOG_LEVEL ?? "info", secrets: [base.FORGEJO_TOKEN ?? "", process.env["WEBHOOK_SECRET"] ?? "", base.CHECKPOST_SIGNING_KEY ?? ""] });
  const stops: (() => Promise<void>)[] = [];

  if (base.FORGEJO_URL) {
    const env = loadBotEnv(process.env);
    if (!env.FORGEJO_TOKEN) throw new CheckpostError("FORGEJO_TOKEN is required with FORGEJO_URL (a token of the bot's user with write:issue and read:repository).");
    const bot = await createBot(botConfigFromEnv(env, { url: base.FORGEJO_URL, token: env.FORGEJO_TOKEN }), { logger });
    stops.push(bot.stop);
    logger.info({ url: bot.url, webhooks: `${bot.url}${env.WEBHOOK_PATH}`, sessions: bot.trackers().map((t) => t.key) }, "checkpost bot running");
  } else {
    // Embedded mode: we own both ends, so a secret is made up when none is given.
    const env = parseEnv(BotEnvSchema, { ...process.env, WEBHOOK_SECRET: process.env["WEBHOOK_SECRET"] || randomSecret() });
    const world = await startEmbeddedForgejo({ dataDir: env.CHECKPOST_DATA_DIR, port: env.CHECKPOST_FORGE_PORT, title: env.CHECKPOST_SESSION_TITLE, label: env.CHECKPOST_SESSION_LABEL, logger });
    stops.push(() => world.forge.close());
    const repoSpec = `${world.repo.owner}/${world.repo.repo}`;
    const bot = await createBot(botConfigFromEnv({ ...env, CHECKPOST_REPOSITORIES: repoSpec }, { url: world.forge.url, token: world.token }), { logger });
    stops.unshift(bot.stop);
    await world.connectWebhook(bot.url, env.WEBHOOK_SECRET as string, env.WEBHOOK_PATH);
    const lines = [
      "",
      "checkpost is running on an embedded Forgejo (data in " + env.CHECKPOST_DATA_DIR + "/forge).",
      `  Session issue (web view): ${world.forge.url}/${repoSpec}/issues/${world.issue}`,
      `  Web sign-in:              user ${world.person.login}, password ${world.person.password} (tick the dashboard's controls, comment /checkpost …)`,
      `  Forgejo API:              ${world.forge.apiUrl}`,
      `  Bot API:                  ${bot.url}/api/sessions  ${bot.url}/api/resume?agent=implementation-worker&session=demo`,
      `  Metrics:                  ${bot.url}/metrics`,
      "",
      "Try a checkpoint from another terminal:",
      `  FORGEJO_URL=${world.forge.url} FORGEJO_TOKEN=${world.token} FORGEJO_REPOSITORY=${repoSpec} \\`,
      `    npx checkpost save --agent implementation-worker --session demo --phase clone_complete --data '{"branch_name":"feat/demo"}'`,
      "",
    ];
    process.stdout.write(lines.join("\n") + "\n");
  }

  const shutdown = async (signal: string) => {
    logger.info({ signal }, "stopping");
    for (const stop of stops) await stop().catch((e: unknown) => logger.error({ err: e }, "stop failed"));
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((e: unknown) => {
  process.stderr.write(`checkpost: ${e instanceof Error ? e.message : String(e)}\n`);
  if (process.argv.includes("--debug") && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
