import { expect, it } from "vitest";
import type { DeliveryHeaders, HostCapabilities, HostDefinition, IssueHost } from "../../src/ports/issue-host.ts";

const repo = { owner: "agent", repo: "work" };

/** How a host's deliveries are verified, and how its server signs one (the test's stand-in for the server). */
export interface DeliveryContract {
  verify: HostDefinition["verifyDelivery"];
  sign(body: string, secret: string): DeliveryHeaders;
}

/**
 * The IssueHost contract (issue 31): what the product relies on from any issue host, by the port's intents,
 * read the same from each. Call it inside a describe, with a way to open a fresh host whose token's user
 * is "agent" and owns agent/work, and the host's capabilities: a case that needs a feature is skipped by
 * the flag, never by the host's name. test/integration/issue-host-contract.test.ts runs it on every host,
 * test/unit/hosts/host-registry.test.ts on the toy one.
 */
export function issueHostContract(open: () => Promise<IssueHost>, can: HostCapabilities, delivery?: DeliveryContract): void {
  it("says what it can do", async () => {
    const host = await open();
    expect(host.capabilities).toEqual(can);
    // Neither Forgejo nor GitHub can write a body only if unchanged: a host that could would need a CAS intent.
    expect(host.capabilities.compareAndSetBody).toBe(false);
  });

  it("the session issue: opened with its label ensured by name, found by title and label (issues only), read, closed", async () => {
    const host = await open();
    expect((await host.currentUser()).login).toBe("agent");
    // The label does not exist yet: opening the issue creates it.
    const issue = await host.openSessionIssue(repo, { title: "Agent session state", body: "notes", labels: ["checkpost-session"] });
    expect(issue).toMatchObject({ title: "Agent session state", body: "notes", state: "open", author: "agent", isPullRequest: false });
    expect(issue.labels.map((l) => l.name)).toEqual(["checkpost-session"]);
    expect(Date.parse(issue.createdAt)).not.toBeNaN();
    // Same title without the label; the label without the title: neither is the session issue.
    await host.openSessionIssue(repo, { title: "Agent session state", body: "" });
    const other = await host.openSessionIssue(repo, { title: "Something else", body: "", labels: ["checkpost-session"] });
    const newer = await host.openSessionIssue(repo, { title: "Agent session state (2)", body: "", labels: ["checkpost-session"] });
    const found = await host.findSessionIssues(repo, { title: "Agent session state", label: "checkpost-session" });
    expect(found.map((i) => i.number)).toEqual([newer.number, issue.number]);
    expect((await host.findSessionIssues(repo, { label: "checkpost-session" })).map((i) => i.number)).toEqual([newer.number, other.number, issue.number]);
    expect((await host.findSessionIssues(repo, { title: "Agent session state (2)" })).map((i) => i.number)).toEqual([newer.number]);

    const labelled = await host.labelIssue(repo, other.number, ["checkpost-session"]);
    expect(labelled.map((l) => l.name)).toEqual(["checkpost-session"]);
    expect((await host.readIssue(repo, issue.number)).labels.map((l) => l.name)).toEqual(["checkpost-session"]);

    const closed = await host.closeIssue(repo, newer.number);
    expect(closed.state).toBe("closed");
    expect(closed.closedAt).toEqual(expect.any(String));
    expect((await host.findSessionIssues(repo, { title: "Agent session state", label: "checkpost-session" })).map((i) => i.number)).toEqual([issue.number]);
    expect((await host.findSessionIssues(repo, { title: "Agent session state", label: "checkpost-session", state: "closed" })).map((i) => i.number)).toEqual([newer.number]);
    await expect(host.readIssue(repo, 999)).rejects.toMatchObject({ reason: "not-found" });
  });

  it("records: posted, listed (all, or since), read, edited, deleted; a window's upper end holds", async () => {
    const host = await open();
    const issue = await host.openSessionIssue(repo, { title: "t", body: "" });
    const a = await host.postRecord(repo, issue.number, "first");
    const b = await host.postRecord(repo, issue.number, "second", { retry: false });
    expect(a).toMatchObject({ body: "first", author: "agent" });
    expect(b.id).toBeGreaterThan(a.id);
    expect(a.htmlUrl.endsWith(`/issues/${issue.number}#issuecomment-${a.id}`)).toBe(true);
    expect((await host.listCommentsSince(repo, issue.number)).map((c) => c.body)).toEqual(["first", "second"]);
    expect((await host.readIssue(repo, issue.number)).commentCount).toBe(2);
    // Since a moment before the first: both; since well after: none.
    expect(await host.listCommentsSince(repo, issue.number, { sinceMs: Date.parse(a.updatedAt) - 1_000 })).toHaveLength(2);
    expect(await host.listCommentsSince(repo, issue.number, { sinceMs: Date.parse(b.updatedAt) + 60_000 })).toEqual([]);

    const edited = await host.editRecord(repo, a.id, "first, edited");
    expect((await host.readRecord(repo, a.id)).body).toBe("first, edited");
    expect(Date.parse(edited.updatedAt)).toBeGreaterThanOrEqual(Date.parse(a.updatedAt));
    await host.deleteRecord(repo, b.id);
    expect((await host.listCommentsSince(repo, issue.number)).map((c) => c.id)).toEqual([a.id]);
    await expect(host.readRecord(repo, b.id)).rejects.toMatchObject({ reason: "not-found" });
    // A window that ends before the comment was written holds nothing (the adapter filters when the host cannot).
    expect(await host.listCommentsSince(repo, issue.number, { untilMs: Date.parse(a.createdAt) - 5_000 })).toEqual([]);
    expect(host.requestCount).toBeGreaterThan(0);
  });

  it("the dashboard body: read with its time, written whole; the write is not compare-and-set, so the writer re-reads", async () => {
    const host = await open();
    const issue = await host.openSessionIssue(repo, { title: "t", body: "by a person" });
    const read = await host.readIssueBody(repo, issue.number);
    expect(read).toMatchObject({ body: "by a person", author: "agent" });
    expect(Date.parse(read.updatedAt)).not.toBeNaN();
    // Two writers from the same read: the second overwrites the first (no host refuses it), so only a
    // re-read after writing shows what is there.
    await host.writeIssueBody(repo, issue.number, "writer A");
    const written = await host.writeIssueBody(repo, issue.number, "writer B");
    expect(written.body).toBe("writer B");
    expect((await host.readIssueBody(repo, issue.number)).body).toBe("writer B");
    expect((await host.readIssue(repo, issue.number)).body).toBe("writer B");
    await host.writeIssueBody(repo, issue.number, "");
    expect((await host.readIssueBody(repo, issue.number)).body).toBe("");
  });

  it.skipIf(!can.attachments)("attachments: on the issue and on a comment, listed, downloaded", async () => {
    const host = await open();
    const issue = await host.openSessionIssue(repo, { title: "t", body: "" });
    const bytes = new Uint8Array([1, 2, 3, 4]);
    // Forgejo's default ALLOWED_TYPES has .log but not .bin, and no MIME type (the sniffed one does not help).
    await expect(host.attach(repo, { issue: issue.number }, "a.bin", bytes)).rejects.toMatchObject({ reason: "invalid" });
    const asset = await host.attach(repo, { issue: issue.number }, "a.log", bytes);
    expect(asset).toMatchObject({ name: "a.log", size: 4 });
    expect((await host.listAttachments(repo, { issue: issue.number })).map((x) => x.id)).toEqual([asset.id]);
    expect([...(await host.downloadAttachment(asset.downloadUrl))]).toEqual([1, 2, 3, 4]);

    const comment = await host.postRecord(repo, issue.number, "parts");
    const part = await host.attach(repo, { comment: comment.id }, "p.txt", new TextEncoder().encode("part"));
    expect((await host.listAttachments(repo, { comment: comment.id })).map((x) => x.name)).toEqual(["p.txt"]);
    expect((await host.downloadAttachment(part.downloadUrl)).toString("utf8")).toBe("part");
  });

  it.skipIf(can.attachments)("without attachments: none listed, an attach refused", async () => {
    const host = await open();
    const issue = await host.openSessionIssue(repo, { title: "t", body: "" });
    await expect(host.attach(repo, { issue: issue.number }, "a.log", new Uint8Array([1]))).rejects.toMatchObject({ reason: "invalid" });
    expect(await host.listAttachments(repo, { issue: issue.number })).toEqual([]);
  });

  it("webhooks by intent: ensured once per URL (a second ensure replaces), listed, removed", async () => {
    const host = await open();
    const url = "http://bot.test/hook";
    const first = await host.ensureWebhook(repo, { url, secret: "s3cret-s3cret", events: ["issues", "issue_comment"] });
    expect(first.replaced).toEqual([]);
    expect(first.webhook).toMatchObject({ url, active: true });
    expect(first.webhook.events).toEqual(expect.arrayContaining(["issue_comment"]));
    const again = await host.ensureWebhook(repo, { url, secret: "s3cret-s3cret", events: ["issue_comment"] });
    expect(again.replaced).toEqual([first.webhook.id]);
    const other = await host.ensureWebhook(repo, { url: "http://elsewhere.test/hook", secret: "s3cret-s3cret", events: ["issues"] });
    expect((await host.listWebhooks(repo)).map((h) => [h.id, h.url])).toEqual([
      [again.webhook.id, url],
      [other.webhook.id, "http://elsewhere.test/hook"],
    ]);
    await host.removeWebhook(repo, again.webhook.id);
    await host.removeWebhook(repo, other.webhook.id);
    expect(await host.listWebhooks(repo)).toEqual([]);
  });

  it("who may command: the repository's owner may; an unknown user is not found", async () => {
    const host = await open();
    expect(await host.repoAccess(repo, "agent")).toBe("admin");
    expect(await host.mayCommand(repo, "agent")).toEqual({ canWrite: true, hiddenGroups: [] });
    await expect(host.repoAccess(repo, "no-such-user")).rejects.toMatchObject({ reason: "not-found" });
    await expect(host.mayCommand(repo, "no-such-user")).rejects.toMatchObject({ reason: "not-found" });
  });

  it.skipIf(!delivery)("a delivery is verified as the host signs it: a signed body passes; altered, unsigned or under another secret it does not", () => {
    const d = delivery as DeliveryContract;
    const body = JSON.stringify({ action: "created", comment: { body: "hi" } });
    const headers = d.sign(body, "s3cret-s3cret");
    expect(d.verify(headers, body, "s3cret-s3cret")).toBeNull();
    expect(d.verify(headers, Buffer.from(body, "utf8"), "s3cret-s3cret")).toBeNull();
    expect(d.verify(headers, body.replace("hi", "ho"), "s3cret-s3cret")).toEqual(expect.any(String));
    expect(d.verify(headers, body, "another-secret")).toEqual(expect.any(String));
    expect(d.verify({}, body, "s3cret-s3cret")).toEqual(expect.any(String));
  });
}
