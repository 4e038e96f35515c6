import type { Logger } from "pino";
import type { DeliveredIssue, HostDelivery, ReadDelivery, RepoRef } from "../../ports/issue-host.ts";
import type { CommentEvent } from "../../projection/index.ts";
import type { BotMetrics } from "../bot-metrics.ts";
import type { WatchedIssue } from "../tracker-ports.ts";

export interface DeliveryDeps {
  log: Logger;
  metrics: BotMetrics;
  self: string;
  watched: (r: RepoRef) => boolean;
  track: (r: RepoRef, issue: number) => Promise<WatchedIssue>;
  tracker: (r: RepoRef, issue: number) => WatchedIssue | undefined;
  isSessionIssue: (issue: DeliveredIssue) => boolean;
  /** The host's payload reader (its adapter's: the bot reads no host's field names). */
  readDelivery: ReadDelivery;
}

/** The delivery as the host's adapter reads it, or null: an event the bot does not read, or (logged) a payload that does not fit. */
function read(event: string, payload: unknown, d: DeliveryDeps): HostDelivery | "invalid" | null {
  const r = d.readDelivery(event, payload);
  if (r === null || !("invalid" in r)) return r;
  d.log.warn({ event, issue: r.invalid }, `${event} payload does not have the expected shape; ignored`);
  return "invalid";
}

/**
 * One verified delivery → projection events. The host's adapter checks the payload (zod) and maps it
 * to a HostDelivery; a payload that does not fit is counted and logged, never half-applied.
 */
export async function handleDelivery(event: string, payload: unknown, d: DeliveryDeps, deliveryId: string | null = null): Promise<void> {
  const started = process.hrtime.bigint();
  let result = "ignored";
  try {
    const data = read(event, payload, d);
    if (data === "invalid") {
      result = "invalid";
      return;
    }
    if (data?.event === "comment") {
      const { issue, comment, repo, action } = data;
      if (!d.watched(repo) || data.onPullRequest) return;
      let t = d.tracker(repo, issue.number);
      if (!t) {
        if (!d.isSessionIssue(issue) || issue.state !== "open") return;
        t = await d.track(repo, issue.number); // a new session issue: read it whole first
      }
      const ev: CommentEvent = action === "deleted" ? { type: "delete", commentId: comment.id } : { type: "upsert", comment };
      // People's /checkpost commands run inside apply, once per comment id whatever path it came by (WatchedIssue.runCommands).
      result = (await t.apply([ev], deliveryId)) ? "applied" : "unchanged";
    } else if (data?.event === "issue") {
      const { issue, repo, sender, action } = data;
      if (!d.watched(repo)) return;
      const t = d.tracker(repo, issue.number);
      if (t) {
        if (action === "edited" && sender.toLowerCase() !== d.self.toLowerCase() && typeof issue.body === "string") {
          // Ticked or unticked control boxes: always the body before this edit against the body after it
          // (Forgejo sends the one before as changes.body.from), never against what the bot would write.
          const before = data.bodyBefore;
          if (before !== undefined && before !== issue.body) await t.onHumanBodyEdit(before, issue.body, { login: sender }, issue.updatedAt);
          // No body change named (a title edit), or the body resent unchanged (Forgejo's ChangeContent after every
          // attachment upload, routers/api/v1/repo/issue_attachment.go:225): nothing was ticked by this edit.
          else await t.onBodyDelivered(issue.body, issue.author, issue.updatedAt);
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
