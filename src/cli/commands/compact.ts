import { compactHealth } from "../../compaction/compact-health.ts";
import { selectSupersededHealth } from "../../compaction/select-superseded-health.ts";
import { readAllComments, toCommentRecord } from "../../session-client/index.ts";
import { parseDuration } from "../../util/parse-duration.ts";
import type { CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, clockOf, printJson } from "../io.ts";
import { usage } from "../parse-json-arg.ts";

/** `checkpost compact [--dry-run]`: what the bot's writer does every CHECKPOST_COMPACTION_INTERVAL_MS, by hand. */
export async function compact(io: CliIo, o: RepoFlags & { retention?: string; dryRun?: boolean }, root: CliRoot): Promise<void> {
  const retentionMs = parseDuration(o.retention ?? io.env["CHECKPOST_HEALTH_RETENTION"] ?? "24h");
  if (retentionMs === null || retentionMs <= 0) throw usage(`--retention ${o.retention}: must be a duration like "24h" or "90m"`);
  const ctx = await root.context(io, o);
  const issue = await ctx.withStore((s) => s.issueNumber());
  const comments = (await readAllComments(ctx.api, ctx.store.repo, issue)).map(toCommentRecord);
  const policy = await ctx.store.policy();
  const selected = selectSupersededHealth(comments, policy, clockOf(io)().getTime(), retentionMs);
  const result = await compactHealth({ api: ctx.api, repo: ctx.store.repo, issue, selected, dryRun: Boolean(o.dryRun), ...(policy.signingKey !== undefined ? { signingKey: policy.signingKey } : {}) });
  printJson(io, { issue, ...result, comments: selected.map((c) => ({ id: c.id, author: c.author, created_at: c.createdAt })) });
}
