/** Webhook round trip: real receiver, Forgejo headers, HMAC over raw bytes, payload shape like the example file. */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { api, asRecord, seededForge, type Seeded } from "./helpers.ts";
import { startReceiver, type Receiver } from "./receiver.ts";

// Vendored copy; see fixtures/forgejo/PROVENANCE.md.
const example = asRecord(JSON.parse(readFileSync(new URL("../../fixtures/forgejo/webhook-issue_comment.example.json", import.meta.url), "utf8")));
const SECRET = "hook-secret";

let s: Seeded;
let rx: Receiver;
beforeEach(async () => {
  s = await seededForge({ webhookTimeoutMs: 200 });
  rx = await startReceiver();
  s.forge.admin.createLabel("alice", "widgets", { name: "bug" });
  const r = await api(s.forge, "POST", "/repos/alice/widgets/hooks", {
    token: s.alice,
    body: { type: "forgejo", config: { url: `${rx.url}/hook`, content_type: "json", secret: SECRET }, events: ["issues", "issue_comment"], active: true },
  });
  expect(r.status).toBe(201);
});
afterEach(async () => {
  await s.forge.close();
  await rx.close();
});

/** Same keys in the same order, recursively for the objects the example shows. */
function keys(v: unknown): string[] {
  return Object.keys(asRecord(v));
}

function payloadOf(i: number): Record<string, unknown> {
  return asRecord(JSON.parse(rx.received[i]!.raw.toString("utf8")));
}

