import type { HostComment, RepoRef } from "../ports/issue-host.ts";
import type { CommentEvent, LivenessState, Projection } from "../projection/index.ts";
import type { BodyEditor } from "./controls/control-desk.ts";
import type { IssueLease } from "./replicas/issue-lease.ts";

/**
 * What the bot's other jobs see of one watched session issue (issue 31, item 3): ingest hands it a
 * delivery, the HTTP API reads it, the replica coordinator folds another replica's changes into it.
 * They take this interface, never the SessionTracker class, so no folder of src/bot/ imports the
 * tracker (test/unit/import-rules.test.ts). SessionTracker implements it.
 */
export interface WatchedIssue {
  readonly repo: RepoRef;
  readonly issue: number;
  /** owner/repo#issue, for logs and metrics. */
  readonly key: string;
  /** The store's key of this issue. */
  readonly storeKey: string;
  /** Whether this process is the issue's one writer. */
  readonly lease: IssueLease;
  readonly projection: Projection;
  /** When the projection last took what the host or the store held (the freshness of /api/resume). */
  readonly asOf: Date | null;
  /** The issue that continues this one, once rolled over. */
  readonly successor: number | undefined;
  livenessStates(): Readonly<Record<string, LivenessState>>;
  /** Store one delivery's events (or a read's, `deliveryId` null), then fold them. */
  apply(events: CommentEvent[], deliveryId?: string | null): Promise<boolean>;
  /** A person's edit of the body, named by an `issues.edited` delivery. */
  onHumanBodyEdit(before: string | null, after: string, editor: BodyEditor, editedAt?: string | null): Promise<void>;
  /** An `issues.edited` delivery that names no body change: compared with the body last seen. */
  onBodyDelivered(body: string, poster: string | null, updatedAt: string | null): Promise<void>;
  /** Fold events another replica stored (nothing is stored again). */
  fold(events: CommentEvent[]): boolean;
  /** A follower learns of a rollover from the shared store and watches the successor too. */
  followRollover(): Promise<void>;
  /** Refresh this issue's gauges (the /metrics handler). */
  updateGauges(): void;
}

/**
 * The comments the bot itself posts from a part (the control desk's `[CONTROL]` records), folded at
 * once rather than when their webhook comes (it may come later, or never). The part emits; the tracker
 * is the one listener, connected by the factory (assemble-tracker.ts). An event, not a callback into
 * the tracker: the part knows only this channel.
 */
export class OwnComments {
  private listener: ((c: HostComment) => void) | null = null;

  /** Called by the factory once the tracker exists; a second listener replaces the first. */
  listen(listener: (c: HostComment) => void): void {
    this.listener = listener;
  }

  emit(c: HostComment): void {
    this.listener?.(c);
  }
}
