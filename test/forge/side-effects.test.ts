/**
 * Side-effect conformance: for every write route of the embedded forge, what the write changes besides
 * itself, as Forgejo v13.0.5's source does it (each case cites it):
 * - the issue's and the comment's updated_at before and after, with a clock the test moves by whole
 *   seconds (so a whole-second `since` would see the change);
 * - the content versions (admin.contentVersion / commentContentVersion; the API does not show them);
 * - every webhook sent: event, action, `changes`, sender, and the payload as it was when sent.
 * A write route added to the router without a case here fails the first test, as a route without a shape
 * case fails test/forge/clients.conformance.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FORGE_ROUTES } from "../../src/embedded-forge/index.ts";
import { api, asArray, asRecord, type Reply, type Seeded, seededForge } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

const T0 = Date.parse("2026-03-01T10:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const LATER = iso(T0 + 5000);

interface Sent {
  event: string;
  type: string;
  action: string;
  changes: unknown;
  sender: string;
  payload: Record<string, unknown>;
}

interface World {
  s: Seeded;
  /** Ids of the seeded comment on #1 (by alice, "a note"). */
  commentId: number;
  /** Ids of the seeded attachments: one on #1, one on the comment. */
  issueAssetId: number;
  commentAssetId: number;
  hookId: number;
  call(method: string, path: string, opts?: { token?: string; body?: unknown }): Promise<Reply>;
  upload(path: string, name: string, bytes: string): Promise<Reply>;
}

interface Snapshot {
  issue: string;
  other: string;
  comment: string | null;
  issueVersion: number;
  commentVersion: number | null;
}

interface Effect {
  /** Forgejo source of the behaviour, file:line at v13.0.5. */
  source: string;
  status: number;
  /** Does issue #1's updated_at become the request's time? */
  issueMoves: boolean;
  /** Does the seeded comment's updated_at become the request's time? (null: the comment is gone) */
  commentMoves?: boolean | null;
  /** Content version deltas. */
  issueVersion?: number;
  commentVersion?: number;
  /** Does issue #2's updated_at move (cross-references)? */
  otherMoves?: boolean;
  hooks: Array<Pick<Sent, "event" | "type" | "action" | "changes" | "sender">>;
  /** Further checks on the payloads as sent. */
  payloads?: (sent: Sent[]) => void;
}

interface Case extends Effect {
  act(w: World): Promise<Reply>;
}

const ISSUE = "/repos/alice/widgets/issues/1";
const COMMENT = (w: World) => `/repos/alice/widgets/issues/comments/${w.commentId}`;
const body = (p: Record<string, unknown>) => asRecord(p.issue).body;
const state = (p: Record<string, unknown>) => asRecord(p.issue).state;

