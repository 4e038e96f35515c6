import { describe, expect, it } from "vitest";
import { newestOfOneRepo } from "../../../src/bot/api/api-routes.ts";

const tracker = (owner: string, repo: string, issue: number) => ({ repo: { owner, repo }, issue });

describe("/api/resume without issue= while a rollover is not yet linked", () => {
  it("answers from the newest watched issue of one repository (the chain's head)", () => {
    const old = tracker("acme", "work", 1);
    const head = tracker("acme", "work", 7);
    expect(newestOfOneRepo([head, old])).toBe(head);
    expect(newestOfOneRepo([old, head])).toBe(head);
  });

  it("stays ambiguous across repositories, and with nothing watched", () => {
    expect(newestOfOneRepo([tracker("acme", "work", 1), tracker("acme", "other", 2)])).toBeUndefined();
    expect(newestOfOneRepo([])).toBeUndefined();
  });
});
