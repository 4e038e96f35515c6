/**
 * Typed errors. Each carries a message that tells the user what to do; the CLI
 * prints only the message unless --debug is given.
 */

/** Base class so callers can tell checkpost's own errors from bugs. */
export class CheckpostError extends Error {
  override name = "CheckpostError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A comment body that is not a valid checkpoint, with the reason. */
export class CheckpointParseError extends CheckpostError {
  override name = "CheckpointParseError";
}

/** A value we were asked to write that the protocol cannot carry. */
export class ProtocolInputError extends CheckpostError {
  override name = "ProtocolInputError";
}

/** A save larger than the configured cap; says what to leave out. */
export class CheckpointTooLargeError extends CheckpostError {
  override name = "CheckpointTooLargeError";
  constructor(
    readonly bytes: number,
    readonly limit: number,
    readonly largestKeys: string[],
    readonly kind: "checkpoint" | "health signal" = "checkpoint",
  ) {
    super(
      `${kind} body is ${bytes} bytes, over the ${limit}-byte cap (CHECKPOST_MAX_CHECKPOINT_BYTES). ` +
        `Save just enough to resume: leave out or shorten ${largestKeys.length ? largestKeys.map((k) => `"${k}"`).join(", ") : "the largest fields"} ` +
        `(store big artefacts elsewhere and checkpoint a reference).`,
    );
  }
}

/**
 * Why a call to the issue host failed, in checkpost's terms rather than the host's status codes (each
 * adapter maps its own: GitHub, say, answers a rate limit with 403 or 429). Callers decide by reason:
 * - `not-found`: no such thing, or the token may not see it;
 * - `conflict`: the state changed under the request (a concurrent write);
 * - `forbidden`: the token may not do this;
 * - `unauthenticated`: the token is missing, mistyped, expired or revoked;
 * - `rate-limited`: too many requests, and the retries ran out;
 * - `invalid`: the host refused the values sent;
 * - `unavailable`: no answer, or the host failed (5xx): a write's outcome may be unknown.
 */
export type HostErrorReason = "not-found" | "conflict" | "forbidden" | "unauthenticated" | "rate-limited" | "invalid" | "unavailable";

/** A failed call to the issue host, by intent (issue 31): the one error the code outside an adapter looks at. */
export class HostError extends CheckpostError {
  override name = "HostError";
  constructor(
    message: string,
    readonly reason: HostErrorReason,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A webhook delivery or checkpoint whose signature does not verify. */
export class SignatureError extends CheckpostError {
  override name = "SignatureError";
}

/** Bad configuration (env, flags, files); the message names the setting. */
export class ConfigError extends CheckpostError {
  override name = "ConfigError";
}

/** The session-state issue could not be found (and was not to be created). */
export class SessionIssueNotFoundError extends CheckpostError {
  override name = "SessionIssueNotFoundError";
}

/** A session issue is closed and the chain of rollovers from it cannot be followed to an open issue (docs/chain.md). */
export class SessionChainError extends SessionIssueNotFoundError {
  override name = "SessionChainError";
}

/** Only the CLI exits: other code throws this with the exit code it wants. */
export class ExitError extends CheckpostError {
  override name = "ExitError";
  constructor(
    readonly code: number,
    message = `exit ${code}`,
  ) {
    super(message);
  }
}
