/**
 * The same operations through each third-party client: gitea-js 1.23 (generated from Gitea's swagger) and
 * @llamaduck/forgejo-ts 15.0 (generated from Forgejo's). Every operation answers {status, data}; a client's
 * own error (a thrown Response, an AxiosError) is turned into its status, so the scenario can drive error
 * cases through both.
 */
import * as F from "@llamaduck/forgejo-ts";
import { createClient } from "@llamaduck/forgejo-ts/client";
import { giteaApi } from "gitea-js";

export interface Reply {
  status: number;
  data: unknown;
}

type Q = Record<string, string | number | undefined>;
type Body = Record<string, unknown>;

/** One function per endpoint of the embedded forge, plus a sample of endpoints it does not implement. */
export interface Ops {
  version(): Promise<Reply>;
  apiSettings(): Promise<Reply>;
  attachmentSettings(): Promise<Reply>;
  currentUser(): Promise<Reply>;
  createRepo(body: Body): Promise<Reply>;
  getRepo(o: string, r: string): Promise<Reply>;
  listIssues(o: string, r: string, q?: Q): Promise<Reply>;
  createIssue(o: string, r: string, body: Body): Promise<Reply>;
  getIssue(o: string, r: string, n: number): Promise<Reply>;
  editIssue(o: string, r: string, n: number, body: Body): Promise<Reply>;
  deleteIssue(o: string, r: string, n: number): Promise<Reply>;
  listComments(o: string, r: string, n: number, q?: Q): Promise<Reply>;
  createComment(o: string, r: string, n: number, body: Body): Promise<Reply>;
  getComment(o: string, r: string, id: number): Promise<Reply>;
  editComment(o: string, r: string, id: number, body: Body): Promise<Reply>;
  deleteComment(o: string, r: string, id: number): Promise<Reply>;
  listAssets(o: string, r: string, n: number): Promise<Reply>;
  createAsset(o: string, r: string, n: number, file: { name: string; bytes: Uint8Array }, q?: Q): Promise<Reply>;
  getAsset(o: string, r: string, n: number, id: number): Promise<Reply>;
  editAsset(o: string, r: string, n: number, id: number, body: Body): Promise<Reply>;
  deleteAsset(o: string, r: string, n: number, id: number): Promise<Reply>;
  listCommentAssets(o: string, r: string, cid: number): Promise<Reply>;
  createCommentAsset(o: string, r: string, cid: number, file: { name: string; bytes: Uint8Array }, q?: Q): Promise<Reply>;
  getCommentAsset(o: string, r: string, cid: number, id: number): Promise<Reply>;
  editCommentAsset(o: string, r: string, cid: number, id: number, body: Body): Promise<Reply>;
  deleteCommentAsset(o: string, r: string, cid: number, id: number): Promise<Reply>;
  listIssueLabels(o: string, r: string, n: number): Promise<Reply>;
  addIssueLabels(o: string, r: string, n: number, body: Body): Promise<Reply>;
  replaceIssueLabels(o: string, r: string, n: number, body: Body): Promise<Reply>;
  clearIssueLabels(o: string, r: string, n: number): Promise<Reply>;
  listLabels(o: string, r: string, q?: Q): Promise<Reply>;
  createLabel(o: string, r: string, body: Body): Promise<Reply>;
  listCollaborators(o: string, r: string, q?: Q): Promise<Reply>;
  isCollaborator(o: string, r: string, u: string): Promise<Reply>;
  addCollaborator(o: string, r: string, u: string, body: Body): Promise<Reply>;
  deleteCollaborator(o: string, r: string, u: string): Promise<Reply>;
  permission(o: string, r: string, u: string): Promise<Reply>;
  listHooks(o: string, r: string, q?: Q): Promise<Reply>;
  createHook(o: string, r: string, body: Body): Promise<Reply>;
  getHook(o: string, r: string, id: number): Promise<Reply>;
  editHook(o: string, r: string, id: number, body: Body): Promise<Reply>;
  deleteHook(o: string, r: string, id: number): Promise<Reply>;
  listRepoTeams(o: string, r: string): Promise<Reply>;
  teamMember(team: number, u: string): Promise<Reply>;
  /** Not implemented by the embedded forge (Forgejo has them): must answer like an unknown route. */
  unimplemented: Array<{ name: string; call(o: string, r: string): Promise<Reply> }>;
}

