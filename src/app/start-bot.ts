// The bot's wiring, part of the composition root (src/app/): picks the issue host (CHECKPOST_HOST, from
// the host registry src/hosts/; Forgejo by default) and opens the bot's stores (PostgreSQL with
// CHECKPOST_DATABASE_URL, else the SQLite file), then hands them to createBot, which opens nothing
// itself (docs/architecture.md).
import type { Logger } from "pino";
import { createBot } from "../bot/create-bot.ts";
import type { Bot } from "../bot/create-bot.ts";
import type { BotConfig } from "../bot/bot-config.ts";
import { pickHost } from "../hosts/index.ts";
import type { HostDefinition } from "../ports/issue-host.ts";
import type { PostgresProjectionStore } from "../bot-state/postgres/postgres-projection-store.ts";
import { createSqliteProjectionStore } from "../bot-state/index.ts";
import type { ProjectionStore } from "../bot-state/index.ts";
import { nodeHttpFetch } from "../cli/node-http-fetch.ts";

// Loaded only when a PostgreSQL store may be in use: `pg` loads undici at import, and undici's
// WebAssembly parser leaves ~25 MiB of native heap resident (bench/memory-probe.ts, docs/benchmarks.md).
const loadPostgres = () => import("../bot-state/postgres/postgres-projection-store.ts");

export interface StartBotDeps {
  logger: Logger;
  now?: () => Date;
  /** fetch for the host's client (tests record the requests). */
  fetch?: typeof fetch;
  /** The host registry to pick `config.issueHost` from (default src/hosts/index.ts's; a test adds a host). */
  hosts?: ReadonlyMap<string, HostDefinition>;
  /** A store of the caller's (it stays open after stop()); default: the one config names, opened here and closed by stop(). */
  store?: ProjectionStore;
}

/** The bot's stores as config names them: PostgreSQL shared by replicas (docs/scale-out.md), else one SQLite file. */
export async function openBotStore(config: BotConfig, logger: Logger): Promise<ProjectionStore> {
  if (config.database) return (await loadPostgres()).PostgresProjectionStore.open({ url: config.database.url, logger, applicationName: `checkpost ${config.database.replicaId}` });
  return createSqliteProjectionStore(config.storeFile);
}

/**
 * Start the bot with the adapters config names. This is `checkpost/bot`'s `createBot` (src/app/bot-package.ts):
 * same options, same behaviour as before the composition root.
 */
export async function startBot(config: BotConfig, deps: StartBotDeps): Promise<Bot> {
  const host = pickHost(config.issueHost, deps.hosts).open({
    url: config.forgejoUrl,
    token: config.token,
    logger: deps.logger,
    retries: config.retries,
    timeoutMs: config.timeoutMs,
    // node:http, not the global fetch: undici compiles its WebAssembly HTTP parser on first use, and the
    // compiler's zones leave ~25 MiB of malloc heap resident (heaptrack, docs/benchmarks.md).
    fetch: deps.fetch ?? nodeHttpFetch(),
  });
  const store = deps.store ?? (await openBotStore(config, deps.logger));
  const close = deps.store ? async () => {} : () => store.close();
  const pg = config.database || deps.store ? await loadPostgres() : null;
  const shared: PostgresProjectionStore | undefined = pg && store instanceof pg.PostgresProjectionStore ? store : undefined;
  try {
    const bot = await createBot(config, {
      logger: deps.logger,
      ...(deps.now ? { now: deps.now } : {}),
      host,
      store,
      ...(shared ? { shared } : {}),
    });
    let closed = false;
    return {
      ...bot,
      stop: async () => {
        await bot.stop();
        if (closed) return;
        closed = true;
        await close();
      },
    };
  } catch (e) {
    await close().catch((c: unknown) => deps.logger.warn({ err: c }, "closing the bot's store after a failed start failed"));
    throw e;
  }
}
