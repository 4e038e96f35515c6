// Issue 31, item 2: the session client, unchanged, on a host with GitHub's behaviour (test/helpers/
// github-host/), and what that host does differently from Forgejo: paged comment lists, rate limits
// with their headers, signed deliveries, no attachment API. The IssueHost contract itself runs on it
// in issue-host-contract.test.ts.
import { describe, expect, it } from "vitest";
import { ArchivesOffError, compactHealth } from "../../src/compaction/compact-health.ts";
import { HostError, SessionChainError } from "../../src/errors.ts";
import { continuedInComment, continuesLine } from "../../src/chain/chain-links.ts";
import { formatCheckpoint, IMPLEMENTATION_WORKER_PHASE_MAP } from "../../src/protocol/index.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE, readAllComments, SessionStore, type SessionStoreOptions } from "../../src/session-client/index.ts";
import { GitHubHost, verifyGitHubDelivery } from "../helpers/github-host/github-host.ts";
import { GitHubRest } from "../helpers/github-host/github-rest.ts";

const repo = { owner: "agent", repo: "work" };
const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;

function github(o: { rateLimit?: number; maxRetryAfterMs?: number } = {}) {
  let now = Date.UTC(2026, 11, 6, 3, 0, 0);
  const clock = () => now;
  const rest = new GitHubRest({ repo, now: clock, ...(o.rateLimit ? { rateLimit: o.rateLimit } : {}) });
  const agent = rest.addUser("agent");
  const mallory = rest.addUser("mallory");
  const waits: number[] = [];
  const host = (token = agent.token) =>
    new GitHubHost({
      apiUrl: rest.apiUrl,
      token,
      fetch: rest.fetch,
      now: clock,
      // The retry policy's waits are recorded, not slept: the clock moves by them instead.
      wait: async (ms) => {
        waits.push(ms);
        now += ms;
      },
      ...(o.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: o.maxRetryAfterMs } : {}),
    });
  const store = (opts: Partial<SessionStoreOptions> & { token?: string } = {}) => new SessionStore({ api: host(opts.token), repo, now: () => new Date(now), ...opts });
  const tick = (ms: number) => {
    now += ms;
  };
  return { rest, host, store, waits, mallory, tick };
}

describe("SessionStore on a host with GitHub's behaviour", () => {
  it("creates and then locates the session issue, its label given by name", async () => {
    const g = github();
    const created = await g.store().issueNumber({ create: true });
    const issue = g.rest.issues.get(created);
    expect(issue?.title).toBe(DEFAULT_SESSION_TITLE);
    expect(issue?.labels.map((l) => l.name)).toEqual([DEFAULT_SESSION_LABEL]);
    expect(await g.store().issueNumber()).toBe(created);
  });

  it("a save with a known issue costs one request; resume reads every page of a long issue", async () => {
    const g = github();
    const issue = await g.store().issueNumber({ create: true });
    const body = (n: number) =>
      formatCheckpoint({ agent: "w", session: "s", phase: n < 240 ? "clone_complete" : "commit_complete", seq: n + 1, epoch: 1, timestamp: "2026-12-06T03:00:00Z", data: { n } });
    g.rest.seedComments(
      issue,
      "agent",
      Array.from({ length: 250 }, (_, n) => body(n)),
    );
    const store = g.store({ issue });
    const r = await store.resume("w", "s", MAP);
    expect(r).toMatchObject({ phase: "commit_complete", state: { n: 249 }, next_seq: 251 });
    // 250 comments at GitHub's most per page: three pages, each asked for with per_page=100.
    const pages = g.rest.log.filter((l) => l.startsWith(`GET /repos/agent/work/issues/${issue}/comments`));
    expect(pages.length).toBe(3);
    expect(pages.every((l) => l.includes("per_page=100"))).toBe(true);

    const before = store.api.requestCount;
    const saved = await store.save({ agent: "w", session: "s", phase: "pr_created", data: { pr: 1 } });
    expect(store.api.requestCount - before).toBe(1);
    expect(saved.checkpoint).toMatchObject({ seq: 251, epoch: 2 });
    expect((await g.store({ issue }).latest("w", "s"))?.phase).toBe("pr_created");
  });

  it("never resumes from an untrusted author's checkpoint, and a takeover fences a zombie", async () => {
    const g = github();
    const issue = await g.store().issueNumber({ create: true });
    const zombie = g.store({ issue });
    await zombie.resume("w", "s", MAP);
    await zombie.save({ agent: "w", session: "s", phase: "clone_complete", data: { by: "zombie", n: 1 } });
    await g.store({ issue, token: g.mallory.token }).save({ agent: "w", session: "s", phase: "pr_created", data: { pr_number: 666 } });
    const successor = g.store({ issue });
    // A take-over writes the highest written epoch + 2, above any epoch a write-less resume handed out (issue 28.5).
    expect(await successor.resume("w", "s", MAP, { takeOver: true })).toMatchObject({ phase: "clone_complete", epoch: 3 });
    g.tick(1000);
    await zombie.save({ agent: "w", session: "s", phase: "commit_complete", data: { by: "zombie", n: 2 } });
    expect(await g.store({ issue }).resume("w", "s", MAP)).toMatchObject({ phase: "clone_complete", state: { by: "zombie", n: 1 } });
    expect((await g.store({ issue }).snapshot()).anomalies.some((a) => a.kind === "zombie")).toBe(true);
  });

  it("follows the session chain from a closed issue to its open head, and saves there", async () => {
    const g = github();
    const host = g.host();
    const first = await g.store().issueNumber({ create: true });
    const agent = g.store({ issue: first });
    await agent.save({ agent: "w", session: "s", phase: "clone_complete", data: { n: 1 } });
    const next = await host.createIssue(repo, { title: DEFAULT_SESSION_TITLE, body: continuesLine(first, 2) });
    g.tick(1000);
    await host.createComment(repo, first, continuedInComment(next.number, 2));
    await host.editIssue(repo, first, { state: "closed" });
    // A plain save checks the head a minute after the last check, by the store's clock (SessionStore.HEAD_RECHECK_MS).
    g.tick(SessionStore.HEAD_RECHECK_MS);
    const saved = await agent.save({ agent: "w", session: "s", phase: "commit_complete", data: { n: 2 } });
    expect(saved.issue).toBe(next.number);
    expect(g.rest.comments.get(saved.comment_id)?.issue).toBe(next.number);
    // A link written by someone the store does not trust is not followed.
    const forged = await host.createIssue(repo, { title: DEFAULT_SESSION_TITLE, body: continuesLine(next.number, 1) });
    await g.host(g.mallory.token).createComment(repo, next.number, continuedInComment(forged.number, 1));
    await host.editIssue(repo, next.number, { state: "closed" });
    g.tick(SessionStore.HEAD_RECHECK_MS);
    await expect(agent.save({ agent: "w", session: "s", phase: "pr_created", data: {} })).rejects.toBeInstanceOf(SessionChainError);
  });

  it("reads a comment window: `since` on the host, the upper end on our side", async () => {
    const g = github();
    const host = g.host();
    const issue = (await host.createIssue(repo, { title: "t" })).number;
    const a = await host.createComment(repo, issue, "a");
    g.tick(10_000);
    const b = await host.createComment(repo, issue, "b");
    g.tick(10_000);
    const c = await host.createComment(repo, issue, "c");
    const window = await host.listComments(repo, issue, { sinceMs: Date.parse(b.updatedAt), untilMs: Date.parse(b.updatedAt) + 1_000 });
    expect(window.map((x) => x.id)).toEqual([b.id]);
    expect(g.rest.log.at(-1)).toContain("since=");
    expect(g.rest.log.at(-1)).not.toContain("before=");
    // readAllComments' windowed scan of a large issue gives the same as one read.
    const all = await readAllComments(host, repo, issue, { windowSize: 1, now: () => Date.parse(c.updatedAt) + 5_000 });
    expect(all.map((x) => x.id)).toEqual([a.id, b.id, c.id]);
  });
});

