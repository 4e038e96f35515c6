/**
 * What an upload changes besides the attachment, as Forgejo v13.0.5 does it (routers/api/v1/repo/
 * issue_attachment.go:170-231, issue_comment_attachment.go:167-236), and which files it refuses
 * ([attachment] ALLOWED_TYPES, services/context/upload/upload.go:37-75).
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ATTACHMENT_ALLOWED_TYPES, type ForgeOptions } from "../../src/embedded-forge/index.ts";
import { detectContentType, uploadAllowed } from "../../src/embedded-forge/upload-verify.ts";
import { api, asRecord, seededForge, type Seeded } from "./helpers.ts";
import { startReceiver, type Receiver } from "./receiver.ts";

let s: Seeded | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await s?.forge.close();
  await receiver?.close();
  s = receiver = undefined;
});

const T0 = Date.parse("2026-03-01T10:00:00Z");

/** alice/widgets with issue #1 (body "the box") at T0, a hook to a receiver, and a clock the test moves. */
async function world(opts: ForgeOptions = {}) {
  let now = T0;
  s = await seededForge({ ...opts, clock: () => now });
  receiver = await startReceiver();
  const f = s.forge;
  f.admin.createIssue("alice", "widgets", { title: "state", body: "the box" });
  const hook = { type: "forgejo", config: { url: `${receiver.url}/hook`, content_type: "json" }, events: ["issues", "issue_comment"], active: true };
  expect((await api(f, "POST", "/repos/alice/widgets/hooks", { token: s.alice, body: hook })).status).toBe(201);
  return {
    s,
    tick: (sec: number) => {
      now += sec * 1000;
    },
    issue: async () => asRecord((await api(f, "GET", "/repos/alice/widgets/issues/1")).json),
    deliveries: async () => {
      await f.admin.idle();
      return f.admin.deliveries().map((d) => ({ event: d.event, action: d.action, payload: asRecord(JSON.parse(d.body)) }));
    },
  };
}

