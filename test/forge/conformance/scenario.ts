/**
 * One scenario, run through each third-party client: every endpoint of the embedded forge, with its
 * success and its error answers, and a sample of endpoints it does not implement. Statuses are asserted
 * here; the bytes on the wire are checked against the swagger by check.ts.
 */
import { expect } from "vitest";
import type { Seeded } from "../helpers.ts";
import type { Driver, Reply } from "./drivers.ts";

const rec = (v: unknown): Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`not an object: ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
};
const arr = (v: unknown): unknown[] => {
  if (!Array.isArray(v)) throw new Error(`not an array: ${JSON.stringify(v)}`);
  return v;
};
const status = async (p: Promise<Reply>, want: number, what: string): Promise<Reply> => {
  const r = await p;
  expect(r.status, what).toBe(want);
  return r;
};

export async function runScenario(s: Seeded & { carol: string }, driver: Driver): Promise<void> {
  const anon = driver();
  const alice = driver(s.alice);
  const bob = driver(s.bob);
  const root = driver(s.root);
  const carol = driver(s.carol);
  const bad = driver("0".repeat(40));
  const [o, r] = ["alice", "widgets"];

  // Meta and settings.
  expect(rec((await status(anon.version(), 200, "version")).data).version).toBe("13.0.5+gitea-1.22.0");
  expect(rec((await status(anon.apiSettings(), 200, "settings/api")).data).max_response_items).toBe(50);
  expect(rec((await status(anon.attachmentSettings(), 200, "settings/attachment")).data).allowed_types).toContain(".gz");
  expect(rec((await status(alice.currentUser(), 200, "user")).data).login).toBe("alice");
  await status(anon.currentUser(), 401, "user anonymous");
  await status(bad.currentUser(), 401, "user with an unknown token");
  await status(bob.createRepo({ name: "tools" }), 201, "create repo");
  await status(bob.createRepo({ name: "tools" }), 409, "create repo twice");
  await status(bob.createRepo({}), 422, "create repo without a name");
  await status(anon.getRepo(o, r), 200, "get repo");
  await status(anon.getRepo(o, "nothing"), 404, "unknown repo");
  await status(bob.getRepo(o, "secret"), 404, "private repo hidden");

  // Labels (more than one page, so the list's paging is exercised).
  for (let i = 0; i < 3; i++) await status(alice.createLabel(o, r, { name: `l${i}`, color: "#00ff00" }), 201, "create label");
  await status(alice.createLabel(o, r, { name: "x", color: "nope" }), 422, "bad colour");
  await status(bob.createLabel(o, r, { name: "y", color: "#000000" }), 403, "label by a non-writer");
  const labels = arr((await status(anon.listLabels(o, r, { page: 1, limit: 2 }), 200, "list labels")).data);
  expect(labels).toHaveLength(2);
  expect(arr((await status(anon.listLabels(o, r, { page: 2, limit: 2 }), 200, "list labels page 2")).data).length).toBeGreaterThan(0);

  // Issues.
  const first = rec((await status(alice.createIssue(o, r, { title: "First <issue>", body: "Body & more" }), 201, "create issue")).data);
  const n = Number(first.number);
  await status(alice.createIssue(o, r, { body: "no title" }), 422, "issue without title");
  await status(anon.createIssue(o, r, { title: "anon" }), 401, "anonymous issue");
  await status(bob.createIssue(o, "secret", { title: "hidden" }), 404, "issue in a hidden repo");
  for (let i = 0; i < 3; i++) await status(bob.createIssue(o, r, { title: `more ${i}` }), 201, "more issues");
  const page1 = await status(anon.listIssues(o, r, { state: "all", type: "issues", page: 1, limit: 2 }), 200, "list issues");
  expect(arr(page1.data)).toHaveLength(2);
  await status(
    anon.listIssues(o, r, { state: "all", labels: "l0", q: "first", sort: "oldest", since: "2000-01-01T00:00:00Z", before: "2999-01-01T00:00:00Z", created_by: "alice" }),
    200,
    "filtered list",
  );
  await status(anon.listIssues(o, r, { since: "yesterday" }), 422, "bad since");
  await status(anon.listIssues(o, r, { created_by: "ghost" }), 404, "unknown created_by");
  await status(anon.getIssue(o, r, n), 200, "get issue");
  await status(anon.getIssue(o, r, 99), 404, "unknown issue");
  await status(alice.editIssue(o, r, n, { body: "edited" }), 201, "edit issue (201, as Forgejo)");
  await status(bob.editIssue(o, r, n, { title: "hijack" }), 403, "edit someone else's issue");
  await status(alice.editIssue(o, r, 99, { title: "x" }), 404, "edit unknown issue");

  // Comments.
  const comment = rec((await status(bob.createComment(o, r, n, { body: "hello" }), 201, "comment")).data);
  const cid = Number(comment.id);
  await status(bob.createComment(o, r, n, { body: "" }), 422, "empty comment");
  await status(anon.createComment(o, r, n, { body: "anon" }), 401, "anonymous comment");
  await status(bob.createComment(o, r, 42, { body: "x" }), 404, "comment on unknown issue");
  expect(arr((await status(anon.listComments(o, r, n, { since: "2000-01-01T00:00:00Z", before: "2999-01-01T00:00:00Z" }), 200, "list comments")).data)).toHaveLength(1);
  await status(anon.listComments(o, r, n, { before: "bad" }), 422, "bad before");
  await status(anon.listComments(o, r, 77), 404, "comments of unknown issue");
  await status(anon.getComment(o, r, cid), 200, "get comment");
  await status(anon.getComment(o, r, 9999), 404, "unknown comment");
  await status(bob.editComment(o, r, cid, { body: "hello again" }), 200, "edit comment");
  await status(root.editComment(o, r, cid, { body: "" }), 422, "empty edit");
  const other = Number(rec((await status(alice.createComment(o, r, n, { body: "alice's" }), 201, "alice comments")).data).id);
  await status(bob.editComment(o, r, other, { body: "mine now" }), 403, "edit someone else's comment");
  await status(bob.deleteComment(o, r, other), 403, "delete someone else's comment");
  await status(bob.deleteComment(o, r, cid), 204, "delete comment");
  await status(bob.deleteComment(o, r, cid), 404, "delete it again");

  // Issue labels: add, replace, clear.
  const [l0, l1] = labels.map((l) => Number(rec(l).id));
  expect(arr((await status(alice.addIssueLabels(o, r, n, { labels: [l0] }), 200, "add label")).data)).toHaveLength(1);
  expect(arr((await status(anon.listIssueLabels(o, r, n), 200, "issue labels")).data)).toHaveLength(1);
  await status(bob.addIssueLabels(o, r, n, { labels: [l0] }), 403, "add label as non-writer");
  await status(alice.addIssueLabels(o, r, n, { labels: [true] }), 400, "label neither number nor string");
  await status(alice.addIssueLabels(o, r, n, { labels: [l0, "l1"] }), 400, "ids mixed with names");
  const replaced = arr((await status(alice.replaceIssueLabels(o, r, n, { labels: [l1] }), 200, "replace labels")).data);
  expect(replaced.map((l) => rec(l).id)).toEqual([l1]);
  await status(bob.replaceIssueLabels(o, r, n, { labels: [l0] }), 403, "replace as non-writer");
  await status(alice.replaceIssueLabels(o, r, 99, { labels: [l0] }), 404, "replace on unknown issue");
  await status(bob.clearIssueLabels(o, r, n), 403, "clear as non-writer");
  await status(alice.clearIssueLabels(o, r, n), 204, "clear labels");
  expect(arr((await status(anon.listIssueLabels(o, r, n), 200, "labels cleared")).data)).toHaveLength(0);

  // Assets.
  expect(arr((await status(anon.listAssets(o, r, n), 200, "no assets")).data)).toHaveLength(0);
  const asset = rec((await status(alice.createAsset(o, r, n, { name: "a.jsonl.gz", bytes: Buffer.from("xyz") }, { name: "archive.jsonl.gz" }), 201, "upload")).data);
  expect(asset).toMatchObject({ name: "archive.jsonl.gz", size: 3 });
  const aid = Number(asset.id);
  await status(bob.createAsset(o, r, n, { name: "b.gz", bytes: Buffer.from("b") }), 403, "upload by a non-writer on someone else's issue");
  await status(anon.createAsset(o, r, n, { name: "c.gz", bytes: Buffer.from("c") }), 401, "anonymous upload");
  await status(alice.createAsset(o, r, 99, { name: "d.gz", bytes: Buffer.from("d") }), 404, "upload to unknown issue");
  expect(arr(rec((await status(anon.getIssue(o, r, n), 200, "issue with assets")).data).assets)).toHaveLength(1);
  await status(anon.getAsset(o, r, n, aid), 200, "get asset");
  await status(anon.getAsset(o, r, n, 9999), 404, "unknown asset");
  const n2 = n + 1;
  await status(anon.getAsset(o, r, n2, aid), 404, "asset of another issue");
  expect(rec((await status(alice.editAsset(o, r, n, aid, { name: "renamed.gz" }), 201, "rename asset (201, as Forgejo)")).data).name).toBe("renamed.gz");
  await status(bob.editAsset(o, r, n, aid, { name: "mine.gz" }), 403, "rename by a non-writer");
  await status(bob.deleteAsset(o, r, n, aid), 403, "delete by a non-writer");
  await status(alice.deleteAsset(o, r, n, aid), 204, "delete asset");
  await status(alice.deleteAsset(o, r, n, aid), 404, "delete it again");
  await status(alice.createAsset(o, r, n, { name: "a.bin", bytes: Buffer.from("xyz") }), 422, "upload of a type ALLOWED_TYPES lacks");

  // Comment assets (issue_comment_attachment.go).
  const cmt = rec((await status(alice.createComment(o, r, n, { body: "with a file" }), 201, "comment for assets")).data);
  const acid = Number(cmt.id);
  expect(arr((await status(anon.listCommentAssets(o, r, acid), 200, "no comment assets")).data)).toHaveLength(0);
  const casset = rec((await status(alice.createCommentAsset(o, r, acid, { name: "log.txt", bytes: Buffer.from("hello") }), 201, "comment upload")).data);
  expect(casset).toMatchObject({ name: "log.txt", size: 5 });
  const caid = Number(casset.id);
  await status(alice.createCommentAsset(o, r, acid, { name: "x.exe", bytes: Buffer.from("MZ") }), 422, "comment upload of a forbidden type");
  await status(bob.createCommentAsset(o, r, acid, { name: "b.txt", bytes: Buffer.from("b") }), 403, "comment upload by a non-writer");
  await status(anon.createCommentAsset(o, r, acid, { name: "c.txt", bytes: Buffer.from("c") }), 401, "anonymous comment upload");
  await status(alice.createCommentAsset(o, r, 99999, { name: "d.txt", bytes: Buffer.from("d") }), 404, "upload to an unknown comment");
  expect(arr(rec((await status(anon.getComment(o, r, acid), 200, "comment with assets")).data).assets)).toHaveLength(1);
  expect(arr((await status(anon.listCommentAssets(o, r, acid), 200, "comment assets")).data)).toHaveLength(1);
  await status(anon.getCommentAsset(o, r, acid, caid), 200, "get comment asset");
  await status(anon.getCommentAsset(o, r, acid, 9999), 404, "unknown comment asset");
  expect(rec((await status(alice.editCommentAsset(o, r, acid, caid, { name: "renamed.txt" }), 201, "rename comment asset")).data).name).toBe("renamed.txt");
  await status(bob.editCommentAsset(o, r, acid, caid, { name: "mine.txt" }), 403, "rename a comment asset as a non-writer");
  await status(bob.deleteCommentAsset(o, r, acid, caid), 403, "delete a comment asset as a non-writer");
  await status(alice.deleteCommentAsset(o, r, acid, caid), 204, "delete comment asset");
  await status(alice.deleteCommentAsset(o, r, acid, caid), 404, "delete it again");

  // Collaborators.
  await status(carol.permission(o, r, "carol"), 200, "own permission");
  expect(rec((await status(alice.permission(o, r, "carol"), 200, "carol before")).data).permission).toBe("read");
  await status(alice.isCollaborator(o, r, "carol"), 404, "not a collaborator yet");
  await status(alice.isCollaborator(o, r, "nobody"), 422, "unknown user");
  await status(bob.addCollaborator(o, r, "carol", { permission: "write" }), 403, "add by a non-admin");
  await status(alice.addCollaborator(o, r, "nobody", {}), 422, "add unknown user");
  await status(alice.addCollaborator(o, r, "carol", { permission: "write" }), 204, "add collaborator");
  await status(alice.isCollaborator(o, r, "carol"), 204, "is a collaborator");
  expect(rec((await status(alice.permission(o, r, "carol"), 200, "carol after")).data).permission).toBe("write");
  expect(rec((await status(alice.permission(o, r, "root"), 200, "site admin")).data).permission).toBe("owner");
  expect(rec((await status(alice.permission(o, r, "alice"), 200, "owner")).data).permission).toBe("owner");
  await status(bob.permission(o, r, "carol"), 403, "someone else's permission");
  await status(alice.permission(o, r, "nobody"), 404, "permission of unknown user");
  await status(anon.permission(o, r, "carol"), 401, "anonymous permission");
  expect(arr((await status(bob.listCollaborators(o, r, { page: 1, limit: 10 }), 200, "collaborators")).data).map((u) => rec(u).login)).toEqual(["carol"]);
  await status(anon.listCollaborators(o, r), 401, "anonymous collaborators");
  await status(carol.createComment(o, r, n, { body: "now I can" }), 201, "collaborator comments");
  await status(bob.deleteCollaborator(o, r, "carol"), 403, "remove by a non-admin");
  await status(alice.deleteCollaborator(o, r, "carol"), 204, "remove collaborator");
  await status(alice.isCollaborator(o, r, "carol"), 404, "removed");

  // Hooks.
  const hookBody = { type: "forgejo", config: { url: "http://127.0.0.1:9/hook", content_type: "json", secret: "s3cret" }, events: ["issues"], active: false };
  const hook = rec((await status(alice.createHook(o, r, hookBody), 201, "create hook")).data);
  expect(hook.events).toEqual(["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"]);
  expect(JSON.stringify(hook)).not.toContain("s3cret");
  const hid = Number(hook.id);
  await status(alice.createHook(o, r, { ...hookBody, config: { url: "http://x" } }), 422, "hook without content_type");
  await status(bob.createHook(o, r, hookBody), 403, "hook by a non-admin");
  expect(arr((await status(alice.listHooks(o, r, { page: 1, limit: 10 }), 200, "list hooks")).data)).toHaveLength(1);
  await status(anon.listHooks(o, r), 401, "anonymous hooks");
  await status(alice.getHook(o, r, hid), 200, "get hook");
  await status(alice.getHook(o, r, 777), 404, "unknown hook");
  const edited = rec((await status(alice.editHook(o, r, hid, { events: ["issue_comment"], active: true }), 200, "edit hook")).data);
  expect([edited.events, edited.active]).toEqual([["issue_comment"], true]);
  await status(alice.editHook(o, r, hid, { config: { url: "ftp://nope" } }), 422, "edit hook with a bad url");
  await status(alice.editHook(o, r, 777, { active: true }), 404, "edit unknown hook");
  await status(alice.deleteHook(o, r, hid), 204, "delete hook");
  await status(alice.deleteHook(o, r, hid), 404, "delete it again");

  // Deleting an issue (repository admins only).
  await status(bob.deleteIssue(o, r, n2), 403, "delete issue as non-admin");
  await status(alice.deleteIssue(o, r, n2), 204, "delete issue");
  await status(alice.deleteIssue(o, r, n2), 404, "delete it again");
  await status(anon.getIssue(o, r, n2), 404, "deleted issue is gone");

  // Teams (issue 18): an organisation's repository, a triage team that may write issues but reads code.
  const a = s.forge.admin;
  a.createOrg("acme");
  a.createRepo("acme", "tools");
  const triage = a.createTeam("acme", "triage", { units: { issues: "write", code: "read" }, repos: ["tools"] });
  a.addTeamMember("acme", "triage", "carol");
  const teams = arr((await status(carol.listRepoTeams("acme", "tools"), 200, "repo teams")).data).map(rec);
  expect(teams.map((t) => [t.name, t.permission, t.units_map])).toEqual([["triage", "read", { "repo.code": "read", "repo.issues": "write" }]]);
  await status(anon.listRepoTeams("acme", "tools"), 401, "anonymous repo teams");
  expect(rec((await status(carol.teamMember(triage.id, "carol"), 200, "team member")).data).login).toBe("carol");
  await status(carol.teamMember(triage.id, "bob"), 404, "not a team member");
  await status(bob.teamMember(triage.id, "carol"), 404, "asked by an outsider of the organisation");
  await status(root.teamMember(triage.id, "carol"), 200, "asked by a site admin");
  await status(carol.teamMember(9999, "carol"), 404, "unknown team");

  // Endpoints Forgejo has and this server does not: they must answer as an unknown route does.
  for (const u of alice.unimplemented) {
    const reply = await u.call(o, r);
    expect(reply.status, u.name).toBe(404);
  }
}