const CASES: Record<string, Case> = {
  "POST /user/repos": {
    source: "routers/api/v1/repo/repo.go CreateUserRepo (no issue touched; repository webhooks are not implemented)",
    act: (w) => w.call("POST", "/user/repos", { body: { name: "more" } }),
    status: 201,
    issueMoves: false,
    hooks: [],
  },
  "POST /repos/{owner}/{repo}/issues": {
    source: "routers/api/v1/repo/issue.go:735-756; services/issue/issue.go:50-53",
    act: (w) => w.call("POST", "/repos/alice/widgets/issues", { body: { title: "new", body: "continues #2", labels: [1], closed: true } }),
    status: 201,
    issueMoves: false,
    otherMoves: true,
    hooks: [
      { event: "issues", type: "issues", action: "opened", changes: undefined, sender: "alice" },
      { event: "issues", type: "issue_label", action: "label_updated", changes: undefined, sender: "alice" },
      { event: "issues", type: "issues", action: "closed", changes: undefined, sender: "alice" },
    ],
    payloads: (sent) => {
      // NewIssue notifies before ChangeStatus runs: `opened` shows the issue open, with its labels.
      expect(sent.map((x) => state(x.payload))).toEqual(["open", "open", "closed"]);
      expect(asArray(asRecord(sent[0]?.payload.issue).labels)).toHaveLength(1);
    },
  },
  "PATCH /repos/{owner}/{repo}/issues/{index}": {
    source: "routers/api/v1/repo/issue.go:837-939; services/issue/issue.go:62-100; services/issue/content.go:15-25",
    act: (w) => w.call("PATCH", ISSUE, { body: { title: "renamed", body: "new box", state: "closed" } }),
    status: 201,
    issueMoves: true,
    issueVersion: 1,
    hooks: [
      { event: "issues", type: "issues", action: "edited", changes: { title: { from: "state" } }, sender: "alice" },
      { event: "issues", type: "issues", action: "edited", changes: { body: { from: "the box" } }, sender: "alice" },
      { event: "issues", type: "issues", action: "closed", changes: undefined, sender: "alice" },
    ],
    payloads: (sent) => {
      // Each payload is the issue at its step (PrepareWebhooks serializes it, services/webhook/webhook.go:194).
      expect(sent.map((x) => [asRecord(x.payload.issue).title, body(x.payload), state(x.payload)])).toEqual([
        ["renamed", "the box", "open"],
        ["renamed", "new box", "open"],
        ["renamed", "new box", "closed"],
      ]);
    },
  },
  "DELETE /repos/{owner}/{repo}/issues/{index}": {
    source: "routers/api/v1/repo/issue.go:954-998 (DeleteIssue; no webhook for a deleted issue)",
    act: (w) => w.call("DELETE", "/repos/alice/widgets/issues/2"),
    status: 204,
    issueMoves: false,
    hooks: [],
  },
  "POST /repos/{owner}/{repo}/issues/{index}/comments": {
    source: "models/issues/comment.go:879, :906-921; services/webhook/notifier.go:406-434",
    act: (w) => w.call("POST", `${ISSUE}/comments`, { body: { body: "see #2" } }),
    status: 201,
    issueMoves: true,
    otherMoves: true,
    hooks: [{ event: "issue_comment", type: "issue_comment", action: "created", changes: undefined, sender: "alice" }],
  },
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}": {
    source: "routers/api/v1/repo/issue_comment.go:602-634; models/issues/comment.go:1150-1192 (the issue is not touched)",
    act: (w) => w.call("PATCH", COMMENT(w), { body: { body: "a note, edited" } }),
    status: 200,
    issueMoves: false,
    commentMoves: true,
    commentVersion: 1,
    hooks: [{ event: "issue_comment", type: "issue_comment", action: "edited", changes: { body: { from: "a note" } }, sender: "alice" }],
  },
  "DELETE /repos/{owner}/{repo}/issues/comments/{id}": {
    source: "services/webhook/notifier.go:436-474 (the issue loaded before the delete)",
    act: (w) => w.call("DELETE", COMMENT(w)),
    status: 204,
    issueMoves: false,
    commentMoves: null,
    hooks: [{ event: "issue_comment", type: "issue_comment", action: "deleted", changes: undefined, sender: "alice" }],
    payloads: (sent) => expect(asRecord(sent[0]?.payload.issue).comments).toBe(1),
  },
  "POST /repos/{owner}/{repo}/issues/{index}/assets": {
    source: "routers/api/v1/repo/issue_attachment.go:206-228; models/issues/issue_update.go:262-311",
    act: (w) => w.upload(`${ISSUE}/assets`, "a.txt", "x"),
    status: 201,
    issueMoves: true,
    issueVersion: 1,
    hooks: [{ event: "issues", type: "issues", action: "edited", changes: { body: { from: "the box" } }, sender: "alice" }],
  },
  "PATCH /repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}": {
    source: "routers/api/v1/repo/issue_attachment.go:234-295 (UpdateAttachment only)",
    act: (w) => w.call("PATCH", `${ISSUE}/assets/${w.issueAssetId}`, { body: { name: "renamed.txt" } }),
    status: 201,
    issueMoves: false,
    hooks: [],
  },
  "DELETE /repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}": {
    source: "routers/api/v1/repo/issue_attachment.go:298-346 (DeleteAttachment only)",
    act: (w) => w.call("DELETE", `${ISSUE}/assets/${w.issueAssetId}`),
    status: 204,
    issueMoves: false,
    hooks: [],
  },
  "POST /repos/{owner}/{repo}/issues/comments/{id}/assets": {
    source: "routers/api/v1/repo/issue_comment_attachment.go:207-233; services/issue/comments.go:78-118",
    act: (w) => w.upload(`${COMMENT(w)}/assets`, "b.txt", "y"),
    status: 201,
    issueMoves: false,
    commentMoves: true,
    commentVersion: 1,
    hooks: [{ event: "issue_comment", type: "issue_comment", action: "edited", changes: { body: { from: "a note" } }, sender: "alice" }],
  },
  "PATCH /repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}": {
    source: "routers/api/v1/repo/issue_comment_attachment.go:239-297 (UpdateAttachment only)",
    act: (w) => w.call("PATCH", `${COMMENT(w)}/assets/${w.commentAssetId}`, { body: { name: "r.txt" } }),
    status: 201,
    issueMoves: false,
    commentMoves: false,
    hooks: [],
  },
  "DELETE /repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}": {
    source: "routers/api/v1/repo/issue_comment_attachment.go:300-346 (DeleteAttachment only)",
    act: (w) => w.call("DELETE", `${COMMENT(w)}/assets/${w.commentAssetId}`),
    status: 204,
    issueMoves: false,
    commentMoves: false,
    hooks: [],
  },
  "POST /repos/{owner}/{repo}/issues/{index}/labels": {
    source: "services/issue/label.go:37-44; models/issues/issue_label.go:122-148 (the label is already there: nothing moves, the webhook is sent)",
    act: (w) => w.call("POST", `${ISSUE}/labels`, { body: { labels: [1] } }),
    status: 200,
    issueMoves: false,
    hooks: [{ event: "issues", type: "issue_label", action: "label_updated", changes: undefined, sender: "alice" }],
  },
  "PUT /repos/{owner}/{repo}/issues/{index}/labels": {
    source: "services/issue/label.go:71-83; models/issues/issue_label.go:442-510",
    act: (w) => w.call("PUT", `${ISSUE}/labels`, { body: { labels: [2] } }),
    status: 200,
    issueMoves: true,
    hooks: [{ event: "issues", type: "issue_label", action: "label_updated", changes: undefined, sender: "alice" }],
  },
  "DELETE /repos/{owner}/{repo}/issues/{index}/labels": {
    source: "services/issue/label.go:15-24; models/issues/issue_label.go:353-399",
    act: (w) => w.call("DELETE", `${ISSUE}/labels`),
    status: 204,
    issueMoves: true,
    hooks: [{ event: "issues", type: "issue_label", action: "label_cleared", changes: undefined, sender: "alice" }],
  },
  "POST /repos/{owner}/{repo}/labels": {
    source: "routers/api/v1/repo/label.go CreateLabel (no issue touched, no issue webhook)",
    act: (w) => w.call("POST", "/repos/alice/widgets/labels", { body: { name: "docs", color: "#0000ff" } }),
    status: 201,
    issueMoves: false,
    hooks: [],
  },
  "PUT /repos/{owner}/{repo}/collaborators/{collaborator}": {
    source: "routers/api/v1/repo/collaborators.go AddOrUpdateCollaborator (no issue touched)",
    act: (w) => w.call("PUT", "/repos/alice/widgets/collaborators/bob", { body: { permission: "write" } }),
    status: 204,
    issueMoves: false,
    hooks: [],
  },
  "DELETE /repos/{owner}/{repo}/collaborators/{collaborator}": {
    source: "routers/api/v1/repo/collaborators.go DeleteCollaborator (no issue touched)",
    act: (w) => w.call("DELETE", "/repos/alice/widgets/collaborators/carol"),
    status: 204,
    issueMoves: false,
    hooks: [],
  },
  "POST /repos/{owner}/{repo}/hooks": {
    source: "routers/api/v1/repo/hook.go CreateHook (no issue touched)",
    act: (w) => w.call("POST", "/repos/alice/widgets/hooks", { body: { type: "forgejo", config: { url: "http://127.0.0.1:9/x", content_type: "json" }, active: false } }),
    status: 201,
    issueMoves: false,
    hooks: [],
  },
  "PATCH /repos/{owner}/{repo}/hooks/{id}": {
    source: "routers/api/v1/repo/hook.go EditHook (no issue touched)",
    act: (w) => w.call("PATCH", `/repos/alice/widgets/hooks/${w.hookId}`, { body: { active: true } }),
    status: 200,
    issueMoves: false,
    hooks: [],
  },
  "DELETE /repos/{owner}/{repo}/hooks/{id}": {
    source: "routers/api/v1/repo/hook.go DeleteHook (no issue touched)",
    act: (w) => w.call("DELETE", `/repos/alice/widgets/hooks/${w.hookId}`),
    status: 204,
    issueMoves: false,
    hooks: [],
  },
};

