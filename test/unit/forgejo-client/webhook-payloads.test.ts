// Issue 31, item 1: Forgejo's webhook payloads are a boundary of its adapter. readForgejoDelivery maps
// them to the port's HostDelivery, so the bot reads no snake_case; a payload of the wrong shape is
// "invalid" with the first problem, and an event the bot does not read is null.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readForgejoDelivery } from "../../../src/forgejo-client/index.ts";

const example = JSON.parse(readFileSync(new URL("../../../fixtures/forgejo/webhook-issue_comment.example.json", import.meta.url), "utf8")) as {
  issue: { number: number; title: string; state: string };
  comment: { id: number; body: string; user: { login: string }; created_at: string; updated_at: string; html_url: string };
  repository: { name: string; owner: { login: string } };
  sender: { login: string };
};

describe("readForgejoDelivery", () => {
  it("maps a real issue_comment payload to a neutral comment delivery", () => {
    const d = readForgejoDelivery("issue_comment", example);
    expect(d).toMatchObject({
      event: "comment",
      action: "created",
      repo: { owner: example.repository.owner.login, repo: example.repository.name },
      issue: { number: example.issue.number, title: example.issue.title, state: example.issue.state, isPullRequest: false },
      comment: {
        id: example.comment.id,
        author: example.comment.user.login,
        body: example.comment.body,
        createdAt: example.comment.created_at,
        updatedAt: example.comment.updated_at,
        htmlUrl: example.comment.html_url,
      },
      sender: example.sender.login,
      onPullRequest: false,
    });
    expect(JSON.stringify(d)).not.toMatch(/_at"|html_url|is_pull|pull_request/);
  });

  it("maps an issues edit with the body before it, and a pull request's issue as one", () => {
    const issue = { number: 3, title: "t", body: "after", state: "open", labels: [{ name: "s" }], user: { login: "ann" }, updated_at: "2026-12-06T05:00:00Z", pull_request: { merged: false } };
    const payload = { action: "edited", issue, repository: { name: "r", full_name: "o/r", owner: { login: "o" } }, sender: { login: "ann" }, changes: { body: { from: "before" } } };
    expect(readForgejoDelivery("issues", payload)).toEqual({
      event: "issue",
      action: "edited",
      repo: { owner: "o", repo: "r" },
      issue: { number: 3, title: "t", body: "after", state: "open", labels: [{ name: "s" }], isPullRequest: true, author: "ann", updatedAt: "2026-12-06T05:00:00Z" },
      sender: "ann",
      bodyBefore: "before",
    });
  });

  it("a payload of the wrong shape is invalid, naming the first problem; another event is not read", () => {
    const bad = readForgejoDelivery("issue_comment", { ...example, comment: { ...example.comment, id: "seven" } });
    expect(bad).toMatchObject({ invalid: { path: ["comment", "id"] } });
    expect(readForgejoDelivery("push", { ref: "refs/heads/main" })).toBeNull();
  });
});
