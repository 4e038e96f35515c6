import { afterEach, describe, expect, it } from "vitest";
import { setTaskAt, taskPositions } from "../../src/embedded-forge/task-positions.ts";
import { seededForge, type Seeded } from "./helpers.ts";

let s: Seeded;
afterEach(async () => s?.forge.close());

/** A cookie jar of one: what a browser would send back. */
function jar() {
  const cookies = new Map<string, string>();
  return {
    take(res: Response) {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const eq = (pair as string).indexOf("=");
        cookies.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1));
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
  };
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

async function post(url: string, form: Record<string, string>, cookie: string) {
  return fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body: new URLSearchParams(form).toString() });
}

async function signIn(login: string, password: string) {
  const j = jar();
  const page = await fetch(`${s.forge.url}/user/login?redirect_to=/alice/widgets/issues/1`);
  j.take(page);
  const csrf = csrfOf(await page.text());
  const res = await post(`${s.forge.url}/user/login`, { _csrf: csrf, user_name: login, password, redirect_to: "/alice/widgets/issues/1" }, j.header());
  j.take(res);
  return { res, j };
}

describe("web view sign-in, CSRF and forms", () => {
  it("signs in with the password, refuses a wrong one and a missing CSRF token, and never redirects off-site", async () => {
    s = await seededForge({ port: 0 });
    s.forge.admin.setPassword("bob", "bob-pass");
    s.forge.admin.createIssue("alice", "widgets", { title: "t", body: "- [ ] one\n- [ ] two" });
    const wrong = await signIn("bob", "nope");
    expect(wrong.res.status).toBe(200);
    expect(await wrong.res.text()).toContain("Username or password is incorrect.");
    const noCsrf = await post(`${s.forge.url}/user/login`, { user_name: "bob", password: "bob-pass" }, "");
    expect(noCsrf.status).toBe(400);
    const ok = await signIn("bob", "bob-pass");
    expect(ok.res.status).toBe(303);
    expect(ok.res.headers.get("location")).toBe("/alice/widgets/issues/1");
    expect(ok.res.headers.getSetCookie().join()).toMatch(/i_like_gitea=[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    const page = await (await fetch(`${s.forge.url}/alice/widgets/issues/1`, { headers: { cookie: ok.j.header() } })).text();
    expect(page).toContain("Signed in as <strong>bob</strong>");
    // An off-site redirect_to falls back to "/".
    const page2 = await fetch(`${s.forge.url}/user/login`);
    const j2 = jar();
    j2.take(page2);
    const off = await post(`${s.forge.url}/user/login`, { _csrf: csrfOf(await page2.text()), user_name: "bob", password: "bob-pass", redirect_to: "//evil.example/x" }, j2.header());
    expect(off.headers.get("location")).toBe("/");
  });

  it("posts a comment and ticks a task only with the session's CSRF token, with the API's permissions", async () => {
    s = await seededForge({ port: 0 });
    s.forge.admin.setPassword("alice", "alice-pass");
    s.forge.admin.setPassword("bob", "bob-pass");
    s.forge.admin.createIssue("alice", "widgets", { title: "t", body: "```\n- [ ] not a task\n```\n- [ ] one\n- [ ] two" });
    const alice = await signIn("alice", "alice-pass");
    const html = await (await fetch(`${s.forge.url}/alice/widgets/issues/1`, { headers: { cookie: alice.j.header() } })).text();
    const csrf = csrfOf(html);
    expect(csrf).not.toBe("");
    expect((await post(`${s.forge.url}/alice/widgets/issues/1/comments`, { content: "hi" }, alice.j.header())).status).toBe(400);
    const c = await post(`${s.forge.url}/alice/widgets/issues/1/comments`, { _csrf: csrf, content: "hi from the page" }, alice.j.header());
    expect(c.status).toBe(303);
    expect(c.headers.get("location")).toMatch(/^\/alice\/widgets\/issues\/1#issuecomment-\d+$/);
    const version = /data-content-version="(\d+)"/.exec(html)?.[1] ?? "";
    const positions = [...html.matchAll(/data-source-position="(\d+)"/g)].map((m) => m[1] as string);
    expect(positions).toHaveLength(2);
    const t = await post(`${s.forge.url}/alice/widgets/issues/1/tasks`, { _csrf: csrf, position: positions[1]!, checked: "true", content_version: version }, alice.j.header());
    expect(t.status).toBe(303);
    const issue = (await (await fetch(`${s.forge.url}/api/v1/repos/alice/widgets/issues/1`)).json()) as { body: string };
    expect(issue.body).toBe("```\n- [ ] not a task\n```\n- [ ] one\n- [x] two");
    // bob may comment on a public repo but not edit alice's issue.
    const bob = await signIn("bob", "bob-pass");
    const bobCsrf = csrfOf(await (await fetch(`${s.forge.url}/alice/widgets/issues/1`, { headers: { cookie: bob.j.header() } })).text());
    const bobPage = await (await fetch(`${s.forge.url}/alice/widgets/issues/1`, { headers: { cookie: bob.j.header() } })).text();
    const bobVersion = /data-content-version="(\d+)"/.exec(bobPage)?.[1] ?? "";
    expect((await post(`${s.forge.url}/alice/widgets/issues/1/tasks`, { _csrf: bobCsrf, position: positions[0]!, checked: "true", content_version: bobVersion }, bob.j.header())).status).toBe(403);
    // alice's token does not work in bob's session.
    expect((await post(`${s.forge.url}/alice/widgets/issues/1/comments`, { _csrf: csrf, content: "forged" }, bob.j.header())).status).toBe(400);
  });

  it("serves the mermaid bundle and the page script from this server, with a CSP allowing only them", async () => {
    s = await seededForge({ port: 0 });
    const m = await fetch(`${s.forge.url}/assets/mermaid.min.js`);
    expect(m.status).toBe(200);
    expect(Number(m.headers.get("content-length"))).toBeGreaterThan(1_000_000);
    const js = await (await fetch(`${s.forge.url}/assets/checkpost-web.js`)).text();
    expect(js).toContain("mermaid");
    const page = await fetch(`${s.forge.url}/`);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect(await page.text()).toContain('<script src="/assets/mermaid.min.js" defer></script>');
  });
});

describe("task boxes by source position (issue 19.5), as Forgejo's data-source-position", () => {
  it("a task line inside an HTML comment or raw HTML draws no box and shifts nothing", () => {
    const body = "<!--\n- [ ] invisible\n-->\n<input type=checkbox>\n\n- [ ] a\n* [x] b\n1. [ ] c";
    const positions = taskPositions(body);
    expect(positions).toHaveLength(3);
    expect(positions.map((p) => body[p!])).toEqual(["[", "[", "["]);
    expect(setTaskAt(body, positions[1]!, false)).toBe(body.replace("* [x] b", "* [ ] b"));
    expect(setTaskAt("```\n- [ ] x\n```\n- [ ] a", taskPositions("```\n- [ ] x\n```\n- [ ] a")[0]!, true)).toBe("```\n- [ ] x\n```\n- [x] a");
    // A made-up offset (the hidden line's box) is no box.
    expect(setTaskAt(body, body.indexOf("[ ] invisible"), true)).toBeNull();
  });

  it("counts CRLF line ends as one, as the page does", () => {
    const body = "x\r\n\r\n- [ ] a\r\n- [ ] b";
    const [, b] = taskPositions(body);
    expect(setTaskAt(body, b!, true)).toBe("x\r\n\r\n- [ ] a\r\n- [x] b");
  });
});
