/** In-process admin API of the embedded forge (seeding, faults, stats, webhook deliveries). */
import { hashPassword } from "./password.ts";
import { randomBytes } from "node:crypto";
import { hashToken } from "./access.ts";
import type { ForgeContext, ForgeSeams } from "./context.ts";
import { emptyFaultCounts, type FaultController } from "./faults.ts";
import { normalizeColor } from "./routes/labels.ts";
import type { AccessMode, CollaboratorMode, DeliveryRecord, FaultOptions, ForgeStats, IssueRow, RepoRow, UserRow } from "./types.ts";
import type { WebhookDispatcher } from "./webhooks.ts";
import type { RequestStats } from "./http-io.ts";

export interface AdminUser {
  id: number;
  login: string;
  isAdmin: boolean;
}
export interface AdminRepo {
  id: number;
  owner: string;
  name: string;
  fullName: string;
}
export interface AdminIssue {
  id: number;
  number: number;
}
export interface SeedIssue {
  title: string;
  body?: string;
  /** Poster login; default the repo owner. */
  author?: string;
  /** Label names (must exist in the repo). */
  labels?: string[];
  closed?: boolean;
  locked?: boolean;
  /** Creation time (Date, RFC 3339 string or epoch ms); default now. */
  createdAt?: Date | string | number;
}
export interface SeedComment {
  login: string;
  body: string;
  createdAt?: Date | string | number;
}

export interface ForgeAdmin {
  createUser(login: string, opts?: { isAdmin?: boolean; fullName?: string; email?: string }): AdminUser;
  /** Returns the plain token (40 hex chars); only its SHA-256 is stored. */
  createToken(login: string, name?: string): string;
  userExists(login: string): boolean;
  /** Let the user sign in to the web view with this password (stored as a scrypt hash). */
  setPassword(login: string, password: string): void;
  userCount(): number;
  repoExists(owner: string, name: string): boolean;
  createRepo(owner: string, name: string, opts?: { private?: boolean; description?: string }): AdminRepo;
  addCollaborator(owner: string, repo: string, login: string, mode: CollaboratorMode): void;
  /** An organisation (a user row marked as one); repositories are created under it with createRepo(org, …). */
  createOrg(login: string): AdminUser;
  /**
   * A team of `org` holding `repos`. `permission` "admin"/"owner" makes an admin team; otherwise the team's
   * AccessMode is the lowest of its unit modes (MinUnitAccessMode, models/unit/unit.go:434-449), e.g.
   * units {issues: "write", code: "read"} → "read".
   */
  createTeam(org: string, name: string, opts: { permission?: "admin" | "owner"; units?: Record<string, "none" | "read" | "write">; repos?: string[] }): { id: number; accessMode: string };
  addTeamMember(org: string, team: string, login: string): void;
  createLabel(owner: string, repo: string, label: { name: string; color?: string; description?: string; exclusive?: boolean }): { id: number };
  createIssue(owner: string, repo: string, issue: SeedIssue): AdminIssue;
  /** A "pull" record (no git data) so type=pulls|issues is testable. */
  createPullRequest(owner: string, repo: string, pr: SeedIssue): AdminIssue;
  /** Insert many comments in one transaction (no webhooks); returns the id range. */
  bulkComments(owner: string, repo: string, index: number, comments: SeedComment[]): { count: number; firstId: number; lastId: number };
  setFaults(f: FaultOptions): void;
  /** Clear all faults; the PRNG restarts from the seed (or `seed`). */
  resetFaults(seed?: number): void;
  getFaults(): FaultOptions;
  stats(): ForgeStats;
  resetStats(): void;
  deliveries(): DeliveryRecord[];
  /** Resolves when the webhook queue is empty (nothing queued or in flight). */
  idle(): Promise<void>;
  setWebhookTimeout(ms: number): void;
  /** Drive the server clock (epoch ms); null restores Date.now. */
  setClock(clock: (() => number) | null): void;
  /** Forgejo's content_version of an issue (+1 at every ChangeContent) and of a comment (+1 at every UpdateComment); the API does not show them. */
  contentVersion(owner: string, repo: string, index: number): number;
  commentContentVersion(commentId: number): number;
  /** Change an issue's body as ChangeIssueContent does (version +1, updated_at now), without webhooks: another request's edit, inside a seam. */
  editIssueBody(owner: string, repo: string, index: number, body: string | ((old: string) => string)): void;
  /** Act inside a request at the points ForgeSeams names (races); {} removes them. */
  setSeams(seams: ForgeSeams): void;
}