export type Driver = (token?: string) => Ops;

// The generated clients type their arguments precisely; the scenario passes plain records (some of them
// deliberately invalid, to drive error answers), so those calls go through these loose views.
type GiteaFn = (...args: unknown[]) => Promise<{ status: number; data: unknown }>;
type FjFn = (options: unknown) => Promise<unknown>;

/** A named function of a loose view; a client without it fails the suite loudly. */
function fn<T>(ns: Record<string, T | undefined>, name: string): T {
  const f = ns[name];
  if (f === undefined) throw new Error(`the client has no ${name}`);
  return f;
}

/** gitea-js: throws the Response (with .error) on non-2xx; 204 leaves data null. */
async function gj(p: Promise<{ status: number; data: unknown }>): Promise<Reply> {
  try {
    const r = await p;
    return { status: r.status, data: r.data };
  } catch (e) {
    if (e instanceof Response) return { status: e.status, data: (e as Response & { error?: unknown }).error ?? null };
    throw e;
  }
}

export function giteaJs(baseUrl: string): Driver {
  return (token) => {
    const api = giteaApi(baseUrl, token ? { token } : {});
    const loose = api as unknown as { repos: Record<string, GiteaFn>; user: Record<string, GiteaFn> };
    const gr = (name: string, ...args: unknown[]) => fn(loose.repos, name)(...args);
    const gu = (name: string, ...args: unknown[]) => fn(loose.user, name)(...args);
    const file = (f: { name: string; bytes: Uint8Array }) => new File([Buffer.from(f.bytes)], f.name, { type: "application/gzip" });
    return {
      version: () => gj(api.version.getVersion()),
      apiSettings: () => gj(api.settings.getGeneralApiSettings()),
      attachmentSettings: () => gj(api.settings.getGeneralAttachmentSettings()),
      currentUser: () => gj(api.user.userGetCurrent()),
      createRepo: (body) => gj(gu("createCurrentUserRepo", body)),
      getRepo: (o, r) => gj(api.repos.repoGet(o, r)),
      listIssues: (o, r, q) => gj(gr("issueListIssues", o, r, q)),
      createIssue: (o, r, body) => gj(gr("issueCreateIssue", o, r, body)),
      getIssue: (o, r, n) => gj(api.repos.issueGetIssue(o, r, n)),
      editIssue: (o, r, n, body) => gj(gr("issueEditIssue", o, r, n, body)),
      deleteIssue: (o, r, n) => gj(api.repos.issueDelete(o, r, n)),
      listComments: (o, r, n, q) => gj(gr("issueGetComments", o, r, n, q)),
      createComment: (o, r, n, body) => gj(gr("issueCreateComment", o, r, n, body)),
      getComment: (o, r, id) => gj(api.repos.issueGetComment(o, r, id)),
      editComment: (o, r, id, body) => gj(gr("issueEditComment", o, r, id, body)),
      deleteComment: (o, r, id) => gj(api.repos.issueDeleteComment(o, r, id)),
      listAssets: (o, r, n) => gj(api.repos.issueListIssueAttachments(o, r, n)),
      createAsset: (o, r, n, f, q) => gj(gr("issueCreateIssueAttachment", o, r, n, { attachment: file(f) }, q)),
      getAsset: (o, r, n, id) => gj(api.repos.issueGetIssueAttachment(o, r, n, id)),
      editAsset: (o, r, n, id, body) => gj(gr("issueEditIssueAttachment", o, r, n, id, body)),
      deleteAsset: (o, r, n, id) => gj(api.repos.issueDeleteIssueAttachment(o, r, n, id)),
      listCommentAssets: (o, r, cid) => gj(api.repos.issueListIssueCommentAttachments(o, r, cid)),
      createCommentAsset: (o, r, cid, f, q) => gj(gr("issueCreateIssueCommentAttachment", o, r, cid, { attachment: file(f) }, q)),
      getCommentAsset: (o, r, cid, id) => gj(api.repos.issueGetIssueCommentAttachment(o, r, cid, id)),
      editCommentAsset: (o, r, cid, id, body) => gj(gr("issueEditIssueCommentAttachment", o, r, cid, id, body)),
      deleteCommentAsset: (o, r, cid, id) => gj(api.repos.issueDeleteIssueCommentAttachment(o, r, cid, id)),
      listIssueLabels: (o, r, n) => gj(api.repos.issueGetLabels(o, r, n)),
      addIssueLabels: (o, r, n, body) => gj(gr("issueAddLabel", o, r, n, body)),
      replaceIssueLabels: (o, r, n, body) => gj(gr("issueReplaceLabels", o, r, n, body)),
      clearIssueLabels: (o, r, n) => gj(api.repos.issueClearLabels(o, r, n)),
      listLabels: (o, r, q) => gj(gr("issueListLabels", o, r, q)),
      createLabel: (o, r, body) => gj(gr("issueCreateLabel", o, r, body)),
      listCollaborators: (o, r, q) => gj(gr("repoListCollaborators", o, r, q)),
      isCollaborator: (o, r, u) => gj(api.repos.repoCheckCollaborator(o, r, u)),
      addCollaborator: (o, r, u, body) => gj(gr("repoAddCollaborator", o, r, u, body)),
      deleteCollaborator: (o, r, u) => gj(api.repos.repoDeleteCollaborator(o, r, u)),
      permission: (o, r, u) => gj(api.repos.repoGetRepoPermissions(o, r, u)),
      listHooks: (o, r, q) => gj(gr("repoListHooks", o, r, q)),
      createHook: (o, r, body) => gj(gr("repoCreateHook", o, r, body)),
      getHook: (o, r, id) => gj(api.repos.repoGetHook(o, r, id)),
      editHook: (o, r, id, body) => gj(gr("repoEditHook", o, r, id, body)),
      deleteHook: (o, r, id) => gj(api.repos.repoDeleteHook(o, r, id)),
      listRepoTeams: (o, r) => gj(api.repos.repoListTeams(o, r)),
      teamMember: (team, u) => gj(api.teams.orgListTeamMember(team, u)),
      unimplemented: [
        { name: "GET /repos/{owner}/{repo}/labels/{id}", call: (o, r) => gj(api.repos.issueGetLabel(o, r, 1)) },
        { name: "GET /repos/{owner}/{repo}/issues/comments", call: (o, r) => gj(api.repos.issueGetRepoComments(o, r)) },
        { name: "GET /repos/{owner}/{repo}/milestones", call: (o, r) => gj(api.repos.issueGetMilestonesList(o, r)) },
        { name: "GET /repos/{owner}/{repo}/assignees", call: (o, r) => gj(api.repos.repoGetAssignees(o, r)) },
        { name: "DELETE /repos/{owner}/{repo}", call: (o, r) => gj(api.repos.repoDelete(o, r)) },
        { name: "GET /user/repos", call: () => gj(api.user.userCurrentListRepos()) },
        { name: "GET /repos/{owner}/{repo}/issues/{index}/timeline", call: (o, r) => gj(api.repos.issueGetCommentsAndTimeline(o, r, 1)) },
      ],
    };
  };
}

