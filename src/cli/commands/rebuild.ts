import { join } from "node:path";
import * as z from "zod";
import { parseEnv } from "../../config/env.ts";
import { CheckpostError } from "../../errors.ts";
import { createSqliteProjectionStore, issueKey, rebuildIssue } from "../../projection-store/index.ts";
import { cliContext } from "../context.ts";
import type { RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";

const StoreEnvSchema = z.object({
  CHECKPOST_DATA_DIR: z.string().default(".data"),
  CHECKPOST_STORE_FILE: z.string().min(1).optional(),
});

/**
 * `checkpost rebuild`: refill the bot's store for the session issue from a full
 * read of Forgejo. Takes the issue's writer lease for the duration, so it
 * refuses to run under a live bot (stop the bot, rebuild, start it).
 */
export async function rebuild(io: CliIo, o: RepoFlags & { store?: string }): Promise<void> {
  const env = parseEnv(StoreEnvSchema, io.env);
  const file = o.store ?? env.CHECKPOST_STORE_FILE ?? join(env.CHECKPOST_DATA_DIR, "bot", "projection.sqlite");
  const ctx = cliContext(io, o);
  const issue = await ctx.withStore((s) => s.issueNumber());
  const repo = ctx.store.repo;
  const store = createSqliteProjectionStore(file);
  try {
    const key = issueKey(repo, issue);
    const lease = await store.acquireLease(key, `checkpost rebuild (pid ${process.pid})`, 10 * 60_000);
    if (!lease) throw new CheckpostError(`a bot holds the writer lease of ${key} in ${file}: stop the bot first, then run \`checkpost rebuild\` again`);
    const started = Date.now();
    try {
      const comments = await rebuildIssue({ api: ctx.api, store, repo, issue });
      printJson(io, { issue, store: file, comments, ms: Date.now() - started });
    } finally {
      await store.releaseLease(lease);
    }
  } finally {
    await store.close();
  }
}
