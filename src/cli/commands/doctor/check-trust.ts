import type { ClientEnv } from "../../../config/env.ts";
import type { IssueHost, RepoAccess, RepoRef } from "../../../ports/issue-host.ts";
import { type DoctorCheck, message, reasonOf } from "./doctor-check.ts";

export async function checkTrust(api: IssueHost, repo: RepoRef, login: string, env: ClientEnv, add: (c: DoctorCheck) => void): Promise<void> {
  const trusted = [...new Set([login, ...env.CHECKPOST_TRUSTED_AUTHORS].map((s) => s.toLowerCase()))];
  const modes = new Map<string, RepoAccess>();
  let forbidden = false;
  const missing: string[] = [];
  for (const who of trusted) {
    try {
      modes.set(who, await api.repoAccess(repo, who));
    } catch (e) {
      const reason = reasonOf(e);
      if (reason === "not-found") missing.push(who);
      else if (reason === "forbidden") forbidden = true;
      else {
        add({ check: "trusted-authors", status: "fail", message: `cannot read ${who}'s permission: ${message(e)}` });
        return;
      }
    }
  }
  if (missing.length)
    add({
      check: "trusted-authors",
      status: "fail",
      message: `trusted author(s) ${missing.join(", ")} do not exist on this Forgejo: anyone who registers that login would be believed`,
      fix: "correct CHECKPOST_TRUSTED_AUTHORS",
    });
  if (forbidden) {
    add({
      check: "trusted-authors",
      status: "skip",
      message: `${login} may not read other users' permissions (repository admin only), so trusted authors were not compared with the writers: run doctor with the bot's or an admin's token to check them`,
    });
    return;
  }
  let collaborators: string[];
  try {
    collaborators = (await api.listCollaborators(repo)).map((u) => u.login.toLowerCase());
  } catch (e) {
    add({ check: "trusted-authors", status: "warn", message: `cannot list collaborators: ${message(e)}` });
    return;
  }
  const writers: string[] = [repo.owner.toLowerCase()];
  try {
    for (const who of collaborators) {
      const mode = modes.get(who) ?? (await api.repoAccess(repo, who));
      if (mode === "write" || mode === "admin") writers.push(who);
    }
  } catch (e) {
    if (reasonOf(e) === "forbidden")
      add({
        check: "trusted-authors",
        status: "skip",
        message: `${login} may not read other users' permissions (repository admin only), so trusted authors were not compared with the writers: run doctor with the bot's or an admin's token to check them`,
      });
    else add({ check: "trusted-authors", status: "fail", message: `cannot read collaborators' permissions: ${message(e)}` });
    return;
  }
  const untrustedWriters = [...new Set(writers)].filter((w) => !trusted.includes(w));
  const summary = `trusted: ${trusted.join(", ")}; writers: ${[...new Set(writers)].join(", ")}`;
  if (untrustedWriters.length === 0) add({ check: "trusted-authors", status: "ok", message: `every writer is a trusted author (${summary})` });
  else if (env.CHECKPOST_SIGNING_KEY)
    add({
      check: "trusted-authors",
      status: "ok",
      message: `${untrustedWriters.join(", ")} can write but are not trusted: they can edit the issue body and delete comments, but not forge a signed checkpoint or index (${summary})`,
    });
  else
    add({
      check: "trusted-authors",
      status: "warn",
      message: `${untrustedWriters.join(", ")} can write but are not trusted authors, and there is no signing key: they can edit the resume index to roll an agent back (${summary})`,
      fix: "set CHECKPOST_SIGNING_KEY, or remove their write access, or trust them (CHECKPOST_TRUSTED_AUTHORS)",
    });
}
