/** Hook events as Forgejo keeps them: expansion of "issues"/"pull_request", and the migration of older databases. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandHookEvents } from "../../src/embedded-forge/hook-events.ts";
import { ForgeStore } from "../../src/embedded-forge/store-sqlite.ts";

describe("expandHookEvents (routers/api/v1/utils/hook.go:155-217)", () => {
  it("expands issues and pull_request, keeps issues_only narrow, drops unknown names, matches case-insensitively", () => {
    expect(expandHookEvents(["issues"])).toEqual(["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"]);
    expect(expandHookEvents(["issues_only"])).toEqual(["issues"]);
    expect(expandHookEvents(["ISSUE_COMMENT", "nonsense"])).toEqual(["issue_comment"]);
    expect(expandHookEvents(["pull_request"])).toEqual([
      "pull_request",
      "pull_request_assign",
      "pull_request_label",
      "pull_request_milestone",
      "pull_request_comment",
      "pull_request_review_approved",
      "pull_request_review_rejected",
      "pull_request_review_comment",
      "pull_request_sync",
      "pull_request_review_request",
    ]);
    // EventsArray order (models/webhook/webhook.go:327-362), whatever the order asked in.
    expect(expandHookEvents(["issue_comment", "push", "create"])).toEqual(["create", "push", "issue_comment"]);
  });

  it("a database written before expansion is migrated once at start", () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-hooks-"));
    try {
      const first = new ForgeStore(dir);
      const owner = first.createUser("o", { isAdmin: false, fullName: "", email: "o@x" }, 1);
      const repo = first.createRepo(owner.id, "r", { private: false, description: "" }, 1);
      const hook = first.createHook({
        repo_id: repo.id,
        type: "forgejo",
        url: "http://h",
        content_type: "json",
        secret: "",
        events: '["issues","issue_comment"]',
        active: 1,
        authorization_header: "",
        branch_filter: "",
        created_unix: 1,
        updated_unix: 1,
      });
      first.db.pragma("user_version = 0"); // as an older server left it
      first.close();
      const second = new ForgeStore(dir);
      expect(JSON.parse(second.hookById(hook.id)?.events ?? "[]")).toEqual(["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"]);
      expect(second.db.pragma("user_version", { simple: true })).toBe(1);
      second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