describe("GitHub's rate limits, through the port", () => {
  it("every answer says what is left; a spent primary limit is rate-limited, not forbidden", async () => {
    const g = github({ rateLimit: 3, maxRetryAfterMs: 0 });
    const res = await g.rest.fetch(`${g.rest.apiUrl}/user`, { headers: { authorization: "Bearer ghp_agent" } });
    expect(res.headers.get("x-ratelimit-limit")).toBe("3");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("2");
    expect(res.headers.get("x-ratelimit-resource")).toBe("core");
    const host = g.host();
    await host.currentUser();
    await host.currentUser();
    const err = await host.currentUser().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ reason: "rate-limited", status: 403 });
    expect(g.waits).toEqual([]); // the reset is over an hour away at most, beyond what it waits
  });

  it("a secondary limit is waited out by its retry-after, then the call succeeds", async () => {
    const g = github();
    const host = g.host();
    g.rest.secondaryLimit(2, 7);
    expect((await host.currentUser()).login).toBe("agent");
    expect(g.waits).toEqual([7000, 7000]);
  });

  it("a secondary limit longer than the host waits fails at once, by reason", async () => {
    const g = github({ maxRetryAfterMs: 5_000 });
    g.rest.secondaryLimit(1, 60);
    await expect(g.host().currentUser()).rejects.toMatchObject({ reason: "rate-limited", retryAfterMs: 60_000 });
    expect(g.waits).toEqual([]);
  });
});

describe("what GitHub lacks and how it signs", () => {
  it("has no attachment API, and says so in its capabilities", async () => {
    const g = github();
    const host = g.host();
    expect(host.capabilities.attachments).toBe(false);
    const issue = (await host.createIssue(repo, { title: "t" })).number;
    await expect(host.createIssueAttachment(repo, issue, "a.bin", new Uint8Array([1]))).rejects.toMatchObject({ reason: "invalid" });
    expect(await host.listIssueAttachments(repo, issue)).toEqual([]);
  });

  it("so health compaction, which archives before it deletes, is off there and deletes nothing", async () => {
    const g = github();
    const host = g.host();
    const issue = (await host.createIssue(repo, { title: "t" })).number;
    const old = await host.createComment(repo, issue, "health");
    const selected = [{ id: old.id, author: old.author, body: old.body, createdAt: old.createdAt, updatedAt: old.updatedAt }];
    await expect(compactHealth({ api: host, repo, issue, selected })).rejects.toBeInstanceOf(ArchivesOffError);
    await expect(compactHealth({ api: host, repo, issue, selected, dryRun: true })).rejects.toThrow(/compaction .* is off/);
    expect(g.rest.comments.has(old.id)).toBe(true);
  });

  it("signs a delivery with X-Hub-Signature-256, which the host's verifyDelivery accepts, and only that", () => {
    const d = GitHubRest.delivery("issue_comment", { action: "created" }, "s3cret");
    expect(Object.keys(d.headers).filter((h) => h.startsWith("x-forgejo"))).toEqual([]);
    expect(d.headers["x-github-event"]).toBe("issue_comment");
    expect(verifyGitHubDelivery(d.headers, d.body, "s3cret")).toBeNull();
    expect(verifyGitHubDelivery(d.headers, d.body, "other")).not.toBeNull();
  });
});
