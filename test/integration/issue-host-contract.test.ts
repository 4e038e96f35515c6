import { afterEach, describe, expect, it } from "vitest";
import type { IssueHost } from "../../src/ports/issue-host.ts";
import { FakeIssueHost } from "../helpers/fake-issue-host.ts";
import { type ForgeWorld, forgeWorld } from "../helpers/forge-fixture.ts";

/**
 * One contract, two IssueHosts: the Forgejo adapter against the embedded Forgejo, and the in-memory
 * fake the unit tests use. What the product relies on must read the same from both, so a unit test
 * on the fake says something about the real host.
 */
let world: ForgeWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const repo = { owner: "agent", repo: "work" };

const hosts: [string, () => Promise<IssueHost>][] = [
  [
    "ForgejoApi on the embedded Forgejo",
    async () => {
      world = await forgeWorld({ withIssue: false });
      return world.api();
    },
  ],
  ["FakeIssueHost", async () => new FakeIssueHost({ login: "agent", now: () => Date.now() })],
];

describe.each(hosts)("IssueHost contract: %s", (_name, open) => {
  it("issues, comments, labels: written, read back as neutral records, 404 when missing", async () => {
    const host = await open();
    const me = await host.currentUser();
    expect(me.login).toBe("agent");
    const label = await host.createLabel(repo, { name: "checkpost-session", color: "#00aabb" });
    expect((await host.listLabels(repo)).map((l) => l.name)).toContain("checkpost-session");

    const issue = await host.createIssue(repo, { title: "Agent session state", body: "notes" });
    expect(issue).toMatchObject({ title: "Agent session state", body: "notes", state: "open", author: "agent", isPullRequest: false });
    expect(Date.parse(issue.createdAt)).not.toBeNaN();
    await host.addIssueLabels(repo, issue.number, [label.id]);
    expect((await host.getIssue(repo, issue.number)).labels.map((l) => l.name)).toEqual(["checkpost-session"]);
    expect((await host.listAllIssues(repo, { state: "open", labels: "checkpost-session" })).map((i) => i.number)).toEqual([issue.number]);

    const a = await host.createComment(repo, issue.number, "first");
    const b = await host.createComment(repo, issue.number, "second");
    expect(a).toMatchObject({ body: "first", author: "agent" });
    expect(b.id).toBeGreaterThan(a.id);
    expect(a.htmlUrl.endsWith(`/issues/${issue.number}#issuecomment-${a.id}`)).toBe(true);
    expect((await host.listComments(repo, issue.number)).map((c) => c.body)).toEqual(["first", "second"]);
    expect((await host.getIssue(repo, issue.number)).commentCount).toBe(2);

    const edited = await host.editComment(repo, a.id, "first, edited");
    expect((await host.getComment(repo, a.id)).body).toBe("first, edited");
    expect(Date.parse(edited.updatedAt)).toBeGreaterThanOrEqual(Date.parse(a.updatedAt));
    await host.deleteComment(repo, b.id);
    expect((await host.listComments(repo, issue.number)).map((c) => c.id)).toEqual([a.id]);
    // A window that ends before the comment was written holds nothing.
    expect(await host.listComments(repo, issue.number, { beforeMs: Date.parse(a.createdAt) - 5_000 })).toEqual([]);

    const closed = await host.editIssue(repo, issue.number, { state: "closed" });
    expect(closed.state).toBe("closed");
    expect(closed.closedAt).toEqual(expect.any(String));

    await expect(host.getIssue(repo, 999)).rejects.toMatchObject({ status: 404 });
    expect(host.requestCount).toBeGreaterThan(0);
  });

  it("attachments and hooks round-trip", async () => {
    const host = await open();
    const issue = await host.createIssue(repo, { title: "t" });
    const bytes = new Uint8Array([1, 2, 3, 4]);
    // Forgejo's default ALLOWED_TYPES has .log but not .bin, and no MIME type (the sniffed one does not help).
    await expect(host.createIssueAttachment(repo, issue.number, "a.bin", bytes)).rejects.toMatchObject({ status: 422 });
    const asset = await host.createIssueAttachment(repo, issue.number, "a.log", bytes);
    expect(asset).toMatchObject({ name: "a.log", size: 4 });
    expect((await host.listIssueAttachments(repo, issue.number)).map((x) => x.id)).toEqual([asset.id]);
    expect([...(await host.downloadAttachment(asset.downloadUrl))]).toEqual([1, 2, 3, 4]);

    const hook = await host.createHook(repo, { type: "forgejo", config: { url: "http://bot.test/hook", content_type: "json" }, events: ["issue_comment"], active: true });
    expect((await host.listHooks(repo)).map((h) => h.id)).toEqual([hook.id]);
    await host.deleteHook(repo, hook.id);
    expect(await host.listHooks(repo)).toEqual([]);
  });

  it("a user's repository has no teams (Forgejo: 405), and no one is a member of an unknown team (404)", async () => {
    const host = await open();
    expect(await host.listRepoTeams(repo)).toEqual([]);
    expect(await host.isTeamMember(424242, "agent")).toBe(false);
  });
});
