/** Forgejo behaviours the embedded forge reproduces (paging, since/before, type & label filters, 201 on PATCH, ...). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startForge } from "../../src/embedded-forge/index.ts";
import { api, asArray, asRecord, seededForge, type Seeded } from "./helpers.ts";

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0); // whole second
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

let s: Seeded | undefined;
afterEach(async () => {
  await s?.forge.close();
  s = undefined;
});

describe("comments list", () => {
  it("returns every comment in one response: no paging, no Link, X-Total-Count set", async () => {
    s = await seededForge();
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "many" });
    s.forge.admin.bulkComments(
      "alice",
      "widgets",
      issue.number,
      Array.from({ length: 120 }, (_, i) => ({ login: i % 2 ? "bob" : "alice", body: `c${i}` })),
    );
    const r = await api(s.forge, "GET", `/repos/alice/widgets/issues/${issue.number}/comments?limit=10&page=2`);
    const list = asArray(r.json);
    expect(list).toHaveLength(120);
    expect(list.map((c) => asRecord(c).body)).toEqual(Array.from({ length: 120 }, (_, i) => `c${i}`));
    expect(r.headers.get("link")).toBeNull();
    expect(r.headers.get("x-total-count")).toBe("120");
    const fresh = asRecord((await api(s.forge, "GET", `/repos/alice/widgets/issues/${issue.number}`)).json);
    expect(fresh.comments).toBe(120);
  });

  it("since/before filter on updated_at in whole unix seconds (>= since, <= before)", async () => {
    let now = T0 + 300; // 12:00:00.300
    s = await seededForge({ clock: () => now });
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "times" });
    const path = `/repos/alice/widgets/issues/${issue.number}/comments`;
    const c1 = asRecord((await api(s.forge, "POST", path, { token: s.bob, body: { body: "one" } })).json);
    now = T0 + 10_000;
    const c2 = asRecord((await api(s.forge, "POST", path, { token: s.bob, body: { body: "two" } })).json);
    expect(c1.created_at).toBe(iso(T0));
    now = T0 + 100_700; // edit c1 later: 12:01:40.700
    const edited = asRecord((await api(s.forge, "PATCH", `/repos/alice/widgets/issues/comments/${String(c1.id)}`, { token: s.bob, body: { body: "one (edited)" } })).json);
    expect(edited.updated_at).toBe(iso(T0 + 100_000));
    expect(edited.created_at).toBe(iso(T0));
    const ids = async (q: string) => asArray((await api(s!.forge, "GET", `${path}?${q}`)).json).map((c) => asRecord(c).id);
    expect(await ids(`since=${iso(T0 + 50_000)}`)).toEqual([c1.id]);
    // A fraction is truncated: 12:01:40.900 → 12:01:40, and updated_unix >= since keeps the comment.
    expect(await ids(`since=${encodeURIComponent(new Date(T0 + 100_900).toISOString())}`)).toEqual([c1.id]);
    expect(await ids(`since=${iso(T0 + 101_000)}`)).toEqual([]);
    // before is inclusive in Forgejo's FindComments (builder.Lte).
    expect(await ids(`before=${iso(T0 + 10_000)}`)).toEqual([c2.id]);
    expect(await ids(`before=${iso(T0 + 9_000)}`)).toEqual([]);
    // Time zones are honoured: 13:01:40+01:00 is 12:01:40Z.
    expect(await ids(`since=${encodeURIComponent("2026-01-10T13:01:40+01:00")}`)).toEqual([c1.id]);
    // Order stays created_unix, id although c1 was edited last.
    expect(await ids("")).toEqual([c1.id, c2.id]);
    // Editing a comment writes the comment row only (models/issues/comment.go:1150-1192): the issue keeps the
    // time of the last comment created.
    const issueNow = asRecord((await api(s.forge, "GET", `/repos/alice/widgets/issues/${issue.number}`)).json);
    expect(issueNow.updated_at).toBe(iso(T0 + 10_000));
  });

  it("creating a comment bumps the issue's comment count and updated_at; html_url has the anchor", async () => {
    let now = T0;
    s = await seededForge({ clock: () => now });
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "bump" });
    now = T0 + 60_000;
    const c = asRecord((await api(s.forge, "POST", `/repos/alice/widgets/issues/${issue.number}/comments`, { token: s.bob, body: { body: "hi" } })).json);
    expect(c.html_url).toBe(`${s.forge.url}/alice/widgets/issues/${issue.number}#issuecomment-${String(c.id)}`);
    expect(c.issue_url).toBe(`${s.forge.url}/alice/widgets/issues/${issue.number}`);
    expect(asRecord(c.user).login).toBe("bob");
    const i = asRecord((await api(s.forge, "GET", `/repos/alice/widgets/issues/${issue.number}`)).json);
    expect(i.comments).toBe(1);
    expect(i.updated_at).toBe(iso(T0 + 60_000));
  });
});

describe("issue list", () => {
  it("includes pull requests unless type=issues", async () => {
    s = await seededForge();
    s.forge.admin.createIssue("alice", "widgets", { title: "an issue" });
    s.forge.admin.createPullRequest("alice", "widgets", { title: "a pull" });
    const titles = async (q: string) => asArray((await api(s!.forge, "GET", `/repos/alice/widgets/issues${q}`)).json).map((i) => asRecord(i).title);
    expect((await titles("")).sort()).toEqual(["a pull", "an issue"]);
    expect(await titles("?type=issues")).toEqual(["an issue"]);
    expect(await titles("?type=pulls")).toEqual(["a pull"]);
    const pull = asRecord(asArray((await api(s.forge, "GET", "/repos/alice/widgets/issues?type=pulls")).json)[0]);
    expect(asRecord(pull.pull_request).merged).toBe(false);
  });

  it("AND-s several labels, drops unknown names, ignores the filter when no name is known", async () => {
    s = await seededForge();
    const a = s.forge.admin;
    a.createLabel("alice", "widgets", { name: "bug" });
    a.createLabel("alice", "widgets", { name: "ui" });
    a.createIssue("alice", "widgets", { title: "both", labels: ["bug", "ui"] });
    a.createIssue("alice", "widgets", { title: "bug only", labels: ["bug"] });
    a.createIssue("alice", "widgets", { title: "none" });
    const titles = async (labels: string) =>
      asArray((await api(s!.forge, "GET", `/repos/alice/widgets/issues?labels=${encodeURIComponent(labels)}`)).json)
        .map((i) => asRecord(i).title)
        .sort();
    expect(await titles("bug,ui")).toEqual(["both"]);
    expect(await titles("bug")).toEqual(["both", "bug only"]);
    expect(await titles("bug,nope")).toEqual(["both", "bug only"]);
    expect(await titles("nope,also-nope")).toEqual(["both", "bug only", "none"]);
  });

  it("pages with default 30 / max 50, X-Total-Count and Forgejo's Link header", async () => {
    s = await seededForge();
    for (let i = 1; i <= 65; i++) s.forge.admin.createIssue("alice", "widgets", { title: `issue ${i}` });
    const first = await api(s.forge, "GET", "/repos/alice/widgets/issues");
    expect(asArray(first.json)).toHaveLength(30);
    expect(asRecord(asArray(first.json)[0]).number).toBe(65); // sort=latest: newest first
    expect(first.headers.get("x-total-count")).toBe("65");
    const base = `${s.forge.apiUrl}/repos/alice/widgets/issues`;
    expect(first.headers.get("link")).toBe(`<${base}?page=2>; rel="next",<${base}?page=3>; rel="last"`);
    const max = await api(s.forge, "GET", "/repos/alice/widgets/issues?limit=100");
    expect(asArray(max.json)).toHaveLength(50);
    const last = await api(s.forge, "GET", "/repos/alice/widgets/issues?state=open&page=3");
    expect(asArray(last.json)).toHaveLength(5);
    expect(last.headers.get("link")).toBe(`<${base}?page=1&state=open>; rel="first",<${base}?page=2&state=open>; rel="prev"`);
    const small = await api(s.forge, "GET", "/repos/alice/widgets/issues?limit=10&page=2");
    expect(small.headers.get("link")).toBe(`<${base}?limit=10&page=3>; rel="next",<${base}?limit=10&page=7>; rel="last",<${base}?limit=10&page=1>; rel="first",<${base}?limit=10&page=1>; rel="prev"`);
    const none = await api(s.forge, "GET", "/repos/alice/widgets/issues?state=closed");
    expect(none.headers.get("link")).toBeNull();
    expect(none.headers.get("x-total-count")).toBe("0");
  });
});

describe("issues", () => {
  it("PATCH answers 201 and edits title, body and state", async () => {
    s = await seededForge();
    const i = s.forge.admin.createIssue("alice", "widgets", { title: "old", author: "bob" });
    const r = await api(s.forge, "PATCH", `/repos/alice/widgets/issues/${i.number}`, { token: s.bob, body: { title: "new", body: "b", state: "closed" } });
    expect(r.status).toBe(201);
    const j = asRecord(r.json);
    expect([j.title, j.body, j.state]).toEqual(["new", "b", "closed"]);
    expect(typeof j.closed_at).toBe("string");
    const reopened = asRecord((await api(s.forge, "PATCH", `/repos/alice/widgets/issues/${i.number}`, { token: s.alice, body: { state: "open" } })).json);
    expect([reopened.state, reopened.closed_at]).toEqual(["open", null]);
  });

  it("Bearer and ?token= authenticate too", async () => {
    s = await seededForge();
    const bearer = await fetch(`${s.forge.apiUrl}/user`, { headers: { Authorization: `Bearer ${s.bob}` } });
    expect(asRecord(await bearer.json()).login).toBe("bob");
    const q = await fetch(`${s.forge.apiUrl}/user?access_token=${s.alice}`);
    expect(asRecord(await q.json()).login).toBe("alice");
  });
});

describe("persistence", () => {
  it("keeps users, tokens, repos, issues, comments, labels and hooks across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-"));
    try {
      s = await seededForge({ dataDir: dir });
      s.forge.admin.createLabel("alice", "widgets", { name: "bug" });
      const i = s.forge.admin.createIssue("alice", "widgets", { title: "persist", labels: ["bug"] });
      await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: "kept" } });
      await api(s.forge, "POST", "/repos/alice/widgets/hooks", {
        token: s.alice,
        body: { type: "gitea", config: { url: "http://127.0.0.1:9/", content_type: "json" }, events: ["issues"], active: true },
      });
      const bob = s.bob;
      const alice = s.alice;
      await s.forge.close();
      s = undefined;
      const again = await startForge({ dataDir: dir });
      try {
        expect(asRecord((await api(again, "GET", "/user", { token: bob })).json).login).toBe("bob");
        const comments = asArray((await api(again, "GET", `/repos/alice/widgets/issues/${i.number}/comments`)).json);
        expect(comments.map((c) => asRecord(c).body)).toEqual(["kept"]);
        const issue = asRecord((await api(again, "GET", `/repos/alice/widgets/issues/${i.number}`)).json);
        expect(asArray(issue.labels).map((l) => asRecord(l).name)).toEqual(["bug"]);
        expect(asArray((await api(again, "GET", "/repos/alice/widgets/hooks", { token: alice })).json)).toHaveLength(1);
        expect((await api(again, "GET", "/repos/alice/secret", { token: bob })).status).toBe(404);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("web view", () => {
  it("renders Markdown, sanitizes raw HTML (as Forgejo) and anchors comments", async () => {
    s = await seededForge();
    const i = s.forge.admin.createIssue("alice", "widgets", { title: "Web <b>page</b>", body: "**bold** <script>alert(1)</script>" });
    const c = asRecord(
      (
        await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, {
          token: s.bob,
          body: { body: "- item\n\n<img src=x onerror=alert(2)>\n\n[x](javascript:alert(3))" },
        })
      ).json,
    );
    const res = await fetch(`${s.forge.url}/alice/widgets/issues/${i.number}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("<strong>bold</strong>");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("alert(1)");
    expect(html).not.toContain("onerror");
    expect(html).not.toContain("javascript:");
    expect(html).toContain("Web &lt;b&gt;page&lt;/b&gt;");
    expect(html).toContain(`id="issuecomment-${String(c.id)}"`);
    expect(html).toContain("<li>item</li>");
    const home = await (await fetch(`${s.forge.url}/`)).text();
    expect(home).toContain(`href="/alice/widgets/issues/${i.number}"`);
    expect(home).not.toContain("alice/secret");
    expect((await fetch(`${s.forge.url}/alice/secret/issues/1`)).status).toBe(404);
  });
});

describe("issue numbers", () => {
  it("are never given again after a delete, even the last one's (Forgejo's issue_index counter)", async () => {
    s = await seededForge();
    const create = async (title: string) => asRecord((await api(s!.forge, "POST", "/repos/alice/widgets/issues", { token: s!.alice, body: { title } })).json).number;
    expect(await create("one")).toBe(1);
    expect(await create("two")).toBe(2);
    expect((await api(s.forge, "DELETE", "/repos/alice/widgets/issues/2", { token: s.alice })).status).toBe(204);
    // MAX(number) + 1 would be 2 again: a reader that remembered #2 would then read a stranger's issue.
    expect(await create("three")).toBe(3);
    expect((await api(s.forge, "GET", "/repos/alice/widgets/issues/2", { token: s.alice })).status).toBe(404);
  });
});
