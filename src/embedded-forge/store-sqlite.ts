/** better-sqlite3 persistence for the embedded forge: in-memory or dataDir/forge.sqlite (WAL). */
import Database from "better-sqlite3";
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { FORGE_SCHEMA } from "./store-schema.ts";
import { expandHookEvents } from "./hook-events.ts";
import type { AccessMode, AttachmentRow, CollaboratorMode, TeamRow, CommentRow, HookRow, IssueRow, LabelRow, RepoRow, UserRow } from "./types.ts";

export interface IssueSearch {
  repoId: number;
  isClosed?: boolean;
  isPull?: boolean;
  labelIds: number[];
  keyword?: string;
  posterId?: number;
  mentionLogin?: string;
  noneMatch?: boolean;
  sinceUnix?: number;
  beforeUnix?: number;
  sort: string;
  offset: number;
  limit: number;
}

const SORTS: Record<string, string> = {
  latest: "created_unix DESC, id DESC",
  oldest: "created_unix ASC, id ASC",
  recentupdate: "updated_unix DESC, id DESC",
  leastupdate: "updated_unix ASC, id ASC",
  mostcomment: "num_comments DESC, created_unix DESC, id DESC",
  leastcomment: "num_comments ASC, created_unix DESC, id DESC",
};

export class ForgeStore {
  readonly db: Database.Database;
  private readonly cache = new Map<string, Database.Statement>();

  constructor(dataDir?: string) {
    if (dataDir) {
      // Owner-only: the database holds token hashes, webhook secrets and every comment. A directory that
      // already exists keeps its mode (it may be the user's own); the file is always made 0600, and SQLite
      // creates its -wal and -shm files with the database file's mode.
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const file = join(dataDir, "forge.sqlite");
      closeSync(openSync(file, "a", 0o600));
      chmodSync(file, 0o600);
      this.db = new Database(file);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
    } else {
      this.db = new Database(":memory:");
    }
    this.db.pragma("foreign_keys = ON");
    this.db.exec(FORGE_SCHEMA);
    this.migrate();
    // Columns added after the first stores were made: issue.content_version (models/issues/issue.go:101),
    // comment.content_version (models/issues/comment.go) and attachment.comment_id (models/repo/attachment.go).
    this.addColumn("issues", "content_version", "INTEGER NOT NULL DEFAULT 0");
    this.addColumn("comments", "content_version", "INTEGER NOT NULL DEFAULT 0");
    this.addColumn("attachments", "comment_id", "INTEGER NOT NULL DEFAULT 0");
    this.db.exec("CREATE INDEX IF NOT EXISTS attachments_comment ON attachments (comment_id, id)");
  }

