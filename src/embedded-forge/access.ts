/** Authentication (access tokens) and repository permission checks, after Forgejo's middleware. */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { ApiFailure, apiError, notFound } from "./api-error.ts";
import { verifyPassword } from "./password.ts";
import type { SignInLimiter } from "./sign-in-limit.ts";
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
 * Basic (v13.0.5 services/auth/basic.go:45-150): the password is tried as an access token, or the user
 * name when the password is empty or "x-oauth-basic"; otherwise Forgejo signs in with user and password
 * (UserSignIn, :128) and the API runs as that user (no user here has TOTP enrolled, so :147's check passes).
 * A failed sign-in is a 401 from apiAuth. Forgejo puts no limit on these; here each password attempt takes
 * a slot of the web sign-in's limiter (429 past it), so the API is no side door around that limit.
 */
export async function authenticate(forge: ForgeContext, creds: Credentials | undefined, signIn?: { limiter: SignInLimiter; ip: string }): Promise<UserRow | null> {
  if (creds === undefined) return null;
  if (creds.kind === "token") {
    const user = forge.store.userByTokenHash(hashToken(creds.token));
    if (!user) throw apiError(forge.baseUrl, 401, "access token does not exist");
    return user;
  }
  const usernameIsToken = creds.password === "" || creds.password === "x-oauth-basic";
  const byToken = forge.store.userByTokenHash(hashToken(usernameIsToken ? creds.user : creds.password));
  if (byToken) return byToken;
  const slot = signIn?.limiter.take(signIn.ip, creds.user);
  if (slot && !slot.ok) {
    const failure = apiError(forge.baseUrl, 429, `too many sign-in attempts: try again in ${slot.retryAfterSec} s`);
    throw new ApiFailure({ ...failure.result, headers: { "Retry-After": String(slot.retryAfterSec) } });
  }
  const named = forge.store.userByLogin(creds.user);
  // Always one scrypt, against a dummy hash for an unknown user: the answer's timing names no login.
  const right = !usernameIsToken && (await verifyPassword(creds.password, named ? forge.store.passwordHash(named.id) : undefined));
  if (named && right) {
    if (slot?.ok) slot.release(); // a right password does not count against the limit
    return named;
  }
  if (!named) throw apiError(forge.baseUrl, 401, `user does not exist [uid: 0, name: ${creds.user}]`);
  throw apiError(forge.baseUrl, 401, `user's password is invalid [uid: ${named.id}, name: ${named.login}]`);
}

/** Who a request is from, for the forge's stats only (never an access decision): a login, "anonymous" or "invalid". */
export function requesterOf(forge: ForgeContext, creds: Credentials | undefined): string {
  if (creds === undefined) return "anonymous";
  const secret = creds.kind === "token" ? creds.token : creds.password === "" || creds.password === "x-oauth-basic" ? creds.user : creds.password;
  return forge.store.userByTokenHash(hashToken(secret))?.login ?? "invalid";
}

/** reqToken(): 401 "token is required" for anonymous requests. */
export function requireToken(ctx: RequestContext): UserRow {
  if (!ctx.doer) throw apiError(ctx.forge.baseUrl, 401, "token is required");
  return ctx.doer;
}

/**
 * access_model.GetUserRepoPermission (models/perm/access/repo_permission.go:168-313), its AccessMode:
 * anonymous → read on a public repo, none on a private one (:187-190, :219-221); a site admin or the owner →
 * owner (:225-226); a member of an organisation team with admin rights on the repo → owner (:270-277);
 * anyone else → accessLevel (models/perm/access/access.go:34-63), the access-table row, which holds the
 * highest of the collaboration's mode and the AccessMode of each of the user's teams that hold the repo,
 * else read on a public repo. A team's AccessMode is, for a team with per-unit rights, the *minimum* of its
 * unit modes (models/unit/unit.go:434-449, routers/api/v1/org/team.go:222): a member who may write issues
 * but only read code reads as "read" here, although unitMode(…, "issues") is "write".
 */
export function accessMode(forge: ForgeContext, repo: RepoRow, user: UserRow | null): AccessMode {
  if (user && (user.is_admin === 1 || user.id === repo.owner_id)) return "owner";
  const base: AccessMode = repo.private ? "none" : "read";
  if (!user) return base;
  const collab = forge.store.collaboratorMode(repo.id, user.id);
  if (!forge.store.isOrg(repo.owner_id)) return collab ?? base;
  const teams = forge.store.userRepoTeams(user.id, repo.id);
  if (teams.some((t) => atLeast(t.access_mode, "admin"))) return "owner";
  return [collab ?? base, ...teams.map((t) => t.access_mode)].reduce(maxMode);
}

/**
 * Permission.UnitAccessMode for one unit ("issues", "code", "pulls", …) (repo_permission.go:56-66,
 * :255-300): what write checks such as CanWriteIssuesOrPulls use. On a user's repository it is the
 * AccessMode; on an organisation's, a collaborator has the AccessMode on every unit, and each team adds its
 * own mode for the unit; a public repo gives read on a unit no team names.
 */
export function unitMode(forge: ForgeContext, repo: RepoRow, user: UserRow | null, unit: string): AccessMode {
  const mode = accessMode(forge, repo, user);
  if (!user || mode === "owner" || !forge.store.isOrg(repo.owner_id)) return mode;
  let m: AccessMode | undefined = forge.store.collaboratorMode(repo.id, user.id) !== undefined ? mode : undefined;
  let found = false;
  for (const t of forge.store.userRepoTeams(user.id, repo.id)) {
    const units = JSON.parse(t.units) as Record<string, AccessMode>;
    const tm = units[unit] ?? "none";
    if (tm !== "none") {
      m = m === undefined ? tm : maxMode(m, tm);
      found = true;
    }
  }
  if (!found && m === undefined && !repo.private) m = "read";
  return m ?? "none";
}

const RANK: Record<AccessMode, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

function maxMode(a: AccessMode, b: AccessMode): AccessMode {
  return RANK[a] >= RANK[b] ? a : b;
}

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
export function loadRepo(ctx: RequestContext): { repo: RepoRow; mode: AccessMode; issuesMode: AccessMode } {
  const repo = ctx.forge.store.repoByName(ctx.params.owner ?? "", ctx.params.repo ?? "");
  if (!repo) throw notFound(ctx.forge.baseUrl);
  const mode = accessMode(ctx.forge, repo, ctx.doer);
  if (mode === "none") throw notFound(ctx.forge.baseUrl);
  // Issue writes are checked on the issues unit (CanWriteIssuesOrPulls), not on the repository's mode.
  return { repo, mode, issuesMode: unitMode(ctx.forge, repo, ctx.doer, "issues") };
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
