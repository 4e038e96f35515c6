/** Authentication (access tokens) and repository permission checks, after Forgejo's middleware. */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { apiError, notFound } from "./api-error.ts";
import type { ForgeContext, RequestContext } from "./context.ts";
import type { AccessMode, IssueRow, RepoRow, UserRow } from "./types.ts";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Token from ?token= / ?access_token= (deprecated but still read) or `Authorization: token|bearer X`. */
export function tokenFromRequest(url: URL, headers: IncomingHttpHeaders): string | undefined {
  const q = url.searchParams.get("token") ?? url.searchParams.get("access_token");
  if (q) return q;
  const auth = headers.authorization;
  if (!auth) return undefined;
  const m = /^(token|bearer)\s+(\S+)\s*$/i.exec(auth);
  return m ? m[2] : undefined;
}

/**
 * Resolve the doer. A token that does not exist is an incorrect credential: 401 on every API route.
 * (Forgejo's message embeds the token; this server never echoes it.)
 */
export function authenticate(forge: ForgeContext, token: string | undefined): UserRow | null {
  if (token === undefined) return null;
  const user = forge.store.userByTokenHash(hashToken(token));
  if (!user) throw apiError(forge.baseUrl, 401, "access token does not exist");
  return user;
}

/** reqToken(): 401 "token is required" for anonymous requests. */
export function requireToken(ctx: RequestContext): UserRow {
  if (!ctx.doer) throw apiError(ctx.forge.baseUrl, 401, "token is required");
  return ctx.doer;
}

export function accessMode(forge: ForgeContext, repo: RepoRow, user: UserRow | null): AccessMode {
  if (user && (user.is_admin === 1 || user.id === repo.owner_id)) return "admin";
  const collab = user ? forge.store.collaboratorMode(repo.id, user.id) : undefined;
  if (collab && collab !== "none") return collab;
  return repo.private ? "none" : "read";
}

export function canWrite(mode: AccessMode): boolean {
  return mode === "write" || mode === "admin";
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
      throw notFound(ctx.forge.baseUrl, "IsErrIssueNotExist", [
        `issue does not exist [id: 0, repo_id: ${repo.id}, index: ${index}]`,
      ]);
    }
    throw notFound(ctx.forge.baseUrl);
  }
  return issue;
}