let forge: Seeded | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await forge?.forge.close();
  await receiver?.close();
  forge = receiver = undefined;
});

/**
 * alice/widgets: #1 "state" (body "the box", label "bug", an attachment), #2 "other", a comment "a note"
 * on #1 with an attachment, carol a collaborator, a hook to a receiver; the clock at T0 for all of it.
 */
async function world(): Promise<{ w: World; tick(): void }> {
  let now = T0;
  const s = await seededForge({ clock: () => now });
  forge = s;
  receiver = await startReceiver();
  const a = s.forge.admin;
  a.createLabel("alice", "widgets", { name: "bug", color: "#ee0701" });
  a.createLabel("alice", "widgets", { name: "prio", color: "#00ff00" });
  a.createUser("carol");
  a.addCollaborator("alice", "widgets", "carol", "write");
  a.createIssue("alice", "widgets", { title: "state", body: "the box", labels: ["bug"] });
  a.createIssue("alice", "widgets", { title: "other" });
  const call = (method: string, path: string, opts: { token?: string; body?: unknown } = {}) => api(s.forge, method, path, { token: s.alice, ...opts });
  const upload = async (path: string, name: string, bytes: string): Promise<Reply> =>
    api(s.forge, "POST", path, {
      token: s.alice,
      rawBody: `--b\r\nContent-Disposition: form-data; name="attachment"; filename="${name}"\r\n\r\n${bytes}\r\n--b--\r\n`,
      contentType: "multipart/form-data; boundary=b",
    });
  const comment = asRecord((await call("POST", `${ISSUE}/comments`, { body: { body: "a note" } })).json);
  const commentId = Number(comment.id);
  const issueAsset = asRecord((await upload(`${ISSUE}/assets`, "i.txt", "i")).json);
  const commentAsset = asRecord((await upload(`/repos/alice/widgets/issues/comments/${commentId}/assets`, "c.txt", "c")).json);
  const hook = { type: "forgejo", config: { url: `${receiver.url}/hook`, content_type: "json" }, events: ["issues", "issue_comment"], active: true };
  const hookId = Number(asRecord((await call("POST", "/repos/alice/widgets/hooks", { body: hook })).json).id);
  await a.idle();
  return {
    w: { s, commentId, issueAssetId: Number(issueAsset.id), commentAssetId: Number(commentAsset.id), hookId, call, upload },
    tick: () => {
      now = T0 + 5000;
    },
  };
}

