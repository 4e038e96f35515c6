/**
 * Run-time conformance of one recorded exchange with Forgejo v13.0.5:
 * - implemented routes: the operation exists in the swagger, every query parameter is declared, the status
 *   is declared, the body validates against the declared response schema (definitions closed, so invented
 *   keys fail), JSON answers carry Forgejo's content type, paged lists carry X-Total-Count (and Link
 *   exactly where Forgejo sends it), every answer carries X-Content-Type-Options: nosniff, and error bodies
 *   have Forgejo's shapes;
 * - anything else: the answer Forgejo's router gives to a route it does not have (chi's plain-text 404) or
 *   to a method it does not have on a routed path (405, empty body, Allow).
 * A mismatch with the swagger is acceptable only when test/forge/conformance/divergences.ts explains it.
 */
import { FORGE_ROUTES } from "../../../src/embedded-forge/index.ts";
import { matchRoute } from "../../../src/embedded-forge/routes-table.ts";
import { namedResponseValidator, operation, queryParams, responseValidator } from "../spec.ts";
import { type Divergence, explain, type MismatchKind } from "./divergences.ts";
import type { Exchange } from "./proxy.ts";

export interface Finding {
  exchange: Exchange;
  /** Route id ("GET /repos/{owner}/{repo}") or "UNROUTED". */
  route: string;
  problem: string;
  /** Set when divergences.ts explains this mismatch. */
  explainedBy?: Divergence;
}

/** Lists Forgejo sends a Link header for (ctx.SetLinkHeader): only the issue list among the routes here. */
const SENDS_LINK = new Set(["GET /repos/{owner}/{repo}/issues"]);
/** Lists that set X-Total-Count (SetTotalCountHeader), paged or not. */
const SENDS_TOTAL = new Set([
  "GET /repos/{owner}/{repo}/issues",
  "GET /repos/{owner}/{repo}/issues/{index}/comments",
  "GET /repos/{owner}/{repo}/labels",
  "GET /repos/{owner}/{repo}/collaborators",
  "GET /repos/{owner}/{repo}/hooks",
]);

const API = "/api/v1";

