import { CheckpostError } from "../errors.ts";

/** PostgreSQL could not be reached or answered with an error: nothing was stored. */
export class StoreUnavailableError extends CheckpostError {
  override name = "StoreUnavailableError";
}
