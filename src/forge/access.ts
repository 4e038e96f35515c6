/** Authentication (access tokens) and repository permission checks, after Forgejo's middleware. */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { apiError, notFound } from "./api-error.ts";
import type { ForgeContext, RequestContext } from "./context.ts";
import type { AccessMode, IssueRow, RepoRow, UserRow } from "./types.ts";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** What a request presents: a token (query, `token`/`bearer` header) or Basic credentials. */
export type Credentials = { kind: "token"; token: string } | { kind: "basic"; user: string; password: string };

/** Token from ?token= / ?access_token= (deprecated but still read), `Authorization: token|bearer X`, or Basic. */
export function credentialsFromRequest(url: URL, headers: IncomingHttpHeaders): Credentials | undefined {
  const q = url.searchParams.get("token") ?? url.searchParams.get("access_token");
  if (q) return { kind: "token", token: q };
  const auth = headers.authorization;
  if (!auth) return undefined;
  const token = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(auth)?.[1];
  if (token !== undefined) return { kind: "token", token };
  const basic = /^basic\s+(\S*)\s*$/i.exec(auth)?.[1];
  if (basic === undefined) return undefined;
  // base.BasicAuthDecode: base64 of "user:password", split at the first colon.
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? { kind: "basic", user: decoded, password: "" } : { kind: "basic", user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Resolve the doer. A token that does not exist is an incorrect credential: 401 on every API route.
 * (Forgejo's message embeds the token; this server never echoes it.)
 * Basic (services/auth/basic.go): the password is tried as an access token, or the user name when the
 * password is empty or "x-oauth-basic"; otherwise Forgejo signs in with user and password, and a failed
 * sign-in is a 401 from apiAuth. Users here have no password, so every such sign-in fails.
 */
export function authenticate(forge: ForgeContext, creds: Credentials | undefined): UserRow | null {
  if (creds === undefined) return null;
  if (creds.kind === "token") {
    const user = forge.store.userByTokenHash(hashToken(creds.token));
    if (!user) throw apiError(forge.baseUrl, 401, "access token does not exist");
    return user;
  }
  const usernameIsToken = creds.password === "" || creds.password === "x-oauth-basic";
  const byToken = forge.store.userByTokenHash(hashToken(usernameIsToken ? creds.user : creds.password));
  if (byToken) return byToken;
  const named = forge.store.userByLogin(creds.user);
  if (!named) throw apiError(forge.baseUrl, 401, `user does not exist [uid: 0, name: ${creds.user}]`);
  throw apiError(forge.baseUrl, 401, `user's password is invalid [uid: ${named.id}, name: ${named.login}]`);
}

/** reqToken(): 401 "token is required" for anonymous requests. */
export function requireToken(ctx: RequestContext): UserRow {
  if (!ctx.doer) throw apiError(ctx.forge.baseUrl, 401, "token is required");
  return ctx.doer;
}

/**
 * access_model.GetUserRepoPermission (models/perm/access/repo_permission.go:168-313) for user-owned
 * repositories, the only kind this server has: anonymous → read on a public repo, none on a private one
 * (:187-190, :219-221); a site admin or the owner → owner (:225-226); anyone else → accessLevel
 * (models/perm/access/access.go:34-63): the access-table row (here: the collaboration's mode), else read
 * on a public repo. Organisations and teams are not modelled: on Forgejo a team member's AccessMode is the
 * team's, which for a unit-based team is the *minimum* of its unit modes (models/unit/unit.go:434-449,
 * routers/api/v1/org/team.go:222), so someone who may write issues but only read code reads as "read".
 */
export function accessMode(forge: ForgeContext, repo: RepoRow, user: UserRow | null): AccessMode {
  if (user && (user.is_admin === 1 || user.id === repo.owner_id)) return "owner";
  const collab = user ? forge.store.collaboratorMode(repo.id, user.id) : undefined;
  if (collab) return collab;
  return repo.private ? "none" : "read";
}

const RANK: Record<AccessMode, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

/** mode >= want, as Go compares perm.AccessMode values. */
export function atLeast(mode: AccessMode, want: AccessMode): boolean {
  return RANK[mode] >= RANK[want];
}

export function canWrite(mode: AccessMode): boolean {
  return atLeast(mode, "write");
}

/** ctx.IsUserRepoAdmin() || ctx.IsUserSiteAdmin() (Permission.IsAdmin: AccessMode >= Admin). */
export function isRepoAdmin(mode: AccessMode): boolean {
  return atLeast(mode, "admin");
}

/** reqAdmin() (routers/api/v1/api.go:460-467): 403 with Forgejo's message unless a repo or site admin. */
export function requireRepoAdmin(ctx: RequestContext, mode: AccessMode): void {
  if (!isRepoAdmin(mode)) throw apiError(ctx.forge.baseUrl, 403, "user should be an owner or a collaborator with admin write of a repository");
}

/**
 * repoAssignment(): unknown repo or no read access → 404 (Forgejo hides private repos from users without
 * access; it does not answer 403 there).
 */
export function loadRepo(ctx: RequestContext): { repo: RepoRow; mode: AccessMode } {
  const repo = ctx.forge.store.repoByName(ctx.params.owner ?? "", ctx.params.repo ?? "");
  if (!repo) throw notFound(ctx.forge.baseUrl);
  const mode = accessMode(ctx.forge, repo, ctx.doer);
  if (mode === "none") throw notFound(ctx.forge.baseUrl);
  return { repo, mode };
}

/** Parse a path integer like ctx.ParamsInt64 (garbage → 0). */
export function paramInt(ctx: RequestContext, name: string): number {
  const v = ctx.params[name] ?? "";
  return /^-?\d+$/.test(v) ? Number.parseInt(v, 10) : 0;
}

/** GetIssueByIndex or 404; `withError` mimics ctx.NotFound("IsErrIssueNotExist", err). */
export function loadIssue(ctx: RequestContext, repo: RepoRow, withError: boolean): IssueRow {
  const index = paramInt(ctx, "index");
  const issue = ctx.forge.store.issueByIndex(repo.id, index);
  if (!issue) {
    if (withError) {
      throw notFound(ctx.forge.baseUrl, "IsErrIssueNotExist", [`issue does not exist [id: 0, repo_id: ${repo.id}, index: ${index}]`]);
    }
    throw notFound(ctx.forge.baseUrl);
  }
  return issue;
}
