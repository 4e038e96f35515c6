import { CheckpostError } from "../errors.ts";

/**
 * LISTEN was accepted but a probe NOTIFY never came back on that connection: the
 * database URL goes through a transaction-pooling proxy (pgbouncer in transaction
 * mode), which hands the listening server connection to other clients. Followers
 * then see other replicas' writes only at their feed poll (CHECKPOST_FEED_INTERVAL_MS);
 * point CHECKPOST_DATABASE_URL at PostgreSQL or a session-pooling proxy to wake at once.
 */
export class ChangesUnheardError extends CheckpostError {
  override name = "ChangesUnheardError";
}