/** forgejo-ts (hey-api, axios): never throws (throwOnError false); an error result is the AxiosError. */
async function fj(p: Promise<unknown>): Promise<Reply> {
  const r = (await p) as { status?: number; data?: unknown; error?: unknown; response?: { status: number; data: unknown } };
  if (r.response && r.status === undefined) return { status: r.response.status, data: r.response.data };
  return { status: r.status ?? 0, data: r.data };
}

export function forgejoTs(baseUrl: string): Driver {
  return (token) => {
    const client = createClient({ baseURL: `${baseUrl}/api/v1`, headers: token ? { Authorization: `token ${token}` } : {}, throwOnError: false });
    const loose = F as unknown as Record<string, FjFn>;
    const ff = (name: string, options: unknown) => fn(loose, name)(options);
    const c = (path: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ client, path, ...extra });
    const blob = (x: { name: string; bytes: Uint8Array }) => new File([Buffer.from(x.bytes)], x.name, { type: "application/gzip" });
    return {
      version: () => fj(F.getVersion({ client })),
      apiSettings: () => fj(F.getGeneralApiSettings({ client })),
      attachmentSettings: () => fj(F.getGeneralAttachmentSettings({ client })),
      currentUser: () => fj(F.userGetCurrent({ client })),
      createRepo: (body) => fj(ff("createCurrentUserRepo", { client, body })),
      getRepo: (o, r) => fj(F.repoGet({ client, path: { owner: o, repo: r } })),
      listIssues: (o, r, q) => fj(ff("issueListIssues", c({ owner: o, repo: r }, { query: q }))),
      createIssue: (o, r, body) => fj(ff("issueCreateIssue", c({ owner: o, repo: r }, { body }))),
      getIssue: (o, r, n) => fj(ff("issueGetIssue", c({ owner: o, repo: r, index: n }))),
      editIssue: (o, r, n, body) => fj(ff("issueEditIssue", c({ owner: o, repo: r, index: n }, { body }))),
      deleteIssue: (o, r, n) => fj(ff("issueDelete", c({ owner: o, repo: r, index: n }))),
      listComments: (o, r, n, q) => fj(ff("issueGetComments", c({ owner: o, repo: r, index: n }, { query: q }))),
      createComment: (o, r, n, body) => fj(ff("issueCreateComment", c({ owner: o, repo: r, index: n }, { body }))),
      getComment: (o, r, id) => fj(ff("issueGetComment", c({ owner: o, repo: r, id }))),
      editComment: (o, r, id, body) => fj(ff("issueEditComment", c({ owner: o, repo: r, id }, { body }))),
      deleteComment: (o, r, id) => fj(ff("issueDeleteComment", c({ owner: o, repo: r, id }))),
      listAssets: (o, r, n) => fj(ff("issueListIssueAttachments", c({ owner: o, repo: r, index: n }))),
      createAsset: (o, r, n, x, q) => fj(ff("issueCreateIssueAttachment", c({ owner: o, repo: r, index: n }, { body: { attachment: blob(x) }, query: q }))),
      getAsset: (o, r, n, id) => fj(ff("issueGetIssueAttachment", c({ owner: o, repo: r, index: n, attachment_id: id }))),
      editAsset: (o, r, n, id, body) => fj(ff("issueEditIssueAttachment", c({ owner: o, repo: r, index: n, attachment_id: id }, { body }))),
      deleteAsset: (o, r, n, id) => fj(ff("issueDeleteIssueAttachment", c({ owner: o, repo: r, index: n, attachment_id: id }))),
      listCommentAssets: (o, r, cid) => fj(ff("issueListIssueCommentAttachments", c({ owner: o, repo: r, id: cid }))),
      createCommentAsset: (o, r, cid, x, q) => fj(ff("issueCreateIssueCommentAttachment", c({ owner: o, repo: r, id: cid }, { body: { attachment: blob(x) }, query: q }))),
      getCommentAsset: (o, r, cid, id) => fj(ff("issueGetIssueCommentAttachment", c({ owner: o, repo: r, id: cid, attachment_id: id }))),
      editCommentAsset: (o, r, cid, id, body) => fj(ff("issueEditIssueCommentAttachment", c({ owner: o, repo: r, id: cid, attachment_id: id }, { body }))),
      deleteCommentAsset: (o, r, cid, id) => fj(ff("issueDeleteIssueCommentAttachment", c({ owner: o, repo: r, id: cid, attachment_id: id }))),
      listIssueLabels: (o, r, n) => fj(ff("issueGetLabels", c({ owner: o, repo: r, index: n }))),
      addIssueLabels: (o, r, n, body) => fj(ff("issueAddLabel", c({ owner: o, repo: r, index: n }, { body }))),
      replaceIssueLabels: (o, r, n, body) => fj(ff("issueReplaceLabels", c({ owner: o, repo: r, index: n }, { body }))),
      clearIssueLabels: (o, r, n) => fj(ff("issueClearLabels", c({ owner: o, repo: r, index: n }))),
      listLabels: (o, r, q) => fj(ff("issueListLabels", c({ owner: o, repo: r }, { query: q }))),
      createLabel: (o, r, body) => fj(ff("issueCreateLabel", c({ owner: o, repo: r }, { body }))),
      listCollaborators: (o, r, q) => fj(ff("repoListCollaborators", c({ owner: o, repo: r }, { query: q }))),
      isCollaborator: (o, r, u) => fj(ff("repoCheckCollaborator", c({ owner: o, repo: r, collaborator: u }))),
      addCollaborator: (o, r, u, body) => fj(ff("repoAddCollaborator", c({ owner: o, repo: r, collaborator: u }, { body }))),
      deleteCollaborator: (o, r, u) => fj(ff("repoDeleteCollaborator", c({ owner: o, repo: r, collaborator: u }))),
      permission: (o, r, u) => fj(ff("repoGetRepoPermissions", c({ owner: o, repo: r, collaborator: u }))),
      listHooks: (o, r, q) => fj(ff("repoListHooks", c({ owner: o, repo: r }, { query: q }))),
      createHook: (o, r, body) => fj(ff("repoCreateHook", c({ owner: o, repo: r }, { body }))),
      getHook: (o, r, id) => fj(ff("repoGetHook", c({ owner: o, repo: r, id }))),
      editHook: (o, r, id, body) => fj(ff("repoEditHook", c({ owner: o, repo: r, id }, { body }))),
      deleteHook: (o, r, id) => fj(ff("repoDeleteHook", c({ owner: o, repo: r, id }))),
      listRepoTeams: (o, r) => fj(ff("repoListTeams", c({ owner: o, repo: r }))),
      teamMember: (team, u) => fj(ff("orgListTeamMember", c({ id: team, username: u }))),
      unimplemented: [
        { name: "GET /repos/{owner}/{repo}/labels/{id}", call: (o, r) => fj(ff("issueGetLabel", c({ owner: o, repo: r, id: 1 }))) },
        { name: "GET /repos/{owner}/{repo}/issues/comments", call: (o, r) => fj(ff("issueGetRepoComments", c({ owner: o, repo: r }))) },
        { name: "GET /repos/{owner}/{repo}/milestones", call: (o, r) => fj(ff("issueGetMilestonesList", c({ owner: o, repo: r }))) },
        { name: "GET /repos/{owner}/{repo}/assignees", call: (o, r) => fj(ff("repoGetAssignees", c({ owner: o, repo: r }))) },
        { name: "DELETE /repos/{owner}/{repo}", call: (o, r) => fj(ff("repoDelete", c({ owner: o, repo: r }))) },
        { name: "GET /user/repos", call: () => fj(ff("userCurrentListRepos", { client })) },
        { name: "GET /repos/{owner}/{repo}/issues/{index}/timeline", call: (o, r) => fj(ff("issueGetCommentsAndTimeline", c({ owner: o, repo: r, index: 1 }))) },
      ],
    };
  };
}
