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

/** An HTTP error from Forgejo. The status rides on the error, as in @octokit/webhooks. */
export class ForgejoApiError extends CheckpostError {
  override name = "ForgejoApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly method: string,
    readonly url: string,
    options?: { cause?: unknown; retryAfter?: string },
  ) {
    super(message, options);
    this.retryAfter = options?.retryAfter;
  }
  /** The Retry-After header of a 429/503, as sent. */
  readonly retryAfter: string | undefined;
}

/** A response from Forgejo that does not have the shape we rely on. */
export class ForgejoResponseError extends CheckpostError {
  override name = "ForgejoResponseError";
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
