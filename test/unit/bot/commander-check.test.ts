import { describe, expect, it } from "vitest";
import { CommanderCheck } from "../../../src/bot/controls/commander-check.ts";
import { HostError } from "../../../src/errors.ts";
import { FakeIssueHost } from "../../helpers/fake-issue-host.ts";

const repo = { owner: "acme", repo: "work" };

function setup() {
  const host = new FakeIssueHost({ login: "bot" });
  host.permissions.set("wendy", "write");
  host.permissions.set("ivy", "read");
  host.permissions.set("rex", "read");
  host.teams.push({ id: 1, name: "triage", issuesMode: "write", members: ["ivy"] });
  host.teams.push({ id: 2, name: "readers", issuesMode: "read", members: ["rex"] });
  const warnings: string[] = [];
  let now = 0;
  const check = new CommanderCheck({ api: host, repo, logger: { warn: (_o: unknown, m?: string) => void warnings.push(m ?? "") }, now: () => new Date(now), cacheMs: 60_000 });
  return { host, check, warnings, tick: (ms: number) => (now += ms) };
}

describe("CommanderCheck: who the host lets write issues", () => {
  it("a writer may; a 'read' member of a team that may write issues may; a read-only team's member may not; an unknown user may not", async () => {
    const { host, check } = setup();
    expect(await check.mayCommand("wendy")).toBe(true);
    expect(await check.mayCommand("ivy")).toBe(true);
    expect(await check.mayCommand("rex")).toBe(false);
    // One question to the host each: how the host grants issue writes (teams) is the adapter's business.
    expect(host.calls).toEqual(["mayCommand", "mayCommand", "mayCommand"]);
    expect(await check.mayCommand("nobody")).toBe(false); // not found: no such user
  });

  it("keeps a yes for the cache time, never a no", async () => {
    const { host, check, tick } = setup();
    expect(await check.mayCommand("ivy")).toBe(true);
    const asked = host.calls.length;
    expect(await check.mayCommand("IVY")).toBe(true);
    expect(host.calls.length).toBe(asked);
    tick(60_001);
    host.teams[0]?.members.splice(0); // removed from the team
    expect(await check.mayCommand("ivy")).toBe(false);
    host.teams[0]?.members.push("ivy");
    expect(await check.mayCommand("ivy")).toBe(true); // a no was not kept
  });

  it("a team whose members the bot may not read (403): refused, and the log says why once", async () => {
    const { host, check, warnings } = setup();
    for (const t of host.teams) t.hidden = true;
    expect(await check.mayCommand("ivy")).toBe(false);
    expect(await check.mayCommand("rex")).toBe(false);
    expect(warnings.filter((m) => m.includes("may not read the members"))).toHaveLength(1);
  });

  it("a token that may not read permissions (forbidden): refused, and the log says so", async () => {
    const { host, check, warnings } = setup();
    host.mayCommand = async () => {
      throw new HostError("needs repo admin", "forbidden");
    };
    expect(await check.mayCommand("wendy")).toBe(false);
    expect(warnings.some((m) => m.includes("may not read collaborator permissions"))).toBe(true);
  });
});