  private addColumn(table: string, column: string, decl: string): void {
    const cols = this.db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[];
    if (!cols.some((c) => c.name === column)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${decl}`);
  }

  /**
   * Save a comment as Forgejo's UpdateComment does (models/issues/comment.go:1150-1192): the row is written
   * with every column (AllCols), so xorm's `updated` tag moves updated_unix to now, and only if the version
   * still is `expectedVersion` (false: ErrCommentAlreadyChanged). The issue row is not touched.
   */
  changeCommentContent(id: number, body: string, expectedVersion: number, now: number): boolean {
    return this.run("UPDATE comments SET body = ?, content_version = content_version + 1, updated_unix = ? WHERE id = ? AND content_version = ?", body, now, id, expectedVersion).changes === 1;
  }

  /**
   * Set the body as Forgejo's ChangeIssueContent does (models/issues/issue_update.go:280-289): the
   * version moves on by one, and only if it still is `expectedVersion` (false: someone changed it since).
   */
  changeIssueContent(id: number, body: string, expectedVersion: number, now: number): boolean {
    return this.run("UPDATE issues SET body = ?, content_version = content_version + 1, updated_unix = ? WHERE id = ? AND content_version = ?", body, now, id, expectedVersion).changes === 1;
  }

  /**
   * user_version 1: hook events are stored expanded, as Forgejo's flags list them (an older database kept
   * the list as given, e.g. ["issues", "issue_comment"]).
   */
  private migrate(): void {
    const version = Number(this.db.pragma("user_version", { simple: true }));
    if (version >= 1) return;
    this.transaction(() => {
      for (const h of this.all<{ id: number; events: string }>("SELECT id, events FROM hooks")) {
        const parsed: unknown = JSON.parse(h.events);
        const asked = Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === "string") : [];
        this.run("UPDATE hooks SET events = ? WHERE id = ?", JSON.stringify(expandHookEvents(asked)), h.id);
      }
      this.db.pragma("user_version = 1");
    });
  }

  /** Cached prepared statement. */
  private st(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }
  private one<T>(sql: string, ...args: unknown[]): T | undefined {
    return this.st(sql).get(...args) as T | undefined;
  }
  private all<T>(sql: string, ...args: unknown[]): T[] {
    return this.st(sql).all(...args) as T[];
  }
  private run(sql: string, ...args: unknown[]): Database.RunResult {
    return this.st(sql).run(...args);
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // users & tokens
  createUser(login: string, opts: { isAdmin: boolean; fullName: string; email: string }, now: number): UserRow {
    const r = this.run(
      "INSERT INTO users (login, lower_name, full_name, email, is_admin, created_unix) VALUES (?, ?, ?, ?, ?, ?)",
      login,
      login.toLowerCase(),
      opts.fullName,
      opts.email,
      opts.isAdmin ? 1 : 0,
      now,
    );
    return this.userById(Number(r.lastInsertRowid))!;
  }
  userById(id: number): UserRow | undefined {
    return this.one<UserRow>("SELECT * FROM users WHERE id = ?", id);
  }
  userByLogin(login: string): UserRow | undefined {
    return this.one<UserRow>("SELECT * FROM users WHERE lower_name = ?", login.toLowerCase());
  }
  countUsers(): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM users")!.n;
  }
  setPasswordHash(userId: number, hash: string): void {
    this.run("INSERT OR REPLACE INTO passwords (user_id, hash) VALUES (?, ?)", userId, hash);
  }
  passwordHash(userId: number): string | undefined {
    return this.one<{ hash: string }>("SELECT hash FROM passwords WHERE user_id = ?", userId)?.hash;
  }
  createToken(userId: number, name: string, hash: string, now: number): void {
    this.run("INSERT INTO tokens (user_id, name, token_hash, created_unix) VALUES (?, ?, ?, ?)", userId, name, hash, now);
  }
  userByTokenHash(hash: string): UserRow | undefined {
    return this.one<UserRow>("SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?", hash);
  }

  // repos
  createRepo(ownerId: number, name: string, opts: { private: boolean; description: string }, now: number): RepoRow {
    const r = this.run(
      "INSERT INTO repos (owner_id, name, lower_name, description, private, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ownerId,
      name,
      name.toLowerCase(),
      opts.description,
      opts.private ? 1 : 0,
      now,
      now,
    );
    return this.repoById(Number(r.lastInsertRowid))!;
  }
  repoById(id: number): RepoRow | undefined {
    return this.one<RepoRow>("SELECT * FROM repos WHERE id = ?", id);
  }
  repoByName(ownerLogin: string, name: string): RepoRow | undefined {
    return this.one<RepoRow>("SELECT r.* FROM repos r JOIN users u ON u.id = r.owner_id WHERE u.lower_name = ? AND r.lower_name = ?", ownerLogin.toLowerCase(), name.toLowerCase());
  }
  listRepos(): RepoRow[] {
    return this.all<RepoRow>("SELECT * FROM repos ORDER BY id");
  }
  setCollaborator(repoId: number, userId: number, mode: CollaboratorMode): void {
    this.run("INSERT OR REPLACE INTO collaborators (repo_id, user_id, mode) VALUES (?, ?, ?)", repoId, userId, mode);
  }
  // organisations and teams
  markOrg(userId: number): void {
    this.run("INSERT OR IGNORE INTO orgs (user_id) VALUES (?)", userId);
  }
  isOrg(userId: number): boolean {
    return this.one("SELECT 1 AS x FROM orgs WHERE user_id = ?", userId) !== undefined;
  }
  createTeam(orgId: number, name: string, accessMode: AccessMode, units: Record<string, AccessMode>): TeamRow {
    const r = this.run("INSERT INTO teams (org_id, name, access_mode, units) VALUES (?, ?, ?, ?)", orgId, name, accessMode, JSON.stringify(units));
    return this.one<TeamRow>("SELECT * FROM teams WHERE id = ?", Number(r.lastInsertRowid))!;
  }
  teamByName(orgId: number, name: string): TeamRow | undefined {
    return this.one<TeamRow>("SELECT * FROM teams WHERE org_id = ? AND name = ?", orgId, name);
  }
  addTeamUser(teamId: number, userId: number): void {
    this.run("INSERT OR IGNORE INTO team_users (team_id, user_id) VALUES (?, ?)", teamId, userId);
  }
  addTeamRepo(teamId: number, repoId: number): void {
    this.run("INSERT OR IGNORE INTO team_repos (team_id, repo_id) VALUES (?, ?)", teamId, repoId);
  }
  teamById(id: number): TeamRow | undefined {
    return this.one<TeamRow>("SELECT * FROM teams WHERE id = ?", id);
  }
  /** The teams that hold the repository (organization.GetRepoTeams; the caller orders them). */
  repoTeams(repoId: number): TeamRow[] {
    return this.all<TeamRow>("SELECT t.* FROM teams t JOIN team_repos tr ON tr.team_id = t.id WHERE tr.repo_id = ? ORDER BY t.id", repoId);
  }
  isTeamUser(teamId: number, userId: number): boolean {
    return this.one("SELECT 1 AS x FROM team_users WHERE team_id = ? AND user_id = ?", teamId, userId) !== undefined;
  }
  /** organization.IsOrganizationMember: an org_user row, which Forgejo adds with any team membership (here: a member of one of its teams). */
  isOrgMember(orgId: number, userId: number): boolean {
    return this.one("SELECT 1 AS x FROM team_users tu JOIN teams t ON t.id = tu.team_id WHERE t.org_id = ? AND tu.user_id = ?", orgId, userId) !== undefined;
  }
  /** organization.GetUserRepoTeams: the user's teams that hold the repository. */
  userRepoTeams(userId: number, repoId: number): TeamRow[] {
    return this.all<TeamRow>(
      "SELECT t.* FROM teams t JOIN team_users tu ON tu.team_id = t.id JOIN team_repos tr ON tr.team_id = t.id WHERE tu.user_id = ? AND tr.repo_id = ? ORDER BY t.id",
      userId,
      repoId,
    );
  }
  removeCollaborator(repoId: number, userId: number): void {
    this.run("DELETE FROM collaborators WHERE repo_id = ? AND user_id = ?", repoId, userId);
  }
  /** Collaborations in the order they were made (Forgejo: by collaboration id). */
  collaboratorsOfRepo(repoId: number): { user: UserRow; mode: CollaboratorMode }[] {
    return this.all<UserRow & { collab_mode: CollaboratorMode }>(
      "SELECT u.*, c.mode AS collab_mode FROM collaborators c JOIN users u ON u.id = c.user_id WHERE c.repo_id = ? ORDER BY c.rowid",
      repoId,
    ).map(({ collab_mode, ...user }) => ({ user, mode: collab_mode }));
  }
  collaboratorMode(repoId: number, userId: number): CollaboratorMode | undefined {
    return this.one<{ mode: CollaboratorMode }>("SELECT mode FROM collaborators WHERE repo_id = ? AND user_id = ?", repoId, userId)?.mode;
  }
  countOpenIssues(repoId: number, isPull: boolean): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM issues WHERE repo_id = ? AND is_pull = ? AND is_closed = 0", repoId, isPull ? 1 : 0)!.n;
  }

  // issues
  createIssue(i: { repoId: number; posterId: number; title: string; body: string; isPull: boolean; isClosed: boolean; isLocked: boolean }, now: number): IssueRow {
    // Never MAX(idx) + 1: that would give a deleted last issue's number again (see issue_index in store-schema.ts).
    // A store from before the counter starts it at the highest number still there.
    const next = this.one<{ n: number }>(
      `INSERT INTO issue_index (repo_id, max_index) VALUES (?, (SELECT COALESCE(MAX(idx), 0) FROM issues WHERE repo_id = ?) + 1)
       ON CONFLICT (repo_id) DO UPDATE SET max_index = max_index + 1 RETURNING max_index AS n`,
      i.repoId,
      i.repoId,
    )!.n;
    const r = this.run(
      `INSERT INTO issues (repo_id, idx, poster_id, title, body, is_closed, is_pull, is_locked, created_unix, updated_unix, closed_unix)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      i.repoId,
      next,
      i.posterId,
      i.title,
      i.body,
      i.isClosed ? 1 : 0,
      i.isPull ? 1 : 0,
      i.isLocked ? 1 : 0,
      now,
      now,
      i.isClosed ? now : 0,
    );
    return this.issueById(Number(r.lastInsertRowid))!;
  }
  issueById(id: number): IssueRow | undefined {
    return this.one<IssueRow>("SELECT * FROM issues WHERE id = ?", id);
  }
  issueByIndex(repoId: number, idx: number): IssueRow | undefined {
    return this.one<IssueRow>("SELECT * FROM issues WHERE repo_id = ? AND idx = ?", repoId, idx);
  }
  issuesOfRepo(repoId: number): IssueRow[] {
    return this.all<IssueRow>("SELECT * FROM issues WHERE repo_id = ? ORDER BY idx", repoId);
  }
  updateIssue(id: number, f: { title: string; body: string; isClosed: boolean; closedUnix: number; isLocked: boolean }, now: number): void {
    this.run(
      "UPDATE issues SET title = ?, body = ?, is_closed = ?, closed_unix = ?, is_locked = ?, updated_unix = ? WHERE id = ?",
      f.title,
      f.body,
      f.isClosed ? 1 : 0,
      f.closedUnix,
      f.isLocked ? 1 : 0,
      now,
      id,
    );
  }
  /** The issue and everything hanging off it (comments, labels, attachments). */
  deleteIssue(id: number): void {
    this.transaction(() => {
      this.run("DELETE FROM comments WHERE issue_id = ?", id);
      this.run("DELETE FROM issue_labels WHERE issue_id = ?", id);
      this.run("DELETE FROM attachments WHERE issue_id = ?", id);
      this.run("DELETE FROM cross_refs WHERE issue_id = ? OR ref_issue_id = ?", id, id);
      this.run("DELETE FROM issues WHERE id = ?", id);
    });
  }
  touchIssue(id: number, now: number): void {
    this.run("UPDATE issues SET updated_unix = ? WHERE id = ?", now, id);
  }

