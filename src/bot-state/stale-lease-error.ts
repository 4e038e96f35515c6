import { CheckpostError } from "../errors.ts";

/**
 * A leader write carried a fencing token older than the lease's current one:
 * another process took the lease over (this one paused, lost its connection or
 * outlived its TTL). The write was refused and nothing was changed; the process
 * must stop acting as leader until it acquires the lease again.
 */
export class StaleLeaseError extends CheckpostError {
  override name = "StaleLeaseError";
  constructor(
    readonly lease: string,
    readonly token: number,
    readonly current: number | null,
  ) {
    super(
      `lease "${lease}" is held with fencing token ${current ?? "none"}, not ${token}: another bot process took over; this write was refused. ` +
        "Nothing needs doing if another bot instance is running; otherwise restart this one.",
    );
  }
}