describe("webhooks", () => {
  it("delivers issue_comment created with every Forgejo/Gitea/Gogs/GitHub header and valid signatures", async () => {
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "Hook <me>", labels: ["bug"] });
    const post = await api(s.forge, "POST", `/repos/alice/widgets/issues/${issue.number}/comments`, { token: s.bob, body: { body: "/status <b>now</b> & later" } });
    expect(post.status).toBe(201);
    await s.forge.admin.idle();
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0]!;
    const h = got.headers;
    expect(h["content-type"]).toBe("application/json");
    const uuid = h["x-forgejo-delivery"];
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    for (const p of ["x-forgejo", "x-gitea", "x-gogs", "x-github"]) {
      expect(h[`${p}-delivery`], p).toBe(uuid);
      expect(h[`${p}-event`], p).toBe("issue_comment");
      expect(h[`${p}-event-type`], p).toBe("issue_comment");
    }
    const sha256 = createHmac("sha256", SECRET).update(got.raw).digest("hex");
    const sha1 = createHmac("sha1", SECRET).update(got.raw).digest("hex");
    for (const p of ["x-forgejo", "x-gitea", "x-gogs"]) expect(h[`${p}-signature`], p).toBe(sha256);
    expect(h["x-hub-signature-256"]).toBe(`sha256=${sha256}`);
    expect(h["x-hub-signature"]).toBe(`sha1=${sha1}`);

    // Go json.MarshalIndent with 2 spaces and HTML escaping.
    const text = got.raw.toString("utf8");
    expect(text.startsWith('{\n  "action": "created",\n  "issue": {\n')).toBe(true);
    expect(text).toContain("\\u003cb\\u003enow\\u003c/b\\u003e \\u0026 later");
    expect(text).not.toContain("<b>");

    const p = payloadOf(0);
    expect(keys(p)).toEqual(keys(example));
    for (const k of ["issue", "comment", "repository", "sender"]) expect(keys(p[k]), k).toEqual(keys(example[k]));
    expect(keys(asRecord(p.issue).user)).toEqual(keys(asRecord(example.issue).user));
    expect(keys(asRecord(p.issue).repository)).toEqual(keys(asRecord(example.issue).repository));
    expect(keys((asRecord(p.issue).labels as unknown[])[0])).toEqual(keys((asRecord(example.issue).labels as unknown[])[0]));
    expect(keys(asRecord(p.comment).user)).toEqual(keys(asRecord(example.comment).user));
    expect(keys(asRecord(p.repository).owner)).toEqual(keys(asRecord(example.repository).owner));
    expect(keys(asRecord(p.repository).permissions)).toEqual(keys(asRecord(example.repository).permissions));
    const comment = asRecord(p.comment);
    expect(comment.id).toBe(asRecord(post.json).id);
    expect(comment.body).toBe("/status <b>now</b> & later");
    expect(asRecord(comment.user).email).toBe("bob@noreply.127.0.0.1");
    expect(asRecord(p.sender).login).toBe("bob");
    expect(p.is_pull).toBe(false);
    expect(asRecord(p.issue).comments).toBe(1);

    const rec = s.forge.admin.deliveries();
    expect(rec).toHaveLength(1);
    expect(rec[0]).toMatchObject({ ok: true, status: 200, event: "issue_comment", action: "created", uuid });
    expect(rec[0]!.body).toBe(text);
  });

  it("edited carries changes.body.from; deleted is delivered; order is kept per hook", async () => {
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "edit" });
    const base = `/repos/alice/widgets/issues`;
    const c = asRecord((await api(s.forge, "POST", `${base}/${issue.number}/comments`, { token: s.bob, body: { body: "v1" } })).json);
    await api(s.forge, "PATCH", `${base}/comments/${String(c.id)}`, { token: s.bob, body: { body: "v2" } });
    await api(s.forge, "DELETE", `${base}/comments/${String(c.id)}`, { token: s.bob });
    await s.forge.admin.idle();
    expect(rx.received.map((_, i) => payloadOf(i).action)).toEqual(["created", "edited", "deleted"]);
    const edited = payloadOf(1);
    expect(edited.changes).toEqual({ body: { from: "v1" } });
    expect(keys(edited)).toEqual(["action", "issue", "comment", "changes", "repository", "sender", "is_pull"]);
    expect(asRecord(edited.comment).body).toBe("v2");
    expect(asRecord(payloadOf(2).comment).id).toBe(c.id);
    expect("changes" in payloadOf(0)).toBe(false);
  });

  it("sends issues events: opened, closed and label_updated (X-GitHub-Event issues, type issue_label)", async () => {
    const created = asRecord((await api(s.forge, "POST", "/repos/alice/widgets/issues", { token: s.bob, body: { title: "via api" } })).json);
    const n = Number(created.number);
    await api(s.forge, "POST", `/repos/alice/widgets/issues/${n}/labels`, { token: s.alice, body: { labels: ["bug"] } });
    await api(s.forge, "PATCH", `/repos/alice/widgets/issues/${n}`, { token: s.alice, body: { state: "closed" } });
    await s.forge.admin.idle();
    const seen = rx.received.map((r, i) => [r.headers["x-github-event"], r.headers["x-forgejo-event-type"], payloadOf(i).action]);
    expect(seen).toEqual([
      ["issues", "issues", "opened"],
      ["issues", "issue_label", "label_updated"],
      ["issues", "issues", "closed"],
    ]);
    const opened = payloadOf(0);
    expect(keys(opened)).toEqual(["action", "number", "issue", "repository", "sender", "commit_id"]);
    expect(opened.number).toBe(n);
  });

  it("records a delivery that exceeds the timeout as failed", async () => {
    const r = await api(s.forge, "POST", "/repos/alice/widgets/hooks", {
      token: s.alice,
      body: { type: "gitea", config: { url: `${rx.url}/hang`, content_type: "json" }, events: ["issue_comment"], active: true },
    });
    const hangId = asRecord(r.json).id;
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "slow" });
    const started = Date.now();
    await api(s.forge, "POST", `/repos/alice/widgets/issues/${issue.number}/comments`, { token: s.bob, body: { body: "x" } });
    await s.forge.admin.idle();
    const rec = s.forge.admin.deliveries().find((d) => d.hookId === hangId)!;
    expect(rec.ok).toBe(false);
    expect(rec.status).toBeNull();
    expect(rec.error).toMatch(/timeout/);
    expect(rec.durationMs).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(3000);
    // No secret: empty signatures, like Forgejo.
    const hung = rx.received.find((x) => x.path.startsWith("/hang"))!;
    expect(hung.headers["x-gitea-signature"]).toBe("");
    expect(hung.headers["x-hub-signature-256"]).toBe("sha256=");
  });

  it('inactive hooks and hooks without the event get nothing; "issues" includes issue_comment', async () => {
    s.forge.admin.setWebhookTimeout(5000); // the 200 ms of beforeEach is for the timeout test; a loaded machine can exceed it
    await api(s.forge, "POST", "/repos/alice/widgets/hooks", {
      token: s.alice,
      body: { type: "forgejo", config: { url: `${rx.url}/inactive`, content_type: "json" }, events: ["issue_comment"] },
    });
    await api(s.forge, "POST", "/repos/alice/widgets/hooks", {
      token: s.alice,
      body: { type: "forgejo", config: { url: `${rx.url}/issues-only`, content_type: "json" }, events: ["issues_only"], active: true },
    });
    // "issues" turns on every issue sub-event, issue_comment included (routers/api/v1/utils/hook.go:155-157, :196-200).
    const all = await api(s.forge, "POST", "/repos/alice/widgets/hooks", {
      token: s.alice,
      body: { type: "forgejo", config: { url: `${rx.url}/issues-all`, content_type: "json" }, events: ["issues"], active: true },
    });
    expect((all.json as { events: string[] }).events).toEqual(["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"]);
    const issue = s.forge.admin.createIssue("alice", "widgets", { title: "quiet" });
    await api(s.forge, "POST", `/repos/alice/widgets/issues/${issue.number}/comments`, { token: s.bob, body: { body: "x" } });
    await s.forge.admin.idle();
    expect(rx.received.map((r) => r.path).sort()).toEqual(["/hook", "/issues-all"]);
  });
});
