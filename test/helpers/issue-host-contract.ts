import { expect, it } from "vitest";
import type { HostCapabilities, IssueHost } from "../../src/ports/issue-host.ts";

const repo = { owner: "agent", repo: "work" };

/**
 * The IssueHost contract (issue 31): what the product relies on from any issue host, read the same from
 * each. Call it inside a describe, with a way to open a fresh host whose token's user is "agent" and
 * owns agent/work, and the host's capabilities: a case that needs a feature is skipped by the flag,
 * never by the host's name. test/integration/issue-host-contract.test.ts runs it on every host.
 */
export function issueHostContract(open: () => Promise<IssueHost>, can: HostCapabilities): void {
  it("says what it can do", async () => {
    const host = await open();
    expect(host.capabilities).toEqual(can);
  });

  it("issues, comments, labels: written, read back as neutral records, 404 when missing", async () => {
    const host = await open();
    const me = await host.currentUser();
    expect(me.login).toBe("agent");
    const label = await host.createLabel(repo, { name: "checkpost-session", color: "#00aabb" });
    expect((await host.listLabels(repo)).map((l) => l.name)).toContain("checkpost-session");

    const issue = await host.createIssue(repo, { title: "Agent session state", body: "notes" });
    expect(issue).toMatchObject({ title: "Agent session state", body: "notes", state: "open", author: "agent", isPullRequest: false });
    expect(Date.parse(issue.createdAt)).not.toBeNaN();
    await host.addIssueLabels(repo, issue.number, [label.name]);
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
    expect(await host.listComments(repo, issue.number, { untilMs: Date.parse(a.createdAt) - 5_000 })).toEqual([]);

    const closed = await host.editIssue(repo, issue.number, { state: "closed" });
    expect(closed.state).toBe("closed");
    expect(closed.closedAt).toEqual(expect.any(String));

    await expect(host.getIssue(repo, 999)).rejects.toMatchObject({ reason: "not-found" });
    expect(host.requestCount).toBeGreaterThan(0);
  });

  it.skipIf(!can.attachments)("attachments round-trip", async () => {
    const host = await open();
    const issue = await host.createIssue(repo, { title: "t" });
    const bytes = new Uint8Array([1, 2, 3, 4]);
    // Forgejo's default ALLOWED_TYPES has .log but not .bin, and no MIME type (the sniffed one does not help).
    await expect(host.createIssueAttachment(repo, issue.number, "a.bin", bytes)).rejects.toMatchObject({ reason: "invalid" });
    const asset = await host.createIssueAttachment(repo, issue.number, "a.log", bytes);
    expect(asset).toMatchObject({ name: "a.log", size: 4 });
    expect((await host.listIssueAttachments(repo, issue.number)).map((x) => x.id)).toEqual([asset.id]);
    expect([...(await host.downloadAttachment(asset.downloadUrl))]).toEqual([1, 2, 3, 4]);
  });

  it("hooks round-trip", async () => {
    const host = await open();

    const hook = await host.createHook(repo, { type: "forgejo", config: { url: "http://bot.test/hook", content_type: "json" }, events: ["issue_comment"], active: true });
    expect((await host.listHooks(repo)).map((h) => h.id)).toEqual([hook.id]);
    await host.deleteHook(repo, hook.id);
    expect(await host.listHooks(repo)).toEqual([]);
  });

  it("access: the repository's owner may write issues; an unknown user is not found", async () => {
    const host = await open();
    expect(await host.repoAccess(repo, "agent")).toBe("admin");
    expect(await host.issueWriteAccess(repo, "agent")).toEqual({ canWrite: true, hiddenGroups: [] });
    await expect(host.repoAccess(repo, "no-such-user")).rejects.toMatchObject({ reason: "not-found" });
  });
}
