import { CheckpostError } from "../../errors.ts";
import { issueKey, rebuildIssue } from "../../bot-state/index.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, clockOf, printJson } from "../io.ts";

/**
 * `checkpost rebuild`: refill the bot's store for the session issue from a full
 * read of Forgejo. Takes the issue's writer lease for the duration, so it
 * refuses to run under a live bot (stop the bot, rebuild, start it).
 */
export async function rebuild(io: CliIo, o: RepoFlags & { store?: string }, root: CliRoot): Promise<void> {
  const ctx = await root.context(io, o);
  const issue = await ctx.withStore((s) => s.issueNumber());
  const repo = ctx.store.repo;
  const { store, file } = await root.openBotStore(io, o.store);
  try {
    const key = issueKey(repo, issue);
    const lease = await store.acquireLease(key, `checkpost rebuild (pid ${process.pid})`, 10 * 60_000);
    if (!lease) throw new CheckpostError(`a bot holds the writer lease of ${key} in ${file}: stop the bot first, then run \`checkpost rebuild\` again`);
    const now = clockOf(io);
    const started = now().getTime();
    try {
      const comments = await rebuildIssue({ api: ctx.api, store, repo, issue });
      printJson(io, { issue, store: file, comments, ms: now().getTime() - started });
    } finally {
      await store.releaseLease(lease);
    }
  } finally {
    await store.close();
  }
}
