/**
 * THE list of deliberate divergences, in one place, each with its reason and source.
 *
 * 1. SPEC_DIVERGENCES: places where Forgejo v13.0.5 itself answers something its swagger
 *    (fixtures/forgejo/swagger.v1.json) does not describe. The embedded forge follows the source, so the
 *    conformance check meets a mismatch with the swagger there; each such mismatch must be matched by an
 *    entry here, or the suite fails ("0 unexplained mismatches").
 * 2. FORGE_GAPS: where the embedded forge knowingly differs from Forgejo. They are not seen by the
 *    checks (nothing in the swagger tells them apart); they are listed so that docs/forge.md and the
 *    suite's report name them.
 */
import type { Exchange } from "./proxy.ts";

export type MismatchKind =
  /** The status is not among the operation's declared responses. */
  | "undeclared-status"
  /** The body does not validate against the declared response schema. */
  | "schema"
  /** The body is empty where the declared response has a schema. */
  | "empty-body";

export interface Divergence {
  id: string;
  kind: MismatchKind;
  /** Why the forge answers this way (what Forgejo's source does). */
  reason: string;
  /** Forgejo source, file:line at v13.0.5. */
  source: string;
  /** Does this divergence explain a mismatch of `kind` on this exchange (route template given)? */
  applies(x: Exchange, template: string): boolean;
}

const is = (method: string, template: string) => (x: Exchange, t: string) => x.method === method && t === template;
const anyOf =
  (...fs: Array<(x: Exchange, t: string) => boolean>) =>
  (x: Exchange, t: string) =>
    fs.some((f) => f(x, t));
const status = (s: number, f: (x: Exchange, t: string) => boolean) => (x: Exchange, t: string) => x.status === s && f(x, t);

const ATTACHMENT_ONE = "/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}";
const ATTACHMENTS = "/repos/{owner}/{repo}/issues/{index}/assets";
const COMMENT_ATTACHMENT_ONE = "/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}";
const COMMENT_ATTACHMENTS = "/repos/{owner}/{repo}/issues/comments/{id}/assets";
const ASSET_ROUTES = [ATTACHMENTS, ATTACHMENT_ONE, COMMENT_ATTACHMENTS, COMMENT_ATTACHMENT_ONE];
const ISSUE_LABELS = "/repos/{owner}/{repo}/issues/{index}/labels";

