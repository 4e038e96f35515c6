import { CheckpostError } from "../errors.ts";

/** A write refused because the writer's lease is no longer the issue's current one. */
export class FencedOffError extends CheckpostError {
  override name = "FencedOffError";
  constructor(
    readonly issueKey: string,
    readonly token: number,
  ) {
    super(`lease of ${issueKey} with fencing token ${token} is no longer current: another replica took it over; this write was refused`);
  }
}
