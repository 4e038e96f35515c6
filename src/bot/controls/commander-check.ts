import type { Logger } from "pino";
import type { IssueHost, IssueWriteAccess, RepoRef } from "../../ports/issue-host.ts";
import { HostError } from "../../errors.ts";

/** How long a "may command" answer is kept (a revoked writer may still command this long). Refusals are not kept. */
export const COMMANDER_CACHE_MS = 60_000;

export interface CommanderCheckOptions {
  api: Pick<IssueHost, "mayCommand">;
  repo: RepoRef;
  logger: Pick<Logger, "warn">;
  now: () => Date;
  cacheMs?: number;
}

/**
 * Who may command: whoever the host lets write the repository's issues (IssueHost.mayCommand; the
 * Forgejo adapter reads collaborators' modes and teams' rights on issues). A "yes" is kept for the cache
 * time, a "no" never. When the token may not see whether a user is in a group that may write issues, the
 * user is refused and the log says why, once (docs/security.md).
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
    let access: IssueWriteAccess;
    try {
      access = await this.o.api.mayCommand(this.o.repo, login);
    } catch (e) {
      // not found: no such user; forbidden: the bot may not ask (then nobody can command: say so in the log).
      if (e instanceof HostError && (e.reason === "not-found" || e.reason === "forbidden")) {
        if (e.reason === "forbidden") this.o.logger.warn({ login }, "the bot's token may not read collaborator permissions (needs repo admin): commands are refused");
        return false;
      }
      throw e;
    }
    if (!access.canWrite && access.hiddenGroups.length > 0 && !this.warnedHidden) {
      this.warnedHidden = true;
      this.o.logger.warn(
        { login, team: access.hiddenGroups[0] },
        "the bot may not read the members of a team that may write issues (the host shows them only to organisation owners and the team's members; on Forgejo the token needs read:organization): its members' commands are refused unless they have write access otherwise",
      );
    }
    return access.canWrite;
  }
}