export interface AdminDeps {
  forge: ForgeContext;
  faults: FaultController;
  webhooks: WebhookDispatcher;
  stats: RequestStats;
  setClock(clock: (() => number) | null): void;
}

function toUnix(t: Date | string | number | undefined, fallback: number): number {
  if (t === undefined) return fallback;
  const ms = t instanceof Date ? t.getTime() : typeof t === "string" ? Date.parse(t) : t;
  if (Number.isNaN(ms)) throw new Error(`invalid time: ${String(t)}`);
  return Math.floor(ms / 1000);
}

export function createAdmin(d: AdminDeps): ForgeAdmin {
  const { forge, faults, webhooks } = d;
  const store = forge.store;
  const user = (login: string): UserRow => {
    const u = store.userByLogin(login);
    if (!u) throw new Error(`forge admin: no user ${login}`);
    return u;
  };
  const repoOf = (owner: string, name: string): RepoRow => {
    const r = store.repoByName(owner, name);
    if (!r) throw new Error(`forge admin: no repo ${owner}/${name}`);
    return r;
  };
  const seedIssue = (owner: string, name: string, s: SeedIssue, isPull: boolean): AdminIssue => {
    const repo = repoOf(owner, name);
    const poster = s.author ? user(s.author) : store.userById(repo.owner_id)!;
    const now = toUnix(s.createdAt, forge.nowUnix());
    const issue: IssueRow = store.transaction(() => {
      const created = store.createIssue({ repoId: repo.id, posterId: poster.id, title: s.title, body: s.body ?? "", isPull, isClosed: s.closed === true, isLocked: s.locked === true }, now);
      for (const labelName of s.labels ?? []) {
        const ids = store.labelIdsByNames(repo.id, [labelName]);
        if (ids.length === 0) throw new Error(`forge admin: no label ${labelName} in ${owner}/${name}`);
        for (const id of ids) store.addIssueLabel(created.id, id);
      }
      return created;
    });
    return { id: issue.id, number: issue.idx };
  };
  return {
    createUser(login, opts = {}) {
      const u = store.createUser(login, { isAdmin: opts.isAdmin === true, fullName: opts.fullName ?? "", email: opts.email ?? `${login.toLowerCase()}@example.org` }, forge.nowUnix());
      return { id: u.id, login: u.login, isAdmin: u.is_admin === 1 };
    },
    createToken(login, name = "checkpost") {
      const token = randomBytes(20).toString("hex");
      store.createToken(user(login).id, name, hashToken(token), forge.nowUnix());
      return token;
    },
    userExists: (login) => store.userByLogin(login) !== undefined,
    setPassword: (login, password) => store.setPasswordHash(user(login).id, hashPassword(password)),
    userCount: () => store.countUsers(),
    repoExists: (owner, name) => store.repoByName(owner, name) !== undefined,
    createRepo(owner, name, opts = {}) {
      const r = store.createRepo(user(owner).id, name, { private: opts.private === true, description: opts.description ?? "" }, forge.nowUnix());
      const o = store.userById(r.owner_id)!;
      return { id: r.id, owner: o.login, name: r.name, fullName: `${o.login}/${r.name}` };
    },
    addCollaborator(owner, repo, login, mode) {
      store.setCollaborator(repoOf(owner, repo).id, user(login).id, mode);
    },
    createOrg(login) {
      const u = store.createUser(login, { isAdmin: false, fullName: "", email: `${login.toLowerCase()}@example.org` }, forge.nowUnix());
      store.markOrg(u.id);
      return { id: u.id, login: u.login, isAdmin: false };
    },
    createTeam(org, name, opts) {
      const o = user(org);
      if (!store.isOrg(o.id)) throw new Error(`forge admin: ${org} is not an organisation`);
      const units = opts.units ?? {};
      let accessMode: AccessMode = opts.permission ?? "none";
      if (!opts.permission) {
        // MinUnitAccessMode: the lowest mode above none, none only when every unit is none.
        const rank = { none: 0, read: 1, write: 2 } as const;
        for (const m of Object.values(units)) if (m !== "none" && (accessMode === "none" || rank[m] < rank[accessMode as "read" | "write"])) accessMode = m;
      }
      const team = store.createTeam(o.id, name, accessMode, units);
      for (const r of opts.repos ?? []) store.addTeamRepo(team.id, repoOf(org, r).id);
      return { id: team.id, accessMode };
    },
    addTeamMember(org, team, login) {
      const t = store.teamByName(user(org).id, team);
      if (!t) throw new Error(`forge admin: no team ${team} in ${org}`);
      store.addTeamUser(t.id, user(login).id);
    },
    createLabel(owner, repo, l) {
      const color = normalizeColor(l.color ?? "#ededed");
      if (!color) throw new Error(`forge admin: bad color ${l.color ?? ""}`);
      const row = store.createLabel(repoOf(owner, repo).id, {
        name: l.name,
        color: color.slice(1),
        description: l.description ?? "",
        exclusive: l.exclusive === true,
        isArchived: false,
      });
      return { id: row.id };
    },
    createIssue: (owner, repo, s) => seedIssue(owner, repo, s, false),
    createPullRequest: (owner, repo, s) => seedIssue(owner, repo, s, true),
    bulkComments(owner, repo, index, comments) {
      const r = repoOf(owner, repo);
      const issue = store.issueByIndex(r.id, index);
      if (!issue) throw new Error(`forge admin: no issue ${owner}/${repo}#${index}`);
      const now = forge.nowUnix();
      const posters = new Map<string, number>();
      return store.transaction(() => {
        let firstId = 0;
        let lastId = 0;
        let latest = issue.updated_unix;
        for (const c of comments) {
          let pid = posters.get(c.login);
          if (pid === undefined) {
            pid = user(c.login).id;
            posters.set(c.login, pid);
          }
          const t = toUnix(c.createdAt, now);
          lastId = store.insertComment(issue.id, pid, c.body, t, t);
          if (firstId === 0) firstId = lastId;
          if (t > latest) latest = t;
        }
        store.recountComments(issue.id);
        store.touchIssue(issue.id, latest);
        return { count: comments.length, firstId, lastId };
      });
    },
    setFaults: (f) => faults.set(f),
    resetFaults: (seed) => faults.reset(seed),
    getFaults: () => faults.options,
    stats: () => ({
      requests: { ...d.stats.requests },
      requestsBy: Object.fromEntries(Object.entries(d.stats.requestsBy).map(([who, routes]) => [who, { ...routes }])),
      totalRequests: d.stats.totalRequests,
      bytesSent: d.stats.bytesSent,
      faults: { ...faults.counts },
      deliveries: webhooks.deliveries().length,
    }),
    resetStats() {
      d.stats.requests = {};
      d.stats.requestsBy = {};
      d.stats.totalRequests = 0;
      d.stats.bytesSent = 0;
      Object.assign(faults.counts, emptyFaultCounts());
    },
    deliveries: () => webhooks.deliveries(),
    idle: () => webhooks.idle(),
    setWebhookTimeout(ms) {
      webhooks.timeoutMs = ms;
    },
    setClock: (c) => d.setClock(c),
    contentVersion(owner, name, index) {
      const issue = store.issueByIndex(repoOf(owner, name).id, index);
      if (!issue) throw new Error(`forge admin: no issue ${owner}/${name}#${index}`);
      return issue.content_version;
    },
    editIssueBody(owner, name, index, body) {
      const issue = store.issueByIndex(repoOf(owner, name).id, index);
      if (!issue) throw new Error(`forge admin: no issue ${owner}/${name}#${index}`);
      store.changeIssueContent(issue.id, typeof body === "function" ? body(issue.body) : body, issue.content_version, forge.nowUnix());
    },
    commentContentVersion(id) {
      const c = store.commentById(id);
      if (!c) throw new Error(`forge admin: no comment ${id}`);
      return c.content_version;
    },
    setSeams(seams) {
      forge.seams = seams;
    },
  };
}
