/**
 * Issue 18 item 6: a member of a team that may write issues but only read code reads as "read" from
 * Forgejo's permission API (the team's AccessMode is the lowest of its units, models/unit/unit.go:434-449),
 * yet Forgejo lets them write issues (repo_permission.go:255-300, 109-114). The bot honours their commands;
 * a member of a team that only reads issues is refused.
 */
import { afterEach, describe, expect } from "vitest";
import { itNeeds } from "../helpers/host-capabilities.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { formatCheckpoint, parseComment, pythonUtcIsoformat } from "../../src/protocol/index.ts";

let w: BotWorld;
afterEach(async () => w?.close());

const A = "implementation-worker";

async function world(): Promise<{ ivy: string; rex: string }> {
  w = await botWorld({}, { org: "acme" });
  const a = w.forge.admin;
  // The bot reads others' permissions (repo admin) and, as an owner of the organisation, its teams' members.
  a.addCollaborator("acme", "work", "checkpost-bot", "admin");
  a.createTeam("acme", "Owners", { permission: "owner", repos: ["work"] });
  a.addTeamMember("acme", "Owners", "checkpost-bot");
  for (const u of ["ivy", "rex"]) a.createUser(u);
  a.createTeam("acme", "triage", { units: { issues: "write", code: "read", pulls: "read" }, repos: ["work"] });
  a.createTeam("acme", "readers", { units: { issues: "read", code: "read" }, repos: ["work"] });
  a.addTeamMember("acme", "triage", "ivy");
  a.addTeamMember("acme", "readers", "rex");
  const at = pythonUtcIsoformat(new Date());
  await w.api(w.agentToken).createComment(w.repo, w.issue, formatCheckpoint({ agent: A, session: "s1", phase: "clone_complete", timestamp: at, data: {}, epoch: 1, seq: 1 }));
  await w.settle();
  return { ivy: a.createToken("ivy"), rex: a.createToken("rex") };
}

async function say(token: string, body: string) {
  await w.api(token).createComment(w.repo, w.issue, body);
  await w.settle();
}
async function controls() {
  return (await w.api(w.agentToken).listComments(w.repo, w.issue)).map((c) => parseComment(c.body)).filter((p) => p.kind === "control");
}

describe("team members as commanders", () => {
  itNeeds("issueRightsApartFromCode", "a triage member (reads as 'read', may write issues) pauses; a member of a read-only team is refused", async () => {
    const { ivy, rex } = await world();
    const bot = w.api(w.botToken);
    // What the permission API says about both: "read". Only the teams tell them apart.
    expect(await bot.collaboratorPermission(w.repo, "ivy")).toBe("read");
    expect(await bot.collaboratorPermission(w.repo, "rex")).toBe("read");

    await say(rex, `/checkpost pause ${A} s1`);
    expect(await controls()).toHaveLength(0);
    expect((await w.api(w.agentToken).listComments(w.repo, w.issue)).at(-1)?.body).toMatch(/only users with write access/);

    await say(ivy, `/checkpost pause ${A} s1`);
    const recorded = await controls();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ control: { action: "pause", agent: A, session: "s1", by: "ivy" } });
    const resume = (await (await w.botFetch(`/api/resume?agent=${A}&session=s1`)).json()) as { directive: { kind: string } | null };
    expect(resume.directive?.kind).toBe("pause");
  });
});
