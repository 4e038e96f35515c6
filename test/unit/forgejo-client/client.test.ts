import nock from "nock";
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { ForgejoApi, ForgejoClient } from "../../../src/forgejo-client/index.ts";
import { ForgejoApiError, ForgejoResponseError } from "../../../src/forgejo-client/index.ts";

const URL = "http://forgejo.test";
const repo = { owner: "acme", repo: "widgets" };
const comment = (id: number, body = "hi") => ({
  id,
  body,
  user: { id: 1, login: "bot" },
  html_url: `${URL}/acme/widgets/issues/1#issuecomment-${id}`,
  created_at: "2026-11-29T10:00:00Z",
  updated_at: "2026-11-29T10:00:00Z",
});

function api(opts: Partial<ConstructorParameters<typeof ForgejoClient>[0]> = {}) {
  const client = new ForgejoClient({ url: URL, token: "s3cret", minRetryDelayMs: 1, maxRetryDelayMs: 5, ...opts });
  return { client, api: new ForgejoApi(client) };
}

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  // Fail a test that left a mock unused: it expected a request that never came.
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

describe("ForgejoClient", () => {
  it("parses an answer holding a 9 MiB string (octokit's own parser overflows the stack on it on Node 20)", async () => {
    const big = "x".repeat(9 * 1024 * 1024);
    nock(URL)
      .get("/api/v1/repos/acme/widgets/issues/1/comments")
      .reply(200, JSON.stringify([comment(5, big)]), { "content-type": "application/json;charset=utf-8" });
    const [c] = await api().api.listComments(repo, 1);
    expect(c?.body.length).toBe(big.length);
  });

  it("says the answer has the wrong shape when a 200 is not JSON", async () => {
    nock(URL).get("/api/v1/user").reply(200, "<html>proxy login</html>", { "content-type": "text/html" });
    await expect(api().api.currentUser()).rejects.toBeInstanceOf(ForgejoResponseError);
  });

  it("sends `Authorization: token …` to <url>/api/v1", async () => {
    nock(URL, { reqheaders: { authorization: "token s3cret" } })
      .get("/api/v1/user")
      .reply(200, { id: 1, login: "bot" });
    expect((await api().api.currentUser()).login).toBe("bot");
  });

  it("retries a 5xx and then succeeds", async () => {
    nock(URL)
      .get("/api/v1/repos/acme/widgets/issues/1/comments")
      .reply(502, "bad gateway")
      .get("/api/v1/repos/acme/widgets/issues/1/comments")
      .reply(200, [comment(5)]);
    const { client, api: a } = api();
    expect((await a.listComments(repo, 1)).map((c) => c.id)).toEqual([5]);
    expect(client.requestCount).toBe(2);
  });

  it("retries network errors", async () => {
    nock(URL).get("/api/v1/version").replyWithError({ code: "ECONNRESET", message: "socket hang up" }).get("/api/v1/version").reply(200, { version: "13.0.5+gitea-1.22.0" });
    expect(await api().api.version()).toBe("13.0.5+gitea-1.22.0");
  });

  it("honours Retry-After on 429", async () => {
    nock(URL).get("/api/v1/version").reply(429, { message: "slow down" }, { "Retry-After": "1" }).get("/api/v1/version").reply(200, { version: "x" });
    const started = Date.now();
    await api().api.version();
    // The backoff alone would be ≤ 5 ms; the server asked for 1 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("fails fast when Retry-After is beyond the cap", async () => {
    nock(URL).get("/api/v1/version").reply(429, {}, { "Retry-After": "3600" });
    await expect(api().api.version()).rejects.toMatchObject({ status: 429 });
  });

  it("does not retry a 404 and says what to check", async () => {
    nock(URL).get("/api/v1/repos/acme/widgets/issues/9").reply(404, { message: "The target couldn't be found.", url: "" });
    const { client, api: a } = api();
    const err = await a.getIssue(repo, 9).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgejoApiError);
    expect((err as ForgejoApiError).status).toBe(404);
    expect((err as Error).message).toMatch(/issue #9 of acme\/widgets does not exist.*Check the repository/);
    expect(client.requestCount).toBe(1);
  });

  it.each([
    [401, /rejected the token.*FORGEJO_TOKEN/],
    [403, /write:issue.*archived or the issue locked/],
    [422, /rejected the request.*"bad title"/],
  ])("explains %i without retrying", async (status, message) => {
    nock(URL).post("/api/v1/repos/acme/widgets/issues").reply(status, { message: "bad title" });
    await expect(api().api.createIssue(repo, { title: "x" })).rejects.toThrow(message);
  });

  it("gives up after the retries with a message naming the failure", async () => {
    nock(URL).get("/api/v1/version").times(3).reply(503, {});
    const { client, api: a } = api({ retries: 2 });
    await expect(a.version()).rejects.toThrow(/Forgejo failed \(503\).*retries ran out/);
    expect(client.requestCount).toBe(3);
  });

  it("backs off exponentially from the first failed attempt on (attempts 1, 2, 3 wait 4, 8, 16 ms)", async () => {
    nock(URL).get("/api/v1/version").times(3).reply(503, {}).get("/api/v1/version").reply(200, { version: "x" });
    const waits: Array<{ attemptNumber: number; waitMs: number }> = [];
    const warns: unknown[] = [];
    const logger = {
      debug: (o: { attemptNumber: number; waitMs: number }) => void waits.push({ attemptNumber: o.attemptNumber, waitMs: o.waitMs }),
      warn: (o: unknown, msg?: string) => void warns.push([o, msg]),
    };
    const { client, api: a } = api({ retries: 3, minRetryDelayMs: 4, maxRetryDelayMs: 100, random: () => 1, logger });
    expect(await a.version()).toBe("x");
    expect(client.requestCount).toBe(4);
    expect(waits).toEqual([
      { attemptNumber: 1, waitMs: 4 },
      { attemptNumber: 2, waitMs: 8 },
      { attemptNumber: 3, waitMs: 16 },
    ]);
    // Each attempt at debug; one warn line for the request, with what happened (issue 33: ~20 lines before).
    expect(warns).toEqual([[{ label: "GET /version", attempts: 4, failures: [503, 503, 503], waitedMs: 28 }, "Forgejo request succeeded after 3 failed attempt(s)"]]);
  });

  it("logs one warn line when the retries run out, then throws", async () => {
    nock(URL).get("/api/v1/version").times(3).reply(503, {});
    const warns: string[] = [];
    const { api: a } = api({ retries: 2, logger: { debug: () => {}, warn: (_o: unknown, msg?: string) => void warns.push(msg ?? "") } });
    await expect(a.version()).rejects.toThrow(/retries ran out/);
    expect(warns).toEqual(["Forgejo request failed 3 times; giving up"]);
  });

  it("makes one attempt when retry is off", async () => {
    nock(URL).post("/api/v1/repos/acme/widgets/issues/1/comments").reply(500, {});
    const { client, api: a } = api();
    await expect(a.createComment(repo, 1, "x", { retry: false })).rejects.toMatchObject({ status: 500 });
    expect(client.requestCount).toBe(1);
  });

  it("validates responses at the boundary", async () => {
    nock(URL)
      .get("/api/v1/repos/acme/widgets/issues/1/comments")
      .reply(200, [{ id: "nope" }]);
    await expect(api().api.listComments(repo, 1)).rejects.toBeInstanceOf(ForgejoResponseError);
  });

  it("asks for type=issues so pull requests are not mistaken for issues", async () => {
    nock(URL).get("/api/v1/repos/acme/widgets/issues").query({ type: "issues", state: "open", labels: "Type/Automation" }).reply(200, [], { "X-Total-Count": "0" });
    expect(await api().api.listIssues(repo, { state: "open", labels: "Type/Automation" })).toEqual({ issues: [], totalCount: 0 });
  });

  it("passes since/before through for the comment list (no paging parameters)", async () => {
    nock(URL)
      .get("/api/v1/repos/acme/widgets/issues/3/comments")
      .query({ since: "2026-11-29T10:00:00Z" })
      .reply(200, [comment(1)]);
    expect(await api().api.listComments(repo, 3, { sinceMs: Date.parse("2026-11-29T10:00:00.900Z") })).toHaveLength(1); // floored to the second
  });

  it("records the server's clock offset from the Date header", async () => {
    const serverNow = new Date(Date.now() + 120_000).toUTCString();
    nock(URL).get("/api/v1/version").reply(200, { version: "x" }, { Date: serverNow });
    const { client, api: a } = api();
    await a.version();
    expect(client.serverClockOffsetMs).toBeGreaterThan(100_000);
  });
});

