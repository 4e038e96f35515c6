import type { ClientEnv } from "../../../config/env.ts";
import type { HostIssue, IssueHost, RepoRef } from "../../../ports/issue-host.ts";
import { isSessionIssue, listSessionIssues } from "../../../session-client/index.ts";
import { type DoctorCheck, message } from "./doctor-check.ts";

export async function checkSessionIssue(api: IssueHost, repo: RepoRef, env: ClientEnv, explicit: number | undefined, add: (c: DoctorCheck) => void): Promise<HostIssue | undefined> {
  const opts = { title: env.CHECKPOST_SESSION_TITLE, label: env.CHECKPOST_SESSION_LABEL };
  try {
    if (explicit !== undefined) {
      const issue = await api.readIssue(repo, explicit);
      const problems = [
        issue.state !== "open" ? "is closed" : "",
        !issue.title.includes(opts.title) ? `has no "${opts.title}" in its title` : "",
        !issue.labels.some((l) => l.name === opts.label) ? `lacks the label "${opts.label}"` : "",
      ].filter(Boolean);
      if (problems.length === 0) add({ check: "session-issue", status: "ok", message: `#${issue.number} "${issue.title}" is open and labelled "${opts.label}"` });
      else
        add({
          check: "session-issue",
          status: "warn",
          message: `#${issue.number} ${problems.join(", ")}: the bot finds session issues by open state, title and label`,
          fix: `reopen it, add the label "${opts.label}", or set CHECKPOST_SESSION_TITLE / CHECKPOST_SESSION_LABEL`,
        });
      return issue;
    }
    const found = await listSessionIssues(api, repo, opts);
    const [newest] = found;
    if (!newest) {
      add({
        check: "session-issue",
        status: "fail",
        message: `no open issue titled "${opts.title}" with label "${opts.label}" in ${repo.owner}/${repo.repo}`,
        fix: "run `checkpost init`, or set CHECKPOST_ISSUE / CHECKPOST_SESSION_TITLE / CHECKPOST_SESSION_LABEL",
      });
      return undefined;
    }
    if (found.length > 1)
      add({
        check: "session-issue",
        status: "warn",
        message: `${found.length} open session issues match (${found.map((i) => `#${i.number}`).join(", ")}); the newest, #${newest.number}, is used`,
        fix: "close the others",
      });
    else if (isSessionIssue(newest, opts)) add({ check: "session-issue", status: "ok", message: `#${newest.number} "${newest.title}" is open and labelled "${opts.label}"` });
    return newest;
  } catch (e) {
    add({ check: "session-issue", status: "fail", message: `cannot read the session issue: ${message(e)}`, fix: "check CHECKPOST_ISSUE and the token's access" });
    return undefined;
  }
}