export const SPEC_DIVERGENCES: readonly Divergence[] = [
  {
    id: "middleware-401",
    kind: "undeclared-status",
    reason: "apiAuth / reqToken answer 401 on any route; the swagger declares it only through the global security section.",
    source: "routers/api/shared/middleware.go:57-68; routers/api/v1/api.go reqToken",
    applies: (x) => x.status === 401,
  },
  {
    id: "middleware-403",
    kind: "undeclared-status",
    reason: "reqAdmin / reqRepoWriter / a locked issue answer 403 on routes whose operation does not list it.",
    source: "routers/api/v1/api.go:460-467 (reqAdmin), :469-485 (reqRepoWriter)",
    applies: (x) => x.status === 403,
  },
  {
    id: "middleware-404",
    kind: "undeclared-status",
    reason: "repoAssignment answers 404 for an unknown or hidden repository on every repository route, and commentAssignment for an unknown comment.",
    source: "routers/api/v1/api.go:140-260 (repoAssignment), commentAssignment",
    applies: (x) => x.status === 404,
  },
  {
    id: "binding-422",
    kind: "undeclared-status",
    reason:
      "bind() answers 422 for a body that does not bind (missing required field, wrong type, malformed JSON), and handlers answer 422 for invalid input (time filters, an unknown collaborator), on operations that do not list it.",
    source: "routers/api/v1/api.go bind(); services/context/api.go:179-199",
    applies: (x) => x.status === 422,
  },
  {
    id: "empty-403-body",
    kind: "empty-body",
    reason: "ctx.Status(403) sends no body (editing or deleting someone else's comment, editing an issue, changing its labels without write access), although the forbidden response has a schema.",
    source: "routers/api/v1/repo/issue_comment.go (EditIssueComment, DeleteIssueComment); issue.go (EditIssue); issue_label.go:329-332, :401-404",
    applies: (x) => x.status === 403,
  },
  {
    id: "labels-400",
    kind: "undeclared-status",
    reason: "A label that is neither a number nor a string, or ids mixed with names, is a 400 from prepareForReplaceOrAdd; the operations do not list 400.",
    source: "routers/api/v1/repo/issue_label.go:362-377",
    applies: status(400, anyOf(is("POST", ISSUE_LABELS), is("PUT", ISSUE_LABELS))),
  },
  {
    id: "asset-404-null",
    kind: "schema",
    reason: "A missing issue or attachment on the attachment routes goes through ctx.NotFoundOrServerError, which writes ctx.JSON(404, nil): the body is `null`, not the declared error object.",
    source: "routers/api/v1/repo/issue_attachment.go:348-358, :373-378; issue_comment_attachment.go:372-376; services/context/api.go:449-455",
    applies: (x, t) => x.status === 404 && ASSET_ROUTES.includes(t) && x.body.toString("utf8").trim() === "null",
  },
  {
    id: "asset-404-notfound-shape",
    kind: "schema",
    reason:
      'An attachment of another issue or repository answers ctx.NotFound("no such attachment in issue"): the APINotFound struct (message, url, errors), while the swagger declares the plain error response.',
    source: "routers/api/v1/repo/issue_attachment.go:395-411; services/context/api.go:310-331",
    applies: (x, t) => x.status === 404 && ASSET_ROUTES.includes(t) && /"errors":/.test(x.body.toString("utf8")),
  },
  {
    id: "asset-upload-500",
    kind: "undeclared-status",
    reason: 'An upload without the "attachment" file fails in ctx.Req.FormFile and answers 500 (message blanked for non-admins in production).',
    source: "routers/api/v1/repo/issue_attachment.go:194-198; services/context/api.go:187-193",
    applies: status(500, is("POST", ATTACHMENTS)),
  },
  {
    id: "go-nulls",
    kind: "schema",
    reason:
      "Swagger 2.0 has no nullable; Go renders nil slices, maps and pointers as null (assignees, milestone, closed_at, topics, …). The schema check already allows null for every property; listed for the record.",
    source: "encoding/json; modules/structs",
    applies: () => false,
  },
  {
    id: "user-username",
    kind: "schema",
    reason: 'User.MarshalJSON appends a "username" key (a copy of login) that the User definition does not declare; the schema check allows it.',
    source: "modules/structs/user.go (MarshalJSON)",
    applies: () => false,
  },
];

/** Known differences between the embedded forge and Forgejo that the swagger checks cannot see. */
export const FORGE_GAPS: readonly { id: string; reason: string }[] = [
  {
    id: "orgs-teams-admin-only",
    reason:
      "Organisations and teams exist only through the admin API (no organisation or team routes); of a team's units only issues is enforced. Team permission values follow Forgejo (test/forge/team-permission.test.ts).",
  },
  { id: "no-git", reason: "No git data: pull requests exist only as seeded records; no branches, commits, releases." },
  { id: "no-milestones-assignees-reactions", reason: "No milestones, assignees, reactions, time tracking or pins." },
  { id: "hook-types", reason: "Non-Forgejo hook types (slack, discord, …) are stored and receive the Forgejo JSON payload; their metadata is not kept." },
  { id: "issue-search", reason: "`q` searches titles and bodies, not comments (Forgejo's indexer also searches comments)." },
  {
    id: "more-specific-routes",
    reason: "Paths Forgejo routes more specifically than a route this server has (e.g. GET /repos/{o}/{r}/issues/pinned) reach the general route (GET …/issues/{index}) and answer its 404.",
  },
];

/** The divergence explaining a mismatch, if any. */
export function explain(kind: MismatchKind, x: Exchange, template: string): Divergence | undefined {
  return SPEC_DIVERGENCES.find((d) => d.kind === kind && d.applies(x, template));
}