describe("forgejoTime", () => {
  it("floors to the whole second Forgejo compares", async () => {
    const { forgejoTime } = await import("../../../src/forgejo-client/index.ts");
    expect(forgejoTime(Date.parse("2026-11-29T10:00:00.999Z"))).toBe("2026-11-29T10:00:00Z");
    expect(forgejoTime(Date.parse("2026-11-29T10:00:01.000Z"))).toBe("2026-11-29T10:00:01Z");
  });
});

describe("ForgejoApi as the IssueHost adapter", () => {
  it("maps Forgejo's snake_case answers to the port's neutral records", async () => {
    const issue = {
      id: 70,
      number: 3,
      title: "session",
      body: null,
      state: "closed",
      html_url: `${URL}/acme/widgets/issues/3`,
      user: { id: 1, login: "bot", is_admin: false },
      labels: [{ id: 4, name: "checkpost-session", color: "00aabb" }],
      comments: 12,
      created_at: "2026-11-29T10:00:00Z",
      updated_at: "2026-11-29T11:00:00Z",
      closed_at: "2026-11-29T11:00:00Z",
      pull_request: null,
      extra: "dropped",
    };
    const asset = { id: 9, name: "a.gz", size: 3, created_at: "2026-11-29T10:00:00Z", browser_download_url: `${URL}/attachments/u-1`, uuid: "u-1" };
    nock(URL)
      .get("/api/v1/repos/acme/widgets/issues/3")
      .reply(200, issue)
      .get("/api/v1/repos/acme/widgets/issues/comments/5")
      .reply(200, { ...comment(5), issue_url: `${URL}/acme/widgets/issues/1` })
      .get("/api/v1/repos/acme/widgets/issues/3/assets")
      .reply(200, [asset])
      .get("/api/v1/repos/acme/widgets")
      .reply(200, { id: 1, full_name: "acme/widgets", private: true, permissions: { admin: false, push: true, pull: true } })
      .get("/api/v1/user")
      .reply(200, { id: 1, login: "bot", is_admin: true });
    const { api: host } = api();
    expect(await host.getIssue(repo, 3)).toEqual({
      id: 70,
      number: 3,
      title: "session",
      body: "",
      state: "closed",
      htmlUrl: `${URL}/acme/widgets/issues/3`,
      author: "bot",
      labels: [{ name: "checkpost-session", color: "00aabb" }],
      commentCount: 12,
      createdAt: "2026-11-29T10:00:00Z",
      updatedAt: "2026-11-29T11:00:00Z",
      closedAt: "2026-11-29T11:00:00Z",
      isPullRequest: false,
    });
    expect(await host.getComment(repo, 5)).toEqual({
      id: 5,
      body: "hi",
      author: "bot",
      htmlUrl: `${URL}/acme/widgets/issues/1#issuecomment-5`,
      issueUrl: `${URL}/acme/widgets/issues/1`,
      createdAt: "2026-11-29T10:00:00Z",
      updatedAt: "2026-11-29T10:00:00Z",
    });
    expect(await host.listIssueAttachments(repo, 3)).toEqual([{ id: 9, name: "a.gz", size: 3, createdAt: "2026-11-29T10:00:00Z", downloadUrl: `${URL}/attachments/u-1` }]);
    expect(await host.getRepo(repo)).toEqual({ id: 1, fullName: "acme/widgets", private: true, access: "write" });
    expect(await host.currentUser()).toEqual({ id: 1, login: "bot", isAdmin: true });
  });

  it("says a pull request is one, and passes a comment window as whole seconds", async () => {
    nock(URL)
      .get("/api/v1/repos/acme/widgets/issues/4")
      .reply(200, {
        id: 71,
        number: 4,
        title: "pr",
        body: "",
        state: "open",
        html_url: "",
        user: { id: 2, login: "p" },
        labels: null,
        created_at: "x",
        updated_at: "x",
        pull_request: { merged: false },
      })
      .get("/api/v1/repos/acme/widgets/issues/4/comments")
      .query({ since: "2026-11-29T10:00:00Z", before: "2026-11-29T10:00:05Z" })
      .reply(200, []);
    const { api: host } = api();
    expect(await host.getIssue(repo, 4)).toMatchObject({ isPullRequest: true, labels: [] });
    expect(await host.listComments(repo, 4, { sinceMs: Date.parse("2026-11-29T10:00:00.999Z"), untilMs: Date.parse("2026-11-29T10:00:05.001Z") })).toEqual([]);
  });
  it("takes labels by name: an issue is created with the ids Forgejo wants, looked up once; labels are added by name", async () => {
    const issue = (labels: unknown[]) => ({ id: 72, number: 5, title: "s", body: "", state: "open", html_url: "", user: { id: 1, login: "bot" }, labels, created_at: "x", updated_at: "x" });
    const label = { id: 4, name: "checkpost-session", color: "00aabb" };
    nock(URL)
      .get("/api/v1/repos/acme/widgets/labels")
      .query(true)
      .reply(200, [{ id: 3, name: "other", color: "000000" }, label], { "x-total-count": "2" })
      .post("/api/v1/repos/acme/widgets/issues", { title: "s", labels: [4] })
      .reply(201, issue([label]))
      .post("/api/v1/repos/acme/widgets/issues", { title: "t", labels: [4] })
      .reply(201, issue([label]))
      .post("/api/v1/repos/acme/widgets/issues/5/labels", { labels: ["checkpost-session"] })
      .reply(200, [label]);
    const { api: host } = api();
    expect((await host.createIssue(repo, { title: "s", labels: ["checkpost-session"] })).labels).toEqual([{ name: "checkpost-session", color: "00aabb" }]);
    // Known now: no second listing.
    await host.createIssue(repo, { title: "t", labels: ["checkpost-session"] });
    expect(await host.addIssueLabels(repo, 5, ["checkpost-session"])).toEqual([{ name: "checkpost-session", color: "00aabb" }]);
    // A name the repository does not have: refused after one more listing, saying what to do.
    nock(URL).get("/api/v1/repos/acme/widgets/labels").query(true).reply(200, [label], { "x-total-count": "1" });
    await expect(host.createIssue(repo, { title: "u", labels: ["nope"] })).rejects.toMatchObject({ reason: "invalid", message: expect.stringContaining('no label "nope"') });
  });
  it("maps access to the port's words, and walks the teams only for a reader: those that may write issues, a hidden one named", async () => {
    const perm = (u: string, permission: string) => nock(URL).get(`/api/v1/repos/acme/widgets/collaborators/${u}/permission`).reply(200, { permission });
    const teams = [
      { id: 1, name: "triage", permission: "read", units_map: { "repo.issues": "write", "repo.code": "read" } },
      { id: 2, name: "readers", permission: "read", units_map: { "repo.issues": "read" } },
      { id: 3, name: "admins", permission: "admin", units: ["repo.issues"] },
    ];
    perm("olga", "owner");
    perm("wendy", "write");
    const { api: host } = api();
    expect(await host.repoAccess(repo, "olga")).toBe("admin");
    expect(await host.mayCommand(repo, "wendy")).toEqual({ canWrite: true, hiddenGroups: [] });
    // A reader: triage's and admins' memberships are asked (they may write issues), readers' never.
    perm("ivy", "read");
    nock(URL).get("/api/v1/repos/acme/widgets/teams").reply(200, teams).get("/api/v1/teams/1/members/ivy").reply(404, {}).get("/api/v1/teams/3/members/ivy").reply(200, { id: 9, login: "ivy" });
    expect(await host.mayCommand(repo, "ivy")).toEqual({ canWrite: true, hiddenGroups: [] });
    // A team the token may not look into (403) is named, and the answer is no.
    perm("rex", "read");
    nock(URL).get("/api/v1/repos/acme/widgets/teams").reply(200, teams).get("/api/v1/teams/1/members/rex").reply(403, {}).get("/api/v1/teams/3/members/rex").reply(404, {});
    expect(await host.mayCommand(repo, "rex")).toEqual({ canWrite: false, hiddenGroups: ["triage"] });
    // "none": no team holds the repository for them, so none is asked.
    perm("nora", "none");
    expect(await host.mayCommand(repo, "nora")).toEqual({ canWrite: false, hiddenGroups: [] });
  });
});
