import { CheckpostError } from "../../errors.ts";

/**
 * PostgreSQL could not be reached or answered with an error: nothing was
 * stored. `status` is what a webhook delivery is answered with (Probot's
 * middleware uses it), so Forgejo records the delivery as failed and it can
 * be redelivered.
 */
export class StoreUnavailableError extends CheckpostError {
  override name = "StoreUnavailableError";
  readonly status = 503;
}
