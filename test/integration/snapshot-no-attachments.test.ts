// Issue 31, item 2: on a host with no attachment API (GitHub's behaviour, capabilities.attachments false)
// snapshots are off, and `snapshot save` says so before it writes anything: before this check it posted
// the parts comment, then failed on the first upload and left that comment behind.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionStore } from "../../src/session-client/index.ts";
import { DEFAULT_SNAPSHOT_SETTINGS, SnapshotsOffError, saveSnapshot } from "../../src/snapshot/index.ts";
import { GitHubHost } from "../helpers/github-host/github-host.ts";
import { GitHubRest } from "../helpers/github-host/github-rest.ts";

const repo = { owner: "agent", repo: "work" };

describe("snapshots on a host without attachments", () => {
  it("are refused with SnapshotsOffError before any write: no parts comment, no [SNAPSHOT]", async () => {
    const rest = new GitHubRest({ repo, now: () => Date.now() });
    const agent = rest.addUser("agent");
    const api = new GitHubHost({ apiUrl: rest.apiUrl, token: agent.token, fetch: rest.fetch, now: () => Date.now() });
    const issue = await api.createIssue(repo, { title: "checkpost session", body: "" });
    const cwd = mkdtempSync(join(tmpdir(), "checkpost-snap-off-"));
    writeFileSync(join(cwd, "t.jsonl"), '{"turn":1}\n');
    rest.log.length = 0;
    const save = saveSnapshot({
      store: new SessionStore({ api, repo, issue: issue.number }),
      api,
      agent: "worker",
      session: "s1",
      files: ["t.jsonl"],
      cwd,
      settings: DEFAULT_SNAPSHOT_SETTINGS,
    });
    await expect(save).rejects.toBeInstanceOf(SnapshotsOffError);
    await expect(save).rejects.toThrow(/snapshots .* are off there: nothing was written/);
    expect(rest.comments.size).toBe(0);
    expect(rest.log.filter((r) => !r.startsWith("GET "))).toEqual([]);
  });
});