  /** Issue search like Forgejo's db indexer: labels AND-ed (one join per label), updated_unix >= since / <= before. */
  searchIssues(o: IssueSearch): { rows: IssueRow[]; total: number } {
    if (o.noneMatch) return { rows: [], total: 0 };
    const where: string[] = ["i.repo_id = ?"];
    const args: unknown[] = [o.repoId];
    if (o.isClosed !== undefined) {
      where.push("i.is_closed = ?");
      args.push(o.isClosed ? 1 : 0);
    }
    if (o.isPull !== undefined) {
      where.push("i.is_pull = ?");
      args.push(o.isPull ? 1 : 0);
    }
    if (o.posterId !== undefined) {
      where.push("i.poster_id = ?");
      args.push(o.posterId);
    }
    if (o.sinceUnix !== undefined) {
      where.push("i.updated_unix >= ?");
      args.push(o.sinceUnix);
    }
    if (o.beforeUnix !== undefined) {
      where.push("i.updated_unix <= ?");
      args.push(o.beforeUnix);
    }
    if (o.keyword) {
      where.push("(instr(lower(i.title), lower(?)) > 0 OR instr(lower(i.body), lower(?)) > 0)");
      args.push(o.keyword, o.keyword);
    }
    if (o.mentionLogin) {
      where.push("instr(lower(i.body), lower(?)) > 0");
      args.push(`@${o.mentionLogin}`);
    }
    for (const id of o.labelIds) {
      where.push("EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = i.id AND il.label_id = ?)");
      args.push(id);
    }
    const cond = where.join(" AND ");
    const total = this.one<{ n: number }>(`SELECT COUNT(*) AS n FROM issues i WHERE ${cond}`, ...args)!.n;
    const order = SORTS[o.sort] ?? SORTS.latest!;
    const rows = this.all<IssueRow>(`SELECT i.* FROM issues i WHERE ${cond} ORDER BY ${order} LIMIT ? OFFSET ?`, ...args, o.limit, o.offset);
    return { rows, total };
  }

