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

describe("the team routes a bot reads when the permission says read (issue 18 item 6)", () => {
  const get = async (path: string, who: string) => api(s.forge, "GET", path, { token: tokens[who] ?? s.root });

  it("GET /repos/{o}/{r}/teams: the teams holding the repo with units_map as Forgejo's GetUnitsMap (admin teams: every unit)", async () => {
    const r = await get("/repos/acme/tools/teams", "ivy");
    expect(r.status).toBe(200);
    const teams = (r.json as Record<string, unknown>[]).map((t) => [
      t.name,
      t.permission,
      (t.units_map as Record<string, string>)["repo.issues"],
      (t.units_map as Record<string, string>)["repo.code"],
    ]);
    // Sorted by name (team_list.go:101-108); an admin team has every unit at "admin" (team.go:124-136).
    expect(teams).toEqual([
      ["admins", "admin", "admin", "admin"],
      ["devs", "write", "write", "write"],
      ["triage", "read", "write", "read"],
    ]);
    // An outsider of a public repo may read it, so may list its teams (reqAnyRepoReader).
    expect((await get("/repos/acme/tools/teams", "outsider")).status).toBe(200);
    // A user's repository has no teams: 405 (routers/api/v1/repo/teams.go:41-44).
    s.forge.admin.createRepo("ivy", "own");
    expect((await get("/repos/ivy/own/teams", "ivy")).status).toBe(405);
  });

  it("GET /teams/{id}/members/{u}: a member of that team, an org owner or a site admin may ask; another org member 403, an outsider 404", async () => {
    const teams = (await get("/repos/acme/tools/teams", "ivy")).json as { id: number; name: string }[];
    const triage = teams.find((t) => t.name === "triage")?.id as number;
    expect((await get(`/teams/${triage}/members/ivy`, "ivy")).status).toBe(200);
    expect((await get(`/teams/${triage}/members/cody`, "ivy")).status).toBe(404); // not in the team
    expect((await get(`/teams/${triage}/members/ivy`, "root")).status).toBe(200); // site admin
    expect((await get(`/teams/${triage}/members/ivy`, "cody")).status).toBe(403); // org member, not in the team
    expect((await get(`/teams/${triage}/members/ivy`, "outsider")).status).toBe(404); // not in the organisation
    expect((await get(`/teams/99999/members/ivy`, "root")).status).toBe(404);
  });
});
