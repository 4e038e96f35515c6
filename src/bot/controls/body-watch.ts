import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../../ports/issue-host.ts";
import type { BotState } from "../../bot-state/index.ts";
import { bodyEditKey, controlBoxesOf } from "../../dashboard/index.ts";
import type { IssueLease } from "../replicas/issue-lease.ts";
import type { DashboardWriter } from "../upkeep/dashboard-writer.ts";
import type { BodyEditor, ControlDesk } from "./control-desk.ts";

/** What BodyWatch uses: the body on the host, the boxes in the store, the writer's hold, the control desk. */
export interface BodyWatchDeps {
  api: Pick<IssueHost, "readIssueBody">;
  repo: RepoRef;
  issue: number;
  store: Pick<BotState, "updateIssueMeta">;
  /** The store's key of this issue. */
  storeKey: string;
  /** owner/repo#issue, for logs. */
  key: string;
  lease: Pick<IssueLease, "current">;
  logger: Pick<Logger, "warn">;
  /** The writer holds its writes after a person's edit, and knows its own bodies. */
  dashboard: Pick<DashboardWriter, "noteHumanEdit" | "isOwnBody">;
  /** Where changed boxes become commands. */
  controls: Pick<ControlDesk, "onBodyEdit">;
}

/**
 * The issue body as people edit it: notices a person's edit (by a webhook, a poll, a read before a
 * dashboard write, or a restart against the boxes last stored), holds the dashboard writer, and hands
 * the changed boxes to the control desk.
 */
export class BodyWatch {
  /** The issue body as last seen or written by this process (null: not read yet), to notice people's edits when polling. */
  private knownBody: string | null = null;
  /**
   * The control boxes of the last body seen, as the store keeps them (IssueMeta.boxesSeen, see
   * controlBoxesOf): a restart diffs the body it first reads against them, so a box ticked while the
   * bot was down is seen (issue 28.4). null: nothing stored (a first start on this issue).
   */
  private boxesSeen: string | null = null;

  constructor(private readonly d: BodyWatchDeps) {}

  /** The boxes the store kept (IssueMeta.boxesSeen), read at the tracker's start. */
  restore(boxesSeen: string | null): void {
    this.boxesSeen = boxesSeen;
  }

  /**
   * A person's edit of the body: hold dashboard writes, act on changed control
   * boxes. `before` is the body they edited (a webhook's `changes.body.from`),
   * else the body this process last knew.
   */
  async onHumanBodyEdit(before: string | null, after: string, editor: BodyEditor, editedAt: string | null = null): Promise<void> {
    const prev = before ?? this.knownBody ?? this.boxesSeen;
    this.knownBody = after;
    this.d.dashboard.noteHumanEdit(after);
    // Stored before the boxes act: a restart after this point diffs against this body, never runs the edit again.
    await this.rememberBody(after);
    if (prev !== null) await this.d.controls.onBodyEdit(prev, after, editor, bodyEditKey(editedAt, after));
  }

  /**
   * An `issues.edited` delivery that names no body change (a title edit, an attachment upload): the
   * body is compared with the last one seen, as a poll does; the sender edited something else, so the
   * editor of any body change found is unknown. `poster` null: the payload named none (a poll diffs later).
   */
  async onBodyDelivered(body: string, poster: string | null, updatedAt: string | null): Promise<void> {
    if (body === this.knownBody) return;
    if (poster === null) return;
    await this.onPolledBody(body, poster, updatedAt);
  }

  /** A body read by a poll, before a dashboard write, or by a delivery that named no body change. */
  async onPolledBody(body: string, poster: string, updatedAt: string | null): Promise<void> {
    if (body === this.knownBody) return;
    // The bot's own write read back before it returned (or another replica's): not a person's edit.
    if (this.d.dashboard.isOwnBody(body)) {
      this.knownBody = body;
      await this.rememberBody(body);
      return;
    }
    if (this.knownBody === null) {
      // The first read of this process. With the boxes of the last body seen in the store, a change since
      // was made while the bot was down (both modes: Forgejo does not redeliver what failed meanwhile).
      const stored = this.boxesSeen;
      if (stored !== null && controlBoxesOf(body) !== stored) return this.onHumanBodyEdit(stored, body, { whileDownOnIssuePostedBy: poster }, updatedAt === null ? null : `down:${updatedAt}`);
      this.knownBody = body;
      await this.rememberBody(body);
      return;
    }
    await this.onHumanBodyEdit(null, body, { unknownEditorOfIssuePostedBy: poster }, updatedAt);
  }

  /** The dashboard writer wrote this body. */
  written(body: string): void {
    this.knownBody = body;
    void this.rememberBody(body);
  }

  /**
   * Polling: read the body too, so ticks work without webhooks. Also run on its own, more often than the
   * comments are polled (CHECKPOST_BODY_POLL_INTERVAL_MS), so a person's tick is recorded within seconds.
   */
  async pollBody(): Promise<void> {
    const issue = await this.d.api.readIssueBody(this.d.repo, this.d.issue);
    await this.onPolledBody(issue.body, issue.author, issue.updatedAt);
  }

  /** Keep the boxes of a body seen (or written) in the store, when they changed and this process is the issue's writer. */
  private async rememberBody(body: string): Promise<void> {
    const boxes = controlBoxesOf(body);
    if (boxes === this.boxesSeen) return;
    const fence = this.d.lease.current();
    if (!fence) return; // the writer keeps it; a follower that becomes the writer reads it from the store
    try {
      await this.d.store.updateIssueMeta(fence, this.d.storeKey, { boxesSeen: boxes });
      this.boxesSeen = boxes;
    } catch (e) {
      // A lease lost meanwhile, or the store down: the next body seen stores it again; the command path goes on.
      this.d.logger.warn({ err: e, issue: this.d.key }, "storing the control boxes of the body last seen failed; the next read stores them");
    }
  }
}
