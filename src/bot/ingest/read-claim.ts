import { systemMs } from "../../clock.ts";
import type { IssueHost } from "../../ports/issue-host.ts";
import type { ReadClaim } from "../tracker-ports.ts";

/** How far before the newest comment seen a poll may start, to join on the "complete up to" time (see ReadClaimCell.pollFrom). */
export const CLAIM_CATCH_UP_MS = 10_000;
/** Longest a first start waits for the host's next second to claim past its newest comment (see ReadClaimCell.waitPastSecond). */
export const CLAIM_WAIT_MAX_MS = 2_500;

const second = (ms: number) => Math.floor(ms / 1000) * 1000;

/**
 * The tracker's "complete up to" claim (issue 32; see ReadClaim): moved only by the tracker's own list
 * reads, never by webhooks, and read by the dashboard section into the resume index. Host time, whole
 * seconds: the reads are judged against the host's `updated_at`, not the bot's clock.
 */
export class ReadClaimCell implements ReadClaim {
  ms = 0;

  constructor(private readonly api: Pick<IssueHost, "serverClockOffsetMs" | "requestCount">) {}

  /** A restart from the store: complete before its watermark's second (it reads only since then), as the index's watermark is. */
  restartAt(watermarkSecondMs: number): void {
    this.ms = watermarkSecondMs;
  }

  /** A read sent at host time `sentAtMs` listed every comment updated since `fromMs` (0: all): extend the claim when it joins on. */
  note(fromMs: number, sentAtMs: number): void {
    if (Number.isNaN(sentAtMs) || second(fromMs) > this.ms) return; // unknown host time, or a gap between the claim and this read
    this.ms = Math.max(this.ms, second(sentAtMs));
  }

  /**
   * Where a poll starts: from the claim when it is a little older than `pollFromMs` (a comment stamped in
   * the last read's own second, after it was sent, left a gap), so the claim keeps up; never far back
   * (webhooks move pollFromMs).
   */
  pollFrom(pollFromMs: number): number {
    const c = this.ms;
    return c > 0 && c < pollFromMs && pollFromMs - c <= CLAIM_CATCH_UP_MS ? c : pollFromMs;
  }

  /** The host's time as a read is sent, a lower bound (see forEachCommentBatch); NaN until the host's clock is known. */
  sentAt(): number {
    return this.api.requestCount > 0 ? systemMs() + this.api.serverClockOffsetMs : Number.NaN;
  }

  /**
   * After the first read from the host: when the newest comment (`newestMs`) was stamped in the second the
   * read was sent (saves right before the bot started), the claim cannot cover that second, and every cold
   * reader of the first index would list it again. So wait for the host's next second (our estimate of its
   * clock lags it by up to a second and the round trip: at most CLAIM_WAIT_MAX_MS). True: poll once more,
   * and the first index says it is complete past it.
   */
  async waitPastSecond(newestMs: number): Promise<boolean> {
    const newest = second(newestMs);
    if (newest === 0 || this.ms > newest) return false;
    const deadline = systemMs() + CLAIM_WAIT_MAX_MS;
    const hostNow = () => systemMs() + this.api.serverClockOffsetMs;
    // Checked again after each wait: an answer meanwhile may have set the estimate lower (Date is whole seconds).
    for (let waitMs = newest + 1000 - hostNow(); waitMs > 0; waitMs = newest + 1000 - hostNow()) {
      if (systemMs() + waitMs > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    return true;
  }
}