export function checkExchange(x: Exchange): Finding[] {
  const findings: Finding[] = [];
  const url = new URL(x.url, "http://x");
  const path = url.pathname.startsWith(API) ? url.pathname.slice(API.length) || "/" : url.pathname;
  const match = matchRoute(x.method, path);
  const text = x.body.toString("utf8");
  const contentType = String(x.headers["content-type"] ?? "");
  const fail = (route: string, problem: string, kind?: MismatchKind, template?: string) => {
    const explainedBy = kind && template !== undefined ? explain(kind, x, template) : undefined;
    findings.push({ exchange: x, route, problem, ...(explainedBy ? { explainedBy } : {}) });
  };

  if (x.headers["x-content-type-options"] !== "nosniff") fail(match.spec?.id ?? "UNROUTED", "no X-Content-Type-Options: nosniff (securityHeaders, routers/api/shared/middleware.go:158-167)");

  if (!match.spec) {
    if (match.forgejoMethods.length > 0 && !match.forgejoMethods.includes(x.method as never)) {
      // chi's methodNotAllowedHandler: 405, Allow, empty body.
      if (x.status !== 405 || x.body.length !== 0 || !x.headers.allow)
        fail("UNROUTED", `method not routed by Forgejo: expected 405 with Allow and no body, got ${x.status} ${JSON.stringify(text.slice(0, 80))}`);
    } else if (x.status !== 404 || text !== "404 page not found\n" || contentType !== "text/plain; charset=utf-8") {
      fail("UNROUTED", `unknown route: expected chi's "404 page not found" (text/plain), got ${x.status} ${contentType} ${JSON.stringify(text.slice(0, 80))}`);
    }
    return findings;
  }

  const template = match.spec.path;
  const id = match.spec.id;
  const op = operation(x.method, template);
  if (!op) {
    fail(id, "operation not in the swagger");
    return findings;
  }
  const declaredQuery = queryParams(op);
  for (const name of url.searchParams.keys()) {
    // ?token= / ?access_token= are the (deprecated) query authentication, declared globally.
    if (name === "token" || name === "access_token") continue;
    if (!declaredQuery.includes(name)) fail(id, `query parameter ?${name} is not declared for ${id}`);
  }

  const responses = op.responses as Record<string, unknown>;
  let declared = responses[String(x.status)] !== undefined;
  if (!declared) {
    fail(id, `status ${x.status} is not declared for ${id}`, "undeclared-status", template);
  }
  // Which schema the body must have: the declared one, else the named middleware response.
  const named: Record<number, string> = { 401: "unauthorized", 403: "forbidden", 404: "notFound", 422: "validationError" };
  const validate = declared ? responseValidator(op, x.status) : named[x.status] ? namedResponseValidator(named[x.status] as string) : null;
  declared ||= named[x.status] !== undefined;

  if (x.body.length === 0) {
    if (x.status !== 204 && validate) fail(id, `status ${x.status} has an empty body; the response declares a schema`, "empty-body", template);
  } else {
    if (contentType !== "application/json;charset=utf-8") fail(id, `content type ${contentType}, Forgejo's ctx.JSON sends application/json;charset=utf-8`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      fail(id, `body is not JSON: ${text.slice(0, 80)}`);
      return findings;
    }
    if (validate && !validate(json)) fail(id, `${x.status} body does not match the swagger: ${JSON.stringify(validate.errors?.slice(0, 3))}`, "schema", template);
    if (x.status >= 400 && json !== null && (typeof json !== "object" || typeof (json as { message?: unknown }).message !== "string")) {
      fail(id, `error body without a "message": ${text.slice(0, 120)}`);
    }
  }

  if (x.status === 200 && SENDS_TOTAL.has(id)) {
    const total = x.headers["x-total-count"];
    if (typeof total !== "string" || !/^\d+$/.test(total)) fail(id, "no X-Total-Count on a list Forgejo counts");
    else if (!String(x.headers["access-control-expose-headers"] ?? "").includes("X-Total-Count")) fail(id, "X-Total-Count not exposed (AppendAccessControlExposeHeaders)");
  }
  const link = x.headers.link;
  if (link !== undefined && !SENDS_LINK.has(id)) fail(id, `Link header on ${id}, which Forgejo does not page with Link`);
  if (x.status === 200 && SENDS_LINK.has(id)) {
    const total = Number(x.headers["x-total-count"]);
    const limit = Number(url.searchParams.get("limit") ?? "30") || 30;
    const page = Math.max(1, Number(url.searchParams.get("page") ?? "1") || 1);
    const items = Array.isArray(JSON.parse(text)) ? (JSON.parse(text) as unknown[]).length : 0;
    const more = total > (page - 1) * Math.min(limit, 50) + items && items > 0;
    const next = typeof link === "string" ? /<([^>]+)>;\s*rel="next"/.exec(link)?.[1] : undefined;
    if (more && !next) fail(id, `more items than read (total ${total}) but no Link rel="next"`);
    if (next && new URL(next).searchParams.get("page") !== String(page + 1)) fail(id, `Link rel="next" ${next} is not page ${page + 1}`);
  }
  return findings;
}

/** Route ids of the router that a set of exchanges exercised (any status). */
export function exercised(exchanges: readonly Exchange[]): Set<string> {
  const seen = new Set<string>();
  for (const x of exchanges) {
    const path = new URL(x.url, "http://x").pathname.slice(API.length) || "/";
    const m = matchRoute(x.method, path);
    if (m.spec) seen.add(m.spec.id);
  }
  return seen;
}

export const IMPLEMENTED: readonly string[] = FORGE_ROUTES.map((r) => r.id);
