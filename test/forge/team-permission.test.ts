/**
 * Permission values computed as Forgejo computes them (issue 18 item 6): a site admin reads as "owner"
 * (models/perm/access/repo_permission.go:225-226); a member of a team with per-unit rights reads as the
 * team's AccessMode, the lowest of its unit modes (models/unit/unit.go:434-449), while Forgejo lets them
 * write issues (CanWriteIssuesOrPulls uses the issues unit, repo_permission.go:279-300); an admin team's
 * member reads as "owner" (:270-277).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, asRecord, seededForge, type Seeded } from "./helpers.ts";

let s: Seeded;
let tokens: Record<string, string>;
beforeAll(async () => {
  s = await seededForge();
  const a = s.forge.admin;
  a.createOrg("acme");
  a.createRepo("acme", "tools");
  for (const login of ["ivy", "cody", "ada", "outsider"]) a.createUser(login);
  expect(a.createTeam("acme", "triage", { units: { issues: "write", code: "read", pulls: "read" }, repos: ["tools"] }).accessMode).toBe("read");
  expect(a.createTeam("acme", "devs", { units: { issues: "write", code: "write", pulls: "write" }, repos: ["tools"] }).accessMode).toBe("write");
  a.createTeam("acme", "admins", { permission: "admin", repos: ["tools"] });
  a.addTeamMember("acme", "triage", "ivy");
  a.addTeamMember("acme", "devs", "cody");
  a.addTeamMember("acme", "admins", "ada");
  tokens = Object.fromEntries(["ivy", "cody", "ada", "outsider"].map((l) => [l, a.createToken(l)]));
});
afterAll(async () => {
  await s.forge.close();
});

const permission = async (who: string) => asRecord((await api(s.forge, "GET", `/repos/acme/tools/collaborators/${who}/permission`, { token: s.root })).json).permission;

describe("permission values as Forgejo computes them", () => {
  it("site admin → owner; admin team → owner; unit team → its lowest unit mode; others → read", async () => {
    expect(await permission("root")).toBe("owner");
    expect(await permission("ada")).toBe("owner");
    expect(await permission("cody")).toBe("write");
    expect(await permission("ivy")).toBe("read");
    expect(await permission("outsider")).toBe("read");
  });

  it("the triage member who reads as 'read' may still edit issues; an outsider may not", async () => {
    const issue = s.forge.admin.createIssue("acme", "tools", { title: "t", author: "outsider" });
    const byIvy = await api(s.forge, "PATCH", `/repos/acme/tools/issues/${issue.number}`, { token: tokens.ivy, body: { title: "triaged" } });
    expect(byIvy.status).toBe(201);
    const other = s.forge.admin.createIssue("acme", "tools", { title: "u", author: "cody" });
    const byOutsider = await api(s.forge, "PATCH", `/repos/acme/tools/issues/${other.number}`, { token: tokens.outsider, body: { title: "x" } });
    expect(byOutsider.status).toBe(403);
    // The admin routes follow the repository's mode: the triage member is no repository admin.
    expect((await api(s.forge, "GET", "/repos/acme/tools/hooks", { token: tokens.ivy })).status).toBe(403);
    expect((await api(s.forge, "GET", "/repos/acme/tools/hooks", { token: tokens.ada })).status).toBe(200);
  });
});
