/**
 * checkpost's client reads every list to its end (issue 18 item 6, issue 23): an instance with a lowered
 * [api] MAX_RESPONSE_ITEMS answers shorter pages than asked for, and a repository may hold more labels,
 * hooks or collaborators than one page. Both failed before: listLabels read one page (so the session label
 * on page 2 was created again), and locating the session issue stopped at the first short page.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startForge, type ForgeServer } from "../../src/embedded-forge/index.ts";
import { ForgejoApi, ForgejoClient, hasMorePages, nextPageFromLink } from "../../src/forgejo-client/index.ts";
import { locateIssue } from "../../src/session-client/locate-issue.ts";

let forge: ForgeServer | undefined;
afterEach(async () => {
  await forge?.close();
  forge = undefined;
});

async function world(maxResponseItems: number) {
  forge = await startForge({ maxResponseItems });
  const a = forge.admin;
  a.createUser("agent");
  const token = a.createToken("agent");
  a.createRepo("agent", "work");
  const api = new ForgejoApi(new ForgejoClient({ url: forge.url, token, minRetryDelayMs: 1, maxRetryDelayMs: 10 }));
  return { forge, api, repo: { owner: "agent", repo: "work" } };
}

describe("list reads go to the end", () => {
  it("listLabels reads past the first page, so an existing label on page 3 is not created again", async () => {
    const w = await world(50);
    // 120 labels sorting before the session label: it lands on the third page of 50.
    for (let i = 0; i < 120; i++) w.forge.admin.createLabel("agent", "work", { name: `a-${String(i).padStart(3, "0")}` });
    w.forge.admin.createLabel("agent", "work", { name: "session-state" });
    const labels = await w.api.listLabels(w.repo);
    expect(labels).toHaveLength(121);
    const issue = await locateIssue(w.api, w.repo, { title: "Session", label: "session-state", create: true });
    expect(issue.labels.map((l) => l.name)).toEqual(["session-state"]);
    expect((await w.api.listLabels(w.repo)).filter((l) => l.name === "session-state")).toHaveLength(1);
  });

  it("locating the session issue follows Link when MAX_RESPONSE_ITEMS is lowered to 10", async () => {
    const w = await world(10);
    const settings = (await (await fetch(`${w.forge.apiUrl}/settings/api`)).json()) as { max_response_items: number };
    expect(settings.max_response_items).toBe(10);
    w.forge.admin.createLabel("agent", "work", { name: "session-state" });
    // The session issue is the oldest: newest-first, it is on the fourth page of 10.
    const target = w.forge.admin.createIssue("agent", "work", { title: "Session state", labels: ["session-state"] });
    for (let i = 0; i < 35; i++) w.forge.admin.createIssue("agent", "work", { title: `noise ${i}`, labels: ["session-state"] });
    const found = await locateIssue(w.api, w.repo, { title: "Session state", label: "session-state", create: false });
    expect(found.number).toBe(target.number);
    expect((await w.api.listAllIssues(w.repo, { state: "open", labels: "session-state" })).length).toBe(36);
  });

  it("hooks and collaborators, which send X-Total-Count but no Link, are read to the end too", async () => {
    const w = await world(10);
    for (let i = 0; i < 23; i++) {
      w.forge.admin.createUser(`u${i}`);
      w.forge.admin.addCollaborator("agent", "work", `u${i}`, "read");
    }
    expect(await w.api.listCollaborators(w.repo)).toHaveLength(23);
    for (let i = 0; i < 12; i++) await w.api.createHook(w.repo, { type: "forgejo", active: false, events: ["issues"], config: { url: `http://127.0.0.1:9/h${i}`, content_type: "json" } });
    expect(await w.api.listHooks(w.repo)).toHaveLength(12);
  });

  it("the paging rule: Link when sent, else X-Total-Count, else until an empty page; never 'a short page ends it'", () => {
    expect(nextPageFromLink('<http://h/api/v1/repos/a/b/issues?limit=50&page=3>; rel="next",<http://h/x?page=9>; rel="last"')).toBe(3);
    expect(nextPageFromLink('<http://h/x?page=1>; rel="first"')).toBeNull();
    expect(hasMorePages({ link: '<http://h/x?page=2>; rel="next"' }, 1, 10, 10)).toBe(2);
    expect(hasMorePages({ link: '<http://h/x?page=1>; rel="first"' }, 2, 20, 10)).toBeNull();
    expect(hasMorePages({ "x-total-count": "25" }, 1, 10, 10)).toBe(2);
    expect(hasMorePages({ "x-total-count": "25" }, 3, 25, 5)).toBeNull();
    // A short page with more to come (MAX_RESPONSE_ITEMS lower than the limit asked for).
    expect(hasMorePages({ "x-total-count": "25" }, 1, 10, 10)).not.toBeNull();
    expect(hasMorePages({}, 1, 7, 7)).toBe(2);
    expect(hasMorePages({}, 2, 7, 0)).toBeNull();
  });
});
