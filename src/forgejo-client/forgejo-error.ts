import { CheckpostError, HostError, type HostErrorReason } from "../errors.ts";
import { ErrorBodySchema } from "./schemas.ts";

/**
 * An HTTP error from Forgejo. The status rides on the error, as in @octokit/webhooks; the reason is
 * mapped by the adapter (src/forgejo-client/forgejo-error.ts). Code outside the adapter reads the
 * reason (HostError): this class is the adapter's own, and an import-rule test keeps its name inside
 * src/forgejo-client/, the embedded forge and the composition root.
 */
export class ForgejoApiError extends HostError {
  override name = "ForgejoApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly method: string,
    readonly url: string,
    options: { reason: HostErrorReason; cause?: unknown; retryAfter?: string },
  ) {
    super(message, options.reason, options);
    this.retryAfter = options.retryAfter;
  }
  /** The Retry-After header of a 429/503, as sent. */
  readonly retryAfter: string | undefined;
}

/** A response from Forgejo that does not have the shape we rely on. */
export class ForgejoResponseError extends CheckpostError {
  override name = "ForgejoResponseError";
}

/** What the caller was trying to reach, for messages that name it. */
export interface RequestTarget {
  method: string;
  url: string;
  /** e.g. "repository acme/widgets" or "issue #42 of acme/widgets" */
  what?: string;
}

/** What a Forgejo status means to checkpost (HostError's reason); status 0 is no answer at all. */
export function forgejoReason(status: number): HostErrorReason {
  if (status === 401) return "unauthenticated";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409 || status === 412) return "conflict";
  if (status === 429) return "rate-limited";
  if (status === 0 || status >= 500) return "unavailable";
  return "invalid";
}

/** Turn an HTTP failure into an error whose message says what to fix. */
export function forgejoError(status: number, body: unknown, target: RequestTarget, cause?: unknown, retryAfter?: string): ForgejoApiError {
  const detail = ErrorBodySchema.safeParse(body);
  const said = detail.success && detail.data.message ? ` Forgejo said: "${detail.data.message}".` : "";
  const what = target.what ?? target.url;
  let message: string;
  switch (status) {
    case 401:
      message = `Forgejo rejected the token (401). Check FORGEJO_TOKEN: it may be mistyped, expired, revoked or from another instance.${said}`;
      break;
    case 403:
      message = `Forgejo refused ${target.method} on ${what} (403): the token lacks the write:issue (or read:issue) scope, or the repository is archived or the issue locked.${said}`;
      break;
    case 404:
      message = `Not found (404): ${what} does not exist, or the token's user cannot see it. Check the repository (owner/name) and the issue number you configured.${said}`;
      break;
    case 409:
    case 422:
      message = `Forgejo rejected the request to ${what} (${status}).${said || " Check the values sent."}`;
      break;
    case 429:
      message = `Forgejo is rate limiting (429) and retries ran out. Wait and try again, or lower the request rate.${said}`;
      break;
    default:
      message =
        status >= 500
          ? `Forgejo failed (${status}) on ${target.method} ${what} and retries ran out. Check the server's health and try again.${said}`
          : `Forgejo answered ${status} on ${target.method} ${what}.${said}`;
  }
  return new ForgejoApiError(message, status, target.method, target.url, { reason: forgejoReason(status), cause, ...(retryAfter ? { retryAfter } : {}) });
}

/** A request that got no HTTP answer (reset, refused, timeout). status 0. */
export function networkError(target: RequestTarget, cause: unknown): ForgejoApiError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ForgejoApiError(`Could not reach Forgejo for ${target.method} ${target.what ?? target.url}: ${reason}. Check FORGEJO_URL and that the server is up.`, 0, target.method, target.url, {
    reason: forgejoReason(0),
    cause,
  });
}
