import { createProjection, entryKey } from "../../projection/index.ts";
import { parseComment } from "../../protocol/index.ts";
import { issueChain } from "../../rollover/issue-chain.ts";
import { ARCHIVE_PREFIX, readArchive } from "../../compaction/compact-health.ts";
import { readAllComments, toCommentRecord } from "../../store/index.ts";
import { cliContext } from "../context.ts";
import type { RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";

export interface HistoryOptions extends RepoFlags {
  agent?: string;
  session?: string;
  archived?: boolean;
}

/**
 * `checkpost history`: every checkpoint of the session, across the chain of
 * issues rollover made (oldest issue first), one JSON object per line. Carried
 * copies are left out (the original is listed where it was written). Trust is
 * shown, not filtered: `trusted` says whether a resume would believe it.
 */
export async function history(io: CliIo, o: HistoryOptions): Promise<void> {
  const ctx = cliContext(io, o);
  const newest = await ctx.withStore((s) => s.issueNumber());
  const policy = await ctx.store.policy();
  const chain = await issueChain(ctx.api, ctx.store.repo, newest, policy.trustedAuthors);
  if (o.archived) {
    // The health signals compaction removed, from the archives attached to each issue (docs/retention.md).
    for (const issue of chain)
      for (const asset of await ctx.api.listIssueAttachments(ctx.store.repo, issue.number)) {
        if (!asset.name.startsWith(ARCHIVE_PREFIX)) continue;
        for (const c of readArchive(await ctx.api.downloadAttachment(asset.browser_download_url))) {
          const parsed = parseComment(c.body);
          const h = parsed.kind === "health" ? parsed.health : null;
          if ((o.agent && h?.agent !== o.agent) || (o.session && h?.session !== o.session)) continue;
          io.out(
            `${JSON.stringify({ issue: issue.number, archive: asset.name, comment_id: c.id, created_at: c.created_at, author: c.author, kind: parsed.kind, agent: h?.agent, session: h?.session, status: h?.status, metrics: h?.metrics, body: c.body })}\n`,
          );
        }
      }
    return;
  }
  for (const issue of chain) {
    const comments = await readAllComments(ctx.api, ctx.store.repo, issue.number);
    const p = createProjection(policy);
    p.replaceAll(comments.map(toCommentRecord));
    const untrusted = new Set(p.anomalies().map((a) => a.commentId));
    for (const c of comments) {
      if (c.body.includes("\n\n↪ carried over by checkpost from #")) continue;
      const parsed = parseComment(c.body);
      if (parsed.kind !== "checkpoint") continue;
      const cp = parsed.checkpoint;
      if ((o.agent && cp.agent !== o.agent) || (o.session && cp.session !== o.session)) continue;
      const held = p.snapshot().entries.find((e) => entryKey(e.agent, e.session) === entryKey(cp.agent, cp.session));
      io.out(
        `${JSON.stringify({ issue: issue.number, comment_id: c.id, created_at: c.created_at, author: c.user.login, agent: cp.agent, session: cp.session, phase: cp.phase, seq: cp.seq, epoch: cp.epoch, trusted: !untrusted.has(c.id) && policy.trustedAuthors.has(c.user.login.toLowerCase()), latest: held?.latest?.commentId === c.id })}\n`,
      );
    }
  }
}

/** `checkpost latest --all-issues`: the newest trusted checkpoint across the whole chain (comment ids are global, so newest is highest). */
export async function latestAllIssues(io: CliIo, o: RepoFlags & { agent: string; session?: string }): Promise<void> {
  const ctx = cliContext(io, o);
  const newest = await ctx.withStore((s) => s.issueNumber());
  const policy = await ctx.store.policy();
  const p = createProjection(policy);
  const where = new Map<number, number>();
  for (const issue of await issueChain(ctx.api, ctx.store.repo, newest, policy.trustedAuthors)) {
    const comments = await readAllComments(ctx.api, ctx.store.repo, issue.number);
    for (const c of comments) where.set(c.id, issue.number);
    p.applyAll(comments.map((c) => ({ type: "upsert" as const, comment: toCommentRecord(c) })));
  }
  const cp = p.latest(o.agent, o.session);
  if (!cp) return printJson(io, null);
  const { commentId, createdAt: _c, htmlUrl, phase, timestamp, data, ...extra } = cp;
  printJson(io, { kind: "checkpoint", agent: o.agent, phase, version: "1.0", timestamp, data, ...extra, comment_id: commentId, issue: where.get(commentId), html_url: htmlUrl });
}