async function snapshot(w: World): Promise<Snapshot> {
  const get = async (p: string) => {
    const r = await api(w.s.forge, "GET", p);
    return r.status === 200 ? asRecord(r.json) : null;
  };
  const comment = await get(`/repos/alice/widgets/issues/comments/${w.commentId}`);
  return {
    issue: String((await get(ISSUE))?.updated_at),
    other: String((await get("/repos/alice/widgets/issues/2"))?.updated_at),
    comment: comment ? String(comment.updated_at) : null,
    issueVersion: w.s.forge.admin.contentVersion("alice", "widgets", 1),
    commentVersion: comment ? w.s.forge.admin.commentContentVersion(w.commentId) : null,
  };
}

async function sentSince(w: World, from: number): Promise<Sent[]> {
  await w.s.forge.admin.idle();
  return w.s.forge.admin
    .deliveries()
    .slice(from)
    .map((d) => {
      const payload = asRecord(JSON.parse(d.body));
      return { event: d.event, type: d.eventType, action: d.action, changes: payload.changes, sender: String(asRecord(payload.sender).login), payload };
    });
}

describe("side effects of every write route (Forgejo v13.0.5)", () => {
  it("has a case for every write route of the router (a new write route without one fails here)", () => {
    const writes = FORGE_ROUTES.filter((r) => r.method !== "GET").map((r) => r.id);
    expect(Object.keys(CASES).sort()).toEqual([...writes].sort());
    for (const [id, c] of Object.entries(CASES)) expect(c.source, id).toMatch(/\.go/);
  });

  it.each(Object.keys(CASES))("%s", async (id) => {
    const c = CASES[id] as Case;
    const { w, tick } = await world();
    const before = await snapshot(w);
    const from = w.s.forge.admin.deliveries().length;
    tick();
    const reply = await c.act(w);
    expect(reply.status, reply.text).toBe(c.status);
    const after = await snapshot(w);
    const sent = await sentSince(w, from);
    expect(before.issue).toBe(iso(T0));
    expect(after.issue, "issue #1 updated_at").toBe(c.issueMoves ? LATER : before.issue);
    if (id !== "DELETE /repos/{owner}/{repo}/issues/{index}") expect(after.other, "issue #2 updated_at").toBe(c.otherMoves ? LATER : before.other);
    if (c.commentMoves === null) expect(after.comment).toBeNull();
    else expect(after.comment, "comment updated_at").toBe(c.commentMoves ? LATER : before.comment);
    expect(after.issueVersion - before.issueVersion, "issue content version").toBe(c.issueVersion ?? 0);
    if (after.commentVersion !== null && before.commentVersion !== null) expect(after.commentVersion - before.commentVersion, "comment content version").toBe(c.commentVersion ?? 0);
    expect(sent.map(({ event, type, action, changes, sender }) => ({ event, type, action, changes, sender }))).toEqual(c.hooks);
    // Every issue payload's repository.permissions is the poster's; every payload's times are whole seconds.
    for (const x of sent) expect(JSON.stringify(x.payload)).not.toMatch(/T\d\d:\d\d:\d\d\.\d+Z/);
    c.payloads?.(sent);
  });
});

