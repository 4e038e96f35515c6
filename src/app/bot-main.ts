// `npm start`: the bot, against FORGEJO_URL or, when unset, an embedded Forgejo. Part of the composition
// root (src/app/): it reads the environment, picks the Forgejo (a real one or the embedded one for the
// demo) and starts the bot; src/bot/ itself never imports the embedded Forgejo (docs/architecture.md).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ClientEnvSchema, parseEnv } from "../config/env.ts";
import { CheckpostError } from "../errors.ts";
import { createLogger } from "../log/create-logger.ts";
import { BotEnvSchema, botConfigFromEnv, loadBotEnv } from "../config/bot-env.ts";
import { startBot } from "./start-bot.ts";
import { DEMO_AGENT_LOGIN, randomSecret, readSecretFile, startEmbeddedForgejo, writeSecretFile } from "./embedded-forgejo.ts";

/** EADDRINUSE → an error naming the variable that picks the port. */
const portHint =
  (variable: string, port: number) =>
  (e: unknown): never => {
    if ((e as NodeJS.ErrnoException)?.code === "EADDRINUSE")
      throw new CheckpostError(`port ${port} is already in use (is checkpost already running?). Stop that process or set ${variable} to a free port, e.g. ${variable}=${port + 10} npm start`);
    throw e;
  };

async function main(): Promise<void> {
  const base = parseEnv(ClientEnvSchema, process.env);
  const logger = createLogger({ level: base.LOG_LEVEL ?? "info", secrets: [base.FORGEJO_TOKEN ?? "", process.env["WEBHOOK_SECRET"] ?? "", base.CHECKPOST_SIGNING_KEY ?? ""] });
  const stops: (() => Promise<void>)[] = [];

  if (base.FORGEJO_URL) {
    const env = loadBotEnv(process.env);
    if (!env.FORGEJO_TOKEN) throw new CheckpostError("FORGEJO_TOKEN is required with FORGEJO_URL (a token of the bot's user with write:issue and read:repository).");
    const bot = await startBot(botConfigFromEnv(env, { url: base.FORGEJO_URL, token: env.FORGEJO_TOKEN }), { logger }).catch(portHint("PORT", env.PORT));
    stops.push(bot.stop);
    logger.info({ url: bot.url, webhooks: `${bot.url}${env.WEBHOOK_PATH}`, sessions: bot.trackers().map((t) => t.key) }, "checkpost bot running");
  } else {
    // Embedded mode: we own both ends, so a secret is made up when none is given.
    const dataDir = process.env["CHECKPOST_DATA_DIR"] || ".data";
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // The bot API needs a bearer token (CHECKPOST_API_TOKEN); one is made up on the first start and
    // kept in the data directory (owner-only), so the printed token stays valid across restarts.
    const apiTokenFile = join(dataDir, "api-token");
    const apiToken = process.env["CHECKPOST_API_TOKEN"] || readSecretFile(apiTokenFile) || randomSecret();
    if (!process.env["CHECKPOST_API_TOKEN"]) writeSecretFile(apiTokenFile, apiToken);
    // A signing key too (same file rules), so the demo passes `checkpost doctor`: without one a writer
    // could roll an agent back through the resume index.
    const keyFile = join(dataDir, "signing-key");
    const signingKey = process.env["CHECKPOST_SIGNING_KEY"] || readSecretFile(keyFile) || randomSecret();
    if (!process.env["CHECKPOST_SIGNING_KEY"]) writeSecretFile(keyFile, signingKey);
    // The bot believes the agents' own user (its own login it always trusts).
    const trusted = [process.env["CHECKPOST_TRUSTED_AUTHORS"], DEMO_AGENT_LOGIN].filter(Boolean).join(",");
    const env = parseEnv(BotEnvSchema, {
      ...process.env,
      WEBHOOK_SECRET: process.env["WEBHOOK_SECRET"] || randomSecret(),
      CHECKPOST_API_TOKEN: process.env["CHECKPOST_API_TOKEN"] || apiToken,
      CHECKPOST_SIGNING_KEY: signingKey,
      CHECKPOST_TRUSTED_AUTHORS: trusted,
    });
    const world = await startEmbeddedForgejo({ dataDir: env.CHECKPOST_DATA_DIR, port: env.CHECKPOST_FORGE_PORT, title: env.CHECKPOST_SESSION_TITLE, label: env.CHECKPOST_SESSION_LABEL, logger }).catch(
      portHint("CHECKPOST_FORGE_PORT", env.CHECKPOST_FORGE_PORT),
    );
    stops.push(() => world.forge.close());
    const repoSpec = `${world.repo.owner}/${world.repo.repo}`;
    const bot = await startBot(botConfigFromEnv({ ...env, CHECKPOST_REPOSITORIES: repoSpec }, { url: world.forge.url, token: world.token }), { logger }).catch(portHint("PORT", env.PORT));
    stops.unshift(bot.stop);
    await world.connectWebhook(bot.url, env.WEBHOOK_SECRET as string, env.WEBHOOK_PATH);
    // The agents' settings, owner-only: their own token (never the bot's site-admin token, which stays in
    // forge/bot-token), the key, the bot's login to trust (its carried checkpoints and archive records).
    const agentEnv = join(env.CHECKPOST_DATA_DIR, "agent.env");
    writeSecretFile(
      agentEnv,
      [
        `FORGEJO_URL=${world.forge.url}`,
        `FORGEJO_TOKEN=${world.agent.token}`,
        `FORGEJO_REPO=${repoSpec}`,
        `CHECKPOST_TRUSTED_AUTHORS=${world.login}`,
        `CHECKPOST_BOT_LOGIN=${world.login}`,
        `CHECKPOST_SIGNING_KEY=${signingKey}`,
        `CHECKPOST_API_TOKEN=${apiToken}`,
      ].join("\n"),
    );
    // One "ready" line with everything to open or call, then the lines to try a save and to check the setup.
    const ready = [
      `checkpost ready: web view ${world.forge.url}/${repoSpec}/issues/${world.issue}`,
      `sign in as ${world.person.login} / ${world.person.password} to tick the dashboard's controls`,
      `bot API ${bot.url}/api/sessions (Authorization: Bearer ${apiToken})`,
      `health ${bot.url}/healthz`,
      `Forgejo API ${world.forge.apiUrl}/version`,
      `data in ${env.CHECKPOST_DATA_DIR}`,
    ].join(" | ");
    const asAgent = `set -a; . ${agentEnv}; set +a;`;
    // This clone's bin (npm start built it); never `npx checkpost`: that name on the registry is not ours.
    const save = `try: (${asAgent} node bin/checkpost.cjs save --agent implementation-worker --session demo --phase clone_complete --data '{"branch_name":"feat/demo"}')  # as ${world.agent.login}, the agents' own user`;
    const check = `check: (${asAgent} node bin/checkpost.cjs doctor --bot-url ${bot.url})`;
    process.stdout.write(`${ready}\n${save}\n${check}\n`);
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
