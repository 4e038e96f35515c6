import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../../ports/issue-host.ts";
import { HostError } from "../../errors.ts";

/** Access modes that may command: Forgejo's "write" and above, on the issues unit. */
const WRITERS = new Set(["write", "admin", "owner"]);

/** How long a "may command" answer is kept (a revoked writer may still command this long). Refusals are not kept. */
export const COMMANDER_CACHE_MS = 60_000;

export interface CommanderCheckOptions {
  api: Pick<IssueHost, "collaboratorPermission" | "listRepoTeams" | "isTeamMember">;
  repo: RepoRef;
  logger: Pick<Logger, "warn">;
  now: () => Date;
  cacheMs?: number;
}

/**
 * Who may command: whoever Forgejo lets write issues on the repository (CanWriteIssuesOrPulls,
 * models/perm/access/repo_permission.go:109-114: the issues unit's mode, at least write).
 *
 * The permission API answers the repository's AccessMode, not the issues unit's: for a member of a team
 * with per-unit rights it is the team's AccessMode, the lowest of its units (models/unit/unit.go:434-449),
 * so a triage team that may write issues but only read code reads as "read". The unit's mode is the
 * highest of the collaboration's mode and each of the user's teams' mode for the unit
 * (repo_permission.go:255-300). So when the permission reads "read", the bot lists the repository's teams
 * (GET /repos/{o}/{r}/teams, `units_map["repo.issues"]`) and, for each that may write issues, asks whether
 * the user is a member (GET /teams/{id}/members/{u}). Forgejo answers that only to a site admin, an owner
 * of the organisation or a member of that team (reqTeamMembership, routers/api/v1/api.go:551-586): when
 * the bot may not look, the user is refused and the log says why (docs/security.md).
 */
export class CommanderCheck {
  private readonly allowed = new Map<string, number>();
  private warnedHidden = false;

  constructor(private readonly o: CommanderCheckOptions) {}

  async mayCommand(login: string): Promise<boolean> {
    const key = login.toLowerCase();
    const now = this.o.now().getTime();
    const at = this.allowed.get(key);
    if (at !== undefined && now - at < (this.o.cacheMs ?? COMMANDER_CACHE_MS)) return true;
    this.allowed.delete(key);
    const may = await this.ask(login);
    if (may) {
      if (this.allowed.size >= 1000) this.allowed.clear();
      this.allowed.set(key, now);
    }
    return may;
  }

  private async ask(login: string): Promise<boolean> {
    let mode: string;
    try {
      mode = await this.o.api.collaboratorPermission(this.o.repo, login);
    } catch (e) {
      // not found: no such user; forbidden: the bot may not ask (then nobody can command: say so in the log).
      if (e instanceof HostError && (e.reason === "not-found" || e.reason === "forbidden")) {
        if (e.reason === "forbidden") this.o.logger.warn({ login }, "the bot's token may not read collaborator permissions (needs repo admin): commands are refused");
        return false;
      }
      throw e;
    }
    if (WRITERS.has(mode)) return true;
    // "none": no team of the user holds the repository (it would give read at least). Only "read" may hide a team's issue write.
    if (mode !== "read") return false;
    return this.teamMayWriteIssues(login);
  }

  /** Whether one of the repository's teams that may write issues has the user as a member. */
  private async teamMayWriteIssues(login: string): Promise<boolean> {
    const writers = (await this.o.api.listRepoTeams(this.o.repo)).filter((t) => WRITERS.has(t.issuesMode));
    for (const team of writers) {
      try {
        if (await this.o.api.isTeamMember(team.id, login)) return true;
      } catch (e) {
        if (!(e instanceof HostError && e.reason === "forbidden")) throw e;
        if (!this.warnedHidden) {
          this.warnedHidden = true;
          this.o.logger.warn(
            { login, team: team.name },
            "the bot may not read the members of a team that may write issues (Forgejo shows them to organisation owners and the team's members; the token needs read:organization): its members' commands are refused unless they have write access otherwise",
          );
        }
      }
    }
    return false;
  }
}
