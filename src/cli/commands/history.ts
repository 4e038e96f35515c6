import { createProjection, entryKey } from "../../projection/index.ts";
import { parseComment } from "../../protocol/index.ts";
import { issueChain } from "../../chain/issue-chain.ts";
import { trustedArchiveRecords, judgeArchive } from "../../compaction/archive-record.ts";
import { ARCHIVE_PREFIX, readArchive } from "../../compaction/compact-health.ts";
import type { ArchivedComment } from "../../compaction/compact-health.ts";
import type { TrustPolicy } from "../../projection/index.ts";
import { readAllComments, toCommentRecord } from "../../session-client/index.ts";
import type { CliContext, CliRoot, RepoFlags } from "../context.ts";
import { type CliIo, printJson } from "../io.ts";
import { existingRequired, noCheckpointHint } from "./no-checkpoint-hint.ts";

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
export async function history(io: CliIo, o: HistoryOptions, root: CliRoot): Promise<void> {
  const ctx = await root.context(io, o);
  const newest = await ctx.withStore((s) => s.issueNumber());
  const policy = await ctx.store.policy();
  const chain = await issueChain(ctx.api, ctx.store.repo, newest, policy.trustedAuthors);
  if (o.archived)
    return archivedHistory(
      io,
      ctx,
      chain.map((i) => i.number),
      policy,
      o,
    );
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
        `${JSON.stringify({ issue: issue.number, comment_id: c.id, created_at: c.createdAt, author: c.author, agent: cp.agent, session: cp.session, phase: cp.phase, seq: cp.seq, epoch: cp.epoch, trusted: !untrusted.has(c.id) && policy.trustedAuthors.has(c.author.toLowerCase()), latest: held?.latest?.commentId === c.id })}\n`,
      );
    }
  }
}

/**
 * `history --archived`: the health signals compaction archived, from every issue of the chain. Only
 * archives the bot recorded count (archive-record.ts): the record is a comment by a login this reader
 * trusts, not edited, naming the archive's SHA-256. Any other attachment named like an archive is one
 * `{"trusted":false}` line with the reason, and its contents are not read, so no author it claims is
 * shown. An archive that cannot be read is one `{"error"}` line and the rest still run (exit 0).
 */
async function archivedHistory(io: CliIo, ctx: CliContext, issues: number[], policy: TrustPolicy, o: HistoryOptions): Promise<void> {
  const repo = ctx.store.repo;
  for (const issue of issues) {
    const assets = (await ctx.api.listAttachments(repo, { issue })).filter((a) => a.name.startsWith(ARCHIVE_PREFIX));
    if (!assets.length) continue;
    const comments = (await readAllComments(ctx.api, repo, issue)).map((c) => ({ id: c.id, author: c.author, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt }));
    const { trusted } = trustedArchiveRecords(comments, { botLogins: policy.trustedAuthors, ...(policy.signingKey !== undefined ? { signingKey: policy.signingKey } : {}) });
    for (const asset of assets) {
      const report = (extra: Record<string, unknown>) => io.out(`${JSON.stringify({ issue, archive: asset.name, asset_id: asset.id, size: asset.size, ...extra })}\n`);
      let bytes: Buffer | null = null;
      if (trusted.some((r) => r.record.name === asset.name)) {
        try {
          bytes = await ctx.api.downloadAttachment(asset.downloadUrl);
        } catch (e) {
          report({ trusted: false, error: `could not be downloaded: ${e instanceof Error ? e.message : String(e)}` });
          continue;
        }
      }
      const verdict = judgeArchive(asset, bytes, trusted);
      if (!verdict.trusted) {
        report({ trusted: false, reason: verdict.reason });
        continue;
      }
      let archived: ArchivedComment[];
      try {
        archived = readArchive(bytes as Buffer);
      } catch (e) {
        // Reported and skipped: one bad archive does not hide the others.
        report({ trusted: true, recorded_by: verdict.record.recordedBy, error: `corrupt, skipped: ${e instanceof Error ? e.message : String(e)}` });
        io.err(`checkpost: archive ${asset.name} on #${issue} is corrupt and was skipped\n`);
        continue;
      }
      for (const c of archived) {
        const parsed = parseComment(c.body);
        const h = parsed.kind === "health" ? parsed.health : null;
        if ((o.agent && h?.agent !== o.agent) || (o.session && h?.session !== o.session)) continue;
        io.out(
          `${JSON.stringify({ issue, archive: asset.name, trusted: true, recorded_by: verdict.record.recordedBy, comment_id: c.id, created_at: c.created_at, author: c.author, kind: parsed.kind, agent: h?.agent, session: h?.session, status: h?.status, metrics: h?.metrics, body: c.body })}\n`,
        );
      }
    }
  }
}

/** `checkpost latest --all-issues`: the newest trusted checkpoint across the whole chain (comment ids are global, so newest is highest). */
export async function latestAllIssues(io: CliIo, o: RepoFlags & { agent: string; session?: string; existing?: boolean }, root: CliRoot): Promise<void> {
  const ctx = await root.context(io, o);
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
  if (!cp) {
    printJson(io, null);
    io.err(`checkpost: ${noCheckpointHint(p.snapshot(), o.agent, o.session)}`);
    return existingRequired(o.existing);
  }
  const { commentId, createdAt: _c, htmlUrl, phase, timestamp, data, ...extra } = cp;
  printJson(io, { kind: "checkpoint", agent: o.agent, phase, version: "1.0", timestamp, data, ...extra, comment_id: commentId, issue: where.get(commentId), html_url: htmlUrl });
}