/** A multipart upload with the exact bytes given (the api() helper sends strings, which fetch encodes as UTF-8). */
async function upload(s: Seeded, path: string, name: string, bytes: string | Buffer, token = s.alice): Promise<{ status: number; json: unknown }> {
  const head = `--b\r\nContent-Disposition: form-data; name="attachment"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from("\r\n--b--\r\n")]);
  const res = await fetch(s.forge.apiUrl + path, { method: "POST", headers: { Authorization: `token ${token}`, "Content-Type": "multipart/form-data; boundary=b" }, body });
  return { status: res.status, json: await res.json() };
}

describe("POST /issues/{index}/assets changes the issue as ChangeContent does", () => {
  it("moves updated_at, raises the content version, sends issues/edited with the unchanged body, and dates the attachment now", async () => {
    const w = await world();
    const before = await w.issue();
    const version = w.s.forge.admin.contentVersion("alice", "widgets", 1);
    w.tick(5);
    const r = await upload(w.s, "/repos/alice/widgets/issues/1/assets", "archive.jsonl.gz", "xyz");
    expect(r.status).toBe(201);
    // created_at is the upload time (xorm `created` overwrites CreatedUnix: issue.UpdatedUnix).
    expect(asRecord(r.json).created_at).toBe("2026-03-01T10:00:05Z");
    const after = await w.issue();
    expect([before.updated_at, after.updated_at, after.body]).toEqual(["2026-03-01T10:00:00Z", "2026-03-01T10:00:05Z", "the box"]);
    expect(w.s.forge.admin.contentVersion("alice", "widgets", 1)).toBe(version + 1);
    const sent = await w.deliveries();
    expect(sent.map((d) => [d.event, d.action])).toEqual([["issues", "edited"]]);
    expect(sent[0]!.payload.changes).toEqual({ body: { from: "the box" } });
    expect(asRecord(sent[0]!.payload.sender).login).toBe("alice");
    expect(asRecord(sent[0]!.payload.issue).updated_at).toBe("2026-03-01T10:00:05Z");
    // A whole-second `since` sees the upload.
    const since = await api(w.s.forge, "GET", "/repos/alice/widgets/issues?since=2026-03-01T10:00:05Z");
    expect((since.json as unknown[]).length).toBe(1);
  });

  it("answers 500 and keeps the attachment when the body changed between the read and ChangeContent", async () => {
    const w = await world();
    // A person's edit landing in the window moves the version on.
    w.s.forge.admin.setSeams({ afterAttachmentStored: () => w.s.forge.admin.editIssueBody("alice", "widgets", 1, "edited meanwhile") });
    const r = await upload(w.s, "/repos/alice/widgets/issues/1/assets", "a.txt", "x");
    expect([r.status, asRecord(r.json).message]).toEqual([500, ""]);
    const listed = await api(w.s.forge, "GET", "/repos/alice/widgets/issues/1/assets");
    expect((listed.json as unknown[]).length).toBe(1);
    expect((await w.deliveries()).map((d) => d.action)).toEqual([]);
  });
});

describe("POST /issues/comments/{id}/assets changes the comment as UpdateComment does", () => {
  it("moves the comment's updated_at and version, not the issue's, and sends issue_comment/edited", async () => {
    const w = await world();
    const c = asRecord((await api(w.s.forge, "POST", "/repos/alice/widgets/issues/1/comments", { token: s!.alice, body: { body: "a note" } })).json);
    const cid = Number(c.id);
    const issueBefore = await w.issue();
    await w.deliveries();
    const already = w.s.forge.admin.deliveries().length;
    w.tick(7);
    const r = await upload(w.s, `/repos/alice/widgets/issues/comments/${cid}/assets`, "log.txt", "hello");
    expect(r.status).toBe(201);
    expect(asRecord(r.json).created_at).toBe("2026-03-01T10:00:07Z");
    const comment = asRecord((await api(w.s.forge, "GET", `/repos/alice/widgets/issues/comments/${cid}`)).json);
    expect([comment.body, comment.updated_at, (comment.assets as unknown[]).length]).toEqual(["a note", "2026-03-01T10:00:07Z", 1]);
    expect((await w.issue()).updated_at).toBe(issueBefore.updated_at);
    expect(w.s.forge.admin.commentContentVersion(cid)).toBe(1);
    const sent = (await w.deliveries()).slice(already);
    expect(sent.map((d) => [d.event, d.action])).toEqual([["issue_comment", "edited"]]);
    expect(sent[0]!.payload.changes).toEqual({ body: { from: "a note" } });
    expect(asRecord(sent[0]!.payload.comment).updated_at).toBe("2026-03-01T10:00:07Z");
    // The issue's own assets do not list the comment's (GetAttachmentsByIssueID: comment_id = 0).
    expect((await api(w.s.forge, "GET", "/repos/alice/widgets/issues/1/assets")).json).toEqual([]);
  });

  it("lets only a poster or admin who can write issues upload (403 otherwise)", async () => {
    const w = await world();
    const c = asRecord((await api(w.s.forge, "POST", "/repos/alice/widgets/issues/1/comments", { token: s!.bob, body: { body: "bob's" } })).json);
    // bob posted it, but cannot write issues: CanWriteIssuesOrPulls is required too.
    const r = await upload(w.s, `/repos/alice/widgets/issues/comments/${String(c.id)}/assets`, "b.txt", "b", s!.bob);
    expect([r.status, asRecord(r.json).message]).toEqual([403, "user should have permission to edit comment"]);
    expect((await upload(w.s, `/repos/alice/widgets/issues/comments/${String(c.id)}/assets`, "a.txt", "a")).status).toBe(201);
  });
});

describe("[attachment] ALLOWED_TYPES", () => {
  it("refuses with 422 a name whose extension is not allowed, on both upload routes, and stores nothing", async () => {
    const w = await world();
    const r = await upload(w.s, "/repos/alice/widgets/issues/1/assets", "archive.bin", "xyz");
    expect([r.status, asRecord(r.json).message]).toEqual([422, "This file extension or type is not allowed to be uploaded."]);
    expect((await upload(w.s, "/repos/alice/widgets/issues/1/assets", "no-extension", "xyz")).status).toBe(422);
    // ?name= is the stored name, and the one checked.
    expect((await upload(w.s, "/repos/alice/widgets/issues/1/assets?name=x.exe", "ok.txt", "xyz")).status).toBe(422);
    const c = asRecord((await api(w.s.forge, "POST", "/repos/alice/widgets/issues/1/comments", { token: s!.alice, body: { body: "n" } })).json);
    expect((await upload(w.s, `/repos/alice/widgets/issues/comments/${String(c.id)}/assets`, "page.html", "<html>")).status).toBe(422);
    expect((await api(w.s.forge, "GET", "/repos/alice/widgets/issues/1/assets")).json).toEqual([]);
    expect(w.s.forge.admin.contentVersion("alice", "widgets", 1)).toBe(0);
    const settings = asRecord((await api(w.s.forge, "GET", "/settings/attachment")).json);
    expect(settings.allowed_types).toBe(DEFAULT_ATTACHMENT_ALLOWED_TYPES);
  });

  it("is configurable: a MIME type or wildcard admits by sniffed content, */* admits everything", async () => {
    const w = await world({ attachmentAllowedTypes: "application/x-gzip, image/*" });
    const gz = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0]);
    expect((await upload(w.s, "/repos/alice/widgets/issues/1/assets", "data.bin", gz)).status).toBe(201);
    expect((await upload(w.s, "/repos/alice/widgets/issues/1/assets", "pic", Buffer.from("\x89PNG\r\n\x1a\n0000", "latin1"))).status).toBe(201);
    expect((await upload(w.s, "/repos/alice/widgets/issues/1/assets", "notes.txt", "plain")).status).toBe(422);
    expect(asRecord((await api(w.s.forge, "GET", "/settings/attachment")).json).allowed_types).toBe("application/x-gzip, image/*");
    expect(uploadAllowed(Buffer.from("x"), "any.thing", "*/*")).toBe(true);
    expect(uploadAllowed(Buffer.from("x"), "any.thing", "")).toBe(true);
    expect(uploadAllowed(Buffer.from("x"), "A.TXT", ".txt|.md")).toBe(true);
  });

  it("sniffs as net/http's DetectContentType does", () => {
    const cases: Array<[string | number[], string]> = [
      ["  <!DOCTYPE html><p>x", "text/html; charset=utf-8"],
      ["<?xml version", "text/xml; charset=utf-8"],
      ["%PDF-1.7", "application/pdf"],
      [[0x1f, 0x8b, 0x08, 0], "application/x-gzip"],
      [[0x50, 0x4b, 0x03, 0x04], "application/zip"],
      ["GIF89a....", "image/gif"],
      [[0xff, 0xd8, 0xff, 0xe0], "image/jpeg"],
      ["plain words\n", "text/plain; charset=utf-8"],
      [[1, 2, 3, 4], "application/octet-stream"],
      [[], "text/plain; charset=utf-8"],
    ];
    for (const [input, want] of cases) expect(detectContentType(typeof input === "string" ? Buffer.from(input, "latin1") : Uint8Array.from(input)), String(input)).toBe(want);
  });
});
