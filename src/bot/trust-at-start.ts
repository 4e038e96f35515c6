import type { Logger } from "pino";
import type { IssueHost, RepoRef } from "../ports/issue-host.ts";

/**
 * The bot's start-up word on trust (docs/security.md, "Trusted authors"), said once, at warn, only when
 * something would be dropped: the repositories' writers (the bot is a repository admin, so it may read their
 * permissions) who are not trusted authors. With separate accounts an agent missing from
 * CHECKPOST_TRUSTED_AUTHORS is one of them, and its first save would be ignored. People who tick the
 * dashboard are writers too and need no trust: the line says "if any is an agent". When the permissions
 * cannot be read and CHECKPOST_TRUSTED_AUTHORS is empty, it says that only the bot's login is trusted.
 */
export async function warnUntrustedWriters(api: IssueHost, repos: readonly RepoRef[], self: string, trustedAuthors: readonly string[], log: Pick<Logger, "warn" | "debug">): Promise<void> {
  const trusted = new Set([self, ...trustedAuthors].map((s) => s.toLowerCase()));
  const untrusted = new Set<string>();
  let unreadable = false;
  for (const repo of repos) {
    try {
      // Collaborators only: the owner may be an organisation (not a login), and owns rather than runs agents.
      const writers = new Set<string>();
      for (const u of await api.listCollaborators(repo)) {
        const access = await api.repoAccess(repo, u.login);
        if (access === "write" || access === "admin") writers.add(u.login);
      }
      for (const w of writers) if (!trusted.has(w.toLowerCase())) untrusted.add(w);
    } catch (e) {
      unreadable = true;
      log.debug({ err: e, repo: `${repo.owner}/${repo.repo}` }, "cannot read the repository's collaborators (the bot is not a repository admin?)");
    }
  }
  const setting = `CHECKPOST_TRUSTED_AUTHORS=${trustedAuthors.join(",")}`;
  if (untrusted.size) {
    const names = [...untrusted].sort();
    log.warn(
      { untrustedWriters: names, trustedAuthors: [self, ...trustedAuthors] },
      `trust: ${names.join(", ")} can write but ${names.length === 1 ? "is not a trusted author" : "are not trusted authors"}: their checkpoints are ignored. If any is an agent, add it: ${setting}${trustedAuthors.length ? "," : ""}${names.join(",")} on the bot and on every agent (docs/security.md, "Trusted authors")`,
    );
  } else if (unreadable && trustedAuthors.length === 0)
    log.warn(
      { trustedAuthors: [self] },
      `trust: CHECKPOST_TRUSTED_AUTHORS is empty, so only ${self}'s checkpoints count: an agent with its own account is ignored until its login is listed (docs/security.md, "Trusted authors")`,
    );
}
