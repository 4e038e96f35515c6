import type { ClientEnv } from "../../../config/env.ts";
import type { IssueHost, RepoRef } from "../../../ports/issue-host.ts";
import { readAllComments, toCommentRecord } from "../../../session-client/index.ts";
import { createProjection } from "../../../projection/index.ts";
import { ignoredAuthors, ignoredAuthorsText } from "../../../dashboard/index.ts";
import { type DoctorCheck, message } from "./doctor-check.ts";

/**
 * Reads the session issue as `status` does, with this token's login and CHECKPOST_TRUSTED_AUTHORS: an author
 * whose checkpoints were ignored fails the check with the sentence the dashboard shows. Run with the bot's
 * settings, it is the bot's decision (docs/security.md, "Trusted authors").
 */
export async function checkIgnoredAuthors(api: IssueHost, repo: RepoRef, issue: number, login: string, env: ClientEnv, add: (c: DoctorCheck) => void): Promise<void> {
  try {
    const p = createProjection({
      trustedAuthors: new Set([login, ...env.CHECKPOST_TRUSTED_AUTHORS].map((s) => s.toLowerCase())),
      ...(env.CHECKPOST_SIGNING_KEY ? { signingKey: env.CHECKPOST_SIGNING_KEY } : {}),
      legacyWriters: env.CHECKPOST_LEGACY_WRITERS,
    });
    p.applyAll((await readAllComments(api, repo, issue)).map((c) => ({ type: "upsert" as const, comment: toCommentRecord(c) })));
    const text = ignoredAuthorsText(ignoredAuthors(p.snapshot()), env.CHECKPOST_TRUSTED_AUTHORS);
    if (text === null)
      add({
        check: "ignored-authors",
        status: "ok",
        message: `no checkpoint on #${issue} was ignored for its author (trusted: ${login}${env.CHECKPOST_TRUSTED_AUTHORS.length ? `, ${env.CHECKPOST_TRUSTED_AUTHORS.join(", ")}` : ""})`,
      });
    else
      add({ check: "ignored-authors", status: "fail", message: text, fix: "add the agents' logins to CHECKPOST_TRUSTED_AUTHORS (the same list for the bot and every agent), or delete the comments" });
  } catch (e) {
    add({ check: "ignored-authors", status: "fail", message: `cannot read #${issue}'s comments: ${message(e)}` });
  }
}