describe("rows of issue 29, tried over HTTP", () => {
  it("PATCH with an unchanged body still moves updated_at, raises the version and sends edited (row 5)", async () => {
    const { w, tick } = await world();
    const from = w.s.forge.admin.deliveries().length;
    tick();
    expect((await w.call("PATCH", ISSUE, { body: { body: "the box" } })).status).toBe(201);
    expect((await snapshot(w)).issue).toBe(LATER);
    expect(w.s.forge.admin.contentVersion("alice", "widgets", 1)).toBe(2); // 1 from the seeded upload
    expect((await sentSince(w, from)).map((x) => [x.action, x.changes])).toEqual([["edited", { body: { from: "the box" } }]]);
  });

  it("labels: an exclusive scoped label removes the others of its scope; a no-op add still sends label_updated (row 8)", async () => {
    const { w } = await world();
    const a = w.s.forge.admin;
    a.createLabel("alice", "widgets", { name: "prio/high", color: "#ff0000", exclusive: true });
    a.createLabel("alice", "widgets", { name: "prio/low", color: "#00ff00", exclusive: true });
    const names = async () => asArray((await w.call("GET", `${ISSUE}/labels`)).json).map((l) => asRecord(l).name);
    await w.call("POST", `${ISSUE}/labels`, { body: { labels: ["prio/high"] } });
    await w.call("POST", `${ISSUE}/labels`, { body: { labels: ["prio/low"] } });
    expect(await names()).toEqual(["bug", "prio/low"]);
    // PUT keeps the last of one scope (RemoveDuplicateExclusiveLabels).
    await w.call("PUT", `${ISSUE}/labels`, { body: { labels: ["prio/high", "prio/low", "bug"] } });
    expect(await names()).toEqual(["bug", "prio/low"]);
  });

  it("a mention of #N moves N's updated_at once (no webhook: see the comment case); re-saving does not move it again (row 10)", async () => {
    let now = T0;
    const s = await seededForge({ clock: () => now });
    forge = s;
    s.forge.admin.createIssue("alice", "widgets", { title: "old" });
    const other = async () => String(asRecord((await api(s.forge, "GET", "/repos/alice/widgets/issues/1")).json).updated_at);
    now = T0 + 3000;
    const created = asRecord((await api(s.forge, "POST", "/repos/alice/widgets/issues", { token: s.alice, body: { title: "new", body: "continues #1" } })).json);
    expect(await other()).toBe(iso(T0 + 3000));
    now = T0 + 9000;
    await api(s.forge, "PATCH", `/repos/alice/widgets/issues/${String(created.number)}`, { token: s.alice, body: { body: "continues #1, still" } });
    expect(await other()).toBe(iso(T0 + 3000));
    // A mention in code is not a reference.
    await api(s.forge, "POST", `/repos/alice/widgets/issues/${String(created.number)}/comments`, { token: s.alice, body: { body: "`#1` and\n```\n#1\n```" } });
    expect(await other()).toBe(iso(T0 + 3000));
  });

  it("payload details: the poster's permissions, the count before a delete, the admin's updated_at (row 11)", async () => {
    const { w, tick } = await world();
    const bobs = asRecord((await w.call("POST", "/repos/alice/widgets/issues", { token: w.s.bob, body: { title: "bob's" } })).json);
    await w.s.forge.admin.idle();
    const from = w.s.forge.admin.deliveries().length;
    await w.call("PATCH", `/repos/alice/widgets/issues/${String(bobs.number)}`, { body: { title: "bob's, renamed" } });
    const [edited] = await sentSince(w, from);
    // alice (owner) edited, bob posted: permissions are bob's (read only).
    expect(asRecord(asRecord(edited?.payload.repository).permissions)).toMatchObject({ admin: false, push: false, pull: true });
    expect(edited?.sender).toBe("alice");
    tick();
    // An admin's updated_at is honoured (SetIssueUpdateDate); a non-admin's answers 403.
    const at = iso(T0 + 2000);
    expect((await w.call("PATCH", ISSUE, { body: { body: "dated", updated_at: at } })).status).toBe(201);
    expect((await snapshot(w)).issue).toBe(at);
    const denied = await w.call("PATCH", `/repos/alice/widgets/issues/${String(bobs.number)}`, { token: w.s.bob, body: { body: "x", updated_at: at } });
    expect([denied.status, asRecord(denied.json).message]).toEqual([403, "user needs to have admin or owner right"]);
    expect((await w.call("PATCH", ISSUE, { body: { body: "future", updated_at: iso(T0 + 60_000) } })).status).toBe(403);
  });

  it("a whole-second since sees a comment edit on the comment list, not on the issue list (row 7)", async () => {
    const { w, tick } = await world();
    tick();
    await w.call("PATCH", COMMENT(w), { body: { body: "edited later" } });
    const since = `since=${encodeURIComponent(LATER)}`;
    expect(asArray((await w.call("GET", `${ISSUE}/comments?${since}`)).json)).toHaveLength(1);
    expect(asArray((await w.call("GET", `/repos/alice/widgets/issues?${since}`)).json)).toHaveLength(0);
  });
});
