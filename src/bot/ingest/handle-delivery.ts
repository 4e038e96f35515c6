import type { Logger } from "pino";
import type { z } from "zod";
import type { RepoRef } from "../../ports/issue-host.ts";
import type { CommentEvent } from "../../projection/index.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import { IssueCommentPayloadSchema, IssuesPayloadSchema } from "./payloads.ts";
import type { WatchedIssue } from "../tracker-ports.ts";

export interface DeliveryDeps {
  log: Logger;
  metrics: BotMetrics;
  self: string;
  watched: (r: RepoRef) => boolean;
  track: (r: RepoRef, issue: number) => Promise<WatchedIssue>;
  tracker: (r: RepoRef, issue: number) => WatchedIssue | undefined;
  isSessionIssue: (issue: { title: string; labels?: { name: string }[] | null; pull_request?: unknown }) => boolean;
}

/** The payload checked against its schema, or null (logged) when it does not fit. */
function validated<S extends z.ZodType>(schema: S, payload: unknown, event: string, log: Logger): z.output<S> | null {
  const r = schema.safeParse(payload);
  if (r.success) return r.data;
  log.warn({ event, issue: r.error.issues[0] }, `${event} payload does not have the expected shape; ignored`);
  return null;
}

/**
 * One verified delivery → projection events. Payloads are checked with zod;
 * a payload that does not fit is counted and logged, never half-applied.
 */
export async function handleDelivery(event: string, payload: unknown, d: DeliveryDeps, deliveryId: string | null = null): Promise<void> {
  const started = process.hrtime.bigint();
  let result = "ignored";
  try {
    if (event === "issue_comment") {
      const data = validated(IssueCommentPayloadSchema, payload, event, d.log);
      if (!data) {
        result = "invalid";
        return;
      }
      const { issue, comment, repository, action } = data;
      const repo = { owner: repository.owner.login, repo: repository.name };
      if (!d.watched(repo) || data.is_pull) return;
      let t = d.tracker(repo, issue.number);
      if (!t) {
        if (!d.isSessionIssue(issue) || issue.state !== "open") return;
        t = await d.track(repo, issue.number); // a new session issue: read it whole first
      }
      const ev: CommentEvent =
        action === "deleted"
          ? { type: "delete", commentId: comment.id }
          : {
              type: "upsert",
              comment: {
                id: comment.id,
                author: comment.user.login,
                body: comment.body,
                createdAt: comment.created_at,
                updatedAt: comment.updated_at,
                ...(comment.html_url ? { htmlUrl: comment.html_url } : {}),
              },
            };
      // People's /checkpost commands run inside apply, once per comment id whatever path it came by (WatchedIssue.runCommands).
      result = (await t.apply([ev], deliveryId)) ? "applied" : "unchanged";
    } else if (event === "issues") {
      const data = validated(IssuesPayloadSchema, payload, event, d.log);
      if (!data) {
        result = "invalid";
        return;
      }
      const { issue, repository, sender, action } = data;
      const repo = { owner: repository.owner.login, repo: repository.name };
      if (!d.watched(repo)) return;
      const t = d.tracker(repo, issue.number);
      if (t) {
        if (action === "edited" && sender.login.toLowerCase() !== d.self.toLowerCase() && typeof issue.body === "string") {
          // Ticked or unticked control boxes: always the body before this edit against the body after it
          // (Forgejo sends the one before as changes.body.from), never against what the bot would write.
          const before = data.changes?.body?.from;
          if (before !== undefined && before !== issue.body) await t.onHumanBodyEdit(before, issue.body, { login: sender.login }, issue.updated_at ?? null);
          // No body change named (a title edit), or the body resent unchanged (Forgejo's ChangeContent after every
          // attachment upload, routers/api/v1/repo/issue_attachment.go:225): nothing was ticked by this edit.
          else await t.onBodyDelivered(issue.body, issue.user?.login ?? null, issue.updated_at ?? null);
        }
        result = "applied";
      } else if (issue.state === "open" && d.isSessionIssue(issue)) {
        await d.track(repo, issue.number);
        result = "tracked";
      }
    }
  } catch (e) {
    result = "failed";
    throw e;
  } finally {
    d.metrics.deliveries.inc({ event: event === "issue_comment" || event === "issues" ? event : "other", result });
    d.metrics.handleSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
  }
}