  // labels
  createLabel(repoId: number, l: { name: string; color: string; description: string; exclusive: boolean; isArchived: boolean }): LabelRow {
    const r = this.run(
      "INSERT INTO labels (repo_id, name, color, description, exclusive, is_archived) VALUES (?, ?, ?, ?, ?, ?)",
      repoId,
      l.name,
      l.color,
      l.description,
      l.exclusive ? 1 : 0,
      l.isArchived ? 1 : 0,
    );
    return this.one<LabelRow>("SELECT * FROM labels WHERE id = ?", Number(r.lastInsertRowid))!;
  }
  labelsOfRepo(repoId: number, offset: number, limit: number): LabelRow[] {
    return this.all<LabelRow>("SELECT * FROM labels WHERE repo_id = ? ORDER BY name, id LIMIT ? OFFSET ?", repoId, limit, offset);
  }
  countLabels(repoId: number): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM labels WHERE repo_id = ?", repoId)!.n;
  }
  labelIdsByNames(repoId: number, names: string[]): number[] {
    const ids: number[] = [];
    for (const name of names) {
      for (const r of this.all<{ id: number }>("SELECT id FROM labels WHERE repo_id = ? AND name = ?", repoId, name)) ids.push(r.id);
    }
    return ids;
  }
  labelOfRepo(repoId: number, id: number): LabelRow | undefined {
    return this.one<LabelRow>("SELECT * FROM labels WHERE repo_id = ? AND id = ?", repoId, id);
  }
  labelsOfIssue(issueId: number): LabelRow[] {
    return this.all<LabelRow>("SELECT l.* FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = ? ORDER BY l.name, l.id", issueId);
  }
  /** Issues the origin (issue, or one of its comments) refers to and whose reference is not neutered (xref.ts). */
  activeCrossReferences(refIssueId: number, refCommentId: number): number[] {
    return this.all<{ issue_id: number }>("SELECT issue_id FROM cross_refs WHERE ref_issue_id = ? AND ref_comment_id = ? AND neutered = 0 ORDER BY id", refIssueId, refCommentId).map(
      (r) => r.issue_id,
    );
  }
  insertCrossReference(refIssueId: number, refCommentId: number, issueId: number, now: number): void {
    this.run("INSERT INTO cross_refs (ref_issue_id, ref_comment_id, issue_id, created_unix) VALUES (?, ?, ?, ?)", refIssueId, refCommentId, issueId, now);
  }
  neuterCrossReference(refIssueId: number, refCommentId: number, issueId: number): void {
    this.run("UPDATE cross_refs SET neutered = 1 WHERE ref_issue_id = ? AND ref_comment_id = ? AND issue_id = ?", refIssueId, refCommentId, issueId);
  }
  /** How many reference entries issue `issueId`'s timeline holds (tests: the timeline is not served). */
  crossReferencesTo(issueId: number): number {
    return this.one<{ n: number }>("SELECT COUNT(*) AS n FROM cross_refs WHERE issue_id = ?", issueId)?.n ?? 0;
  }
  removeIssueLabel(issueId: number, labelId: number): void {
    this.run("DELETE FROM issue_labels WHERE issue_id = ? AND label_id = ?", issueId, labelId);
  }
  clearIssueLabels(issueId: number): void {
    this.run("DELETE FROM issue_labels WHERE issue_id = ?", issueId);
  }
  addIssueLabel(issueId: number, labelId: number): boolean {
    return this.run("INSERT OR IGNORE INTO issue_labels (issue_id, label_id) VALUES (?, ?)", issueId, labelId).changes > 0;
  }

  // comments
  insertComment(issueId: number, posterId: number, body: string, createdUnix: number, updatedUnix: number): number {
    return Number(this.run("INSERT INTO comments (issue_id, poster_id, body, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?)", issueId, posterId, body, createdUnix, updatedUnix).lastInsertRowid);
  }
  insertAttachment(a: { uuid: string; issueId: number; commentId: number; uploaderId: number; name: string; data: Buffer; createdUnix: number }): number {
    return Number(
      this.run(
        "INSERT INTO attachments (uuid, issue_id, comment_id, uploader_id, name, data, created_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
        a.uuid,
        a.issueId,
        a.commentId,
        a.uploaderId,
        a.name,
        a.data,
        a.createdUnix,
      ).lastInsertRowid,
    );
  }
  /** The issue's own attachments: GetAttachmentsByIssueID is `issue_id = ? AND comment_id = 0` (models/repo/attachment.go:153-156). */
  attachmentsOfIssue(issueId: number): AttachmentRow[] {
    return this.all<AttachmentRow>(
      "SELECT id, uuid, issue_id, comment_id, uploader_id, name, length(data) AS size, created_unix FROM attachments WHERE issue_id = ? AND comment_id = 0 ORDER BY id",
      issueId,
    );
  }
  /** GetAttachmentsByCommentID (models/repo/attachment.go:174-177). */
  attachmentsOfComment(commentId: number): AttachmentRow[] {
    return this.all<AttachmentRow>("SELECT id, uuid, issue_id, comment_id, uploader_id, name, length(data) AS size, created_unix FROM attachments WHERE comment_id = ? ORDER BY id", commentId);
  }
  attachmentById(id: number): AttachmentRow | undefined {
    return this.one<AttachmentRow>("SELECT id, uuid, issue_id, comment_id, uploader_id, name, length(data) AS size, created_unix FROM attachments WHERE id = ?", id);
  }
  renameAttachment(id: number, name: string): void {
    this.run("UPDATE attachments SET name = ? WHERE id = ?", name, id);
  }
  deleteAttachment(id: number): void {
    this.run("DELETE FROM attachments WHERE id = ?", id);
  }
  attachmentData(uuid: string): { name: string; data: Buffer } | undefined {
    return this.one<{ name: string; data: Buffer }>("SELECT name, data FROM attachments WHERE uuid = ?", uuid);
  }
  recountComments(issueId: number): void {
    this.run("UPDATE issues SET num_comments = (SELECT COUNT(*) FROM comments WHERE issue_id = ?) WHERE id = ?", issueId, issueId);
  }
  commentById(id: number): CommentRow | undefined {
    return this.one<CommentRow>("SELECT * FROM comments WHERE id = ?", id);
  }
  /** Forgejo FindComments: updated_unix >= since, updated_unix <= before, ORDER BY created_unix, id. */
  listComments(issueId: number, sinceUnix: number, beforeUnix: number): CommentRow[] {
    return this.all<CommentRow>(
      `SELECT * FROM comments WHERE issue_id = ? AND (? = 0 OR updated_unix >= ?) AND (? = 0 OR updated_unix <= ?)
       ORDER BY created_unix ASC, id ASC`,
      issueId,
      sinceUnix,
      sinceUnix,
      beforeUnix,
      beforeUnix,
    );
  }
  deleteComment(id: number): void {
    this.run("DELETE FROM comments WHERE id = ?", id);
  }

  // hooks
  createHook(h: Omit<HookRow, "id">): HookRow {
    const r = this.run(
      `INSERT INTO hooks (repo_id, type, url, content_type, secret, events, active, authorization_header, branch_filter, created_unix, updated_unix)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      h.repo_id,
      h.type,
      h.url,
      h.content_type,
      h.secret,
      h.events,
      h.active,
      h.authorization_header,
      h.branch_filter,
      h.created_unix,
      h.updated_unix,
    );
    return this.hookById(Number(r.lastInsertRowid))!;
  }
  hookById(id: number): HookRow | undefined {
    return this.one<HookRow>("SELECT * FROM hooks WHERE id = ?", id);
  }
  hooksOfRepo(repoId: number): HookRow[] {
    return this.all<HookRow>("SELECT * FROM hooks WHERE repo_id = ? ORDER BY id", repoId);
  }
  updateHook(id: number, h: Pick<HookRow, "url" | "content_type" | "events" | "branch_filter" | "authorization_header" | "active" | "updated_unix">): void {
    this.run(
      "UPDATE hooks SET url = ?, content_type = ?, events = ?, branch_filter = ?, authorization_header = ?, active = ?, updated_unix = ? WHERE id = ?",
      h.url,
      h.content_type,
      h.events,
      h.branch_filter,
      h.authorization_header,
      h.active,
      h.updated_unix,
      id,
    );
  }
  deleteHook(id: number): void {
    this.run("DELETE FROM hooks WHERE id = ?", id);
  }
}
