/** Forgejo's API error shapes (services/context/api.go). */
import type { ApiResult } from "./types.ts";

/** Thrown by handlers; carries the finished response. */
export class ApiFailure extends Error {
  constructor(readonly result: ApiResult) {
    super(`forge api failure ${result.status}`);
  }
}

/** setting.API.SwaggerURL = AppURL + "api/swagger". */
export function swaggerUrl(baseUrl: string): string {
  return `${baseUrl}/api/swagger`;
}

/** ctx.Error(status, title, msg): {"message","url"} (APIError). */
export function apiError(baseUrl: string, status: number, message: string): ApiFailure {
  return new ApiFailure({ status, json: { message, url: swaggerUrl(baseUrl) } });
}

/**
 * ctx.NotFound(objs...) (services/context/api.go:310-331): the APINotFound struct, keys in field order
 * message, url, errors, and `errors` is never null (make([]string, 0)). A string argument replaces the
 * message (Forgejo really answers e.g. "IsErrIssueNotExist"); error arguments are collected in "errors".
 */
export function notFound(baseUrl: string, message?: string, errors?: string[]): ApiFailure {
  return new ApiFailure({
    status: 404,
    json: { message: message ?? "The target couldn't be found.", url: swaggerUrl(baseUrl), errors: errors ?? [] },
  });
}

/**
 * ctx.NotFoundOrServerError (services/context/api.go:449-455) answers a not-found with ctx.JSON(404, nil):
 * the body is the JSON literal `null`. Used by the issue-attachment routes for a missing issue or attachment.
 */
export function notFoundNull(): ApiFailure {
  return new ApiFailure({ status: 404, json: null });
}

/**
 * A path no API route matches: chi's default NotFound handler is http.NotFound (go-chi/chi v5.2.3
 * mux.go:398-402; Forgejo's API router sets none, routers/api/v1/api.go:831-1735), so the answer is plain
 * text, not an APIError.
 */
export function unknownRoute(): ApiFailure {
  return new ApiFailure({ status: 404, raw: "404 page not found\n", contentType: "text/plain; charset=utf-8" });
}

/**
 * A path Forgejo routes, with a method it does not: chi's methodNotAllowedHandler (go-chi/chi v5.2.3
 * mux.go:518-526) adds one Allow header per method of the route and writes 405 with an empty body.
 */
export function methodNotAllowed(allowed: readonly string[]): ApiFailure {
  return new ApiFailure({ status: 405, headers: allowed.length > 0 ? { Allow: allowed.join(", ") } : {} });
}

/** ctx.Status(code): headers only, empty body (Forgejo does this for several 403s). */
export function statusOnly(status: number): ApiFailure {
  return new ApiFailure({ status });
}
