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
 * ctx.NotFound(objs...): a map, so Go sorts the keys: errors, message, url. A string argument replaces the
 * message (Forgejo really answers e.g. "IsErrIssueNotExist"); error arguments are collected in "errors".
 */
export function notFound(baseUrl: string, message?: string, errors?: string[]): ApiFailure {
  return new ApiFailure({
    status: 404,
    json: { errors: errors ?? null, message: message ?? "The target couldn't be found.", url: swaggerUrl(baseUrl) },
  });
}

/** ctx.Status(code): headers only, empty body (Forgejo does this for several 403s). */
export function statusOnly(status: number): ApiFailure {
  return new ApiFailure({ status });
}
