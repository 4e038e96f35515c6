// The CLI's settings and adapters beyond the session store (doctor's clients, rebuild's store). Part of
// the composition root (src/app/); loaded only by the commands that ask for them.
import { join } from "node:path";
import * as z from "zod";
import { ClientEnvSchema, parseEnv, repoFromEnv } from "../config/env.ts";
import type { ClientEnv, RepoFromEnv } from "../config/env.ts";
import { ConfigError } from "../errors.ts";
import { pickHost } from "../hosts/index.ts";
import type { IssueHost } from "../ports/issue-host.ts";
import { createSqliteProjectionStore } from "../bot-state/index.ts";
import type { ProjectionStore } from "../bot-state/index.ts";
import type { CliIo } from "../cli/io.ts";

const StoreEnvSchema = z.object({
  CHECKPOST_DATA_DIR: z.string().default(".data"),
  CHECKPOST_STORE_FILE: z.string().min(1).optional(),
});

/** The client settings; a repository that cannot be named is returned as its error (doctor reports it as a check). */
export function clientSettings(io: CliIo, repoFlag: string | undefined): { env: ClientEnv; repo: RepoFromEnv | ConfigError } {
  const env = parseEnv(ClientEnvSchema, io.env);
  try {
    return { env, repo: repoFromEnv(env, repoFlag) };
  } catch (e) {
    if (e instanceof ConfigError) return { env, repo: e };
    throw e;
  }
}

/** The issue host `o.host` names in the registry, trying once (doctor); anonymous without a token. */
export function checkingHost(o: { host: string; url: string; token?: string; timeoutMs: number }): IssueHost {
  return pickHost(o.host).open({ url: o.url, ...(o.token !== undefined ? { token: o.token } : {}), retries: 0, timeoutMs: o.timeoutMs }).api;
}

/** The bot's SQLite store: --store, else CHECKPOST_STORE_FILE, else <CHECKPOST_DATA_DIR>/bot/projection.sqlite. */
export async function openCliBotStore(io: CliIo, flag: string | undefined): Promise<{ store: ProjectionStore; file: string }> {
  const env = parseEnv(StoreEnvSchema, io.env);
  const file = flag ?? env.CHECKPOST_STORE_FILE ?? join(env.CHECKPOST_DATA_DIR, "bot", "projection.sqlite");
  return { store: createSqliteProjectionStore(file), file };
}
