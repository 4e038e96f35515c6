import { afterEach, describe, expect, it } from "vitest";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";
import { IMPLEMENTATION_WORKER_PHASE_MAP, formatControl } from "../../src/protocol/index.ts";
import { extractResumeIndex, formatResumeIndexRef, renderDashboard, resumeIndexScope, spliceDashboard } from "../../src/dashboard/index.ts";
import { SessionStore } from "../../src/session-client/index.ts";
import type { SessionStoreOptions } from "../../src/session-client/index.ts";
import { RESUME_INDEX_CLOSE, RESUME_INDEX_OPEN } from "../../src/dashboard/markers.ts";

// Issue 9, attack 2: a repo writer who is not a trusted author edits the resume index in the issue
// body (pointing at a fenced-off zombie, an older checkpoint, or another issue's checkpoint), or
// rewrites a trusted checkpoint within the second it was posted. docs/security.md says what holds
// with and without CHECKPOST_SIGNING_KEY; each case below checks it.

const AGENT = "implementation-worker";
const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;
const KEY = "index-signing-key";
let w: ForgeWorld | undefined;
let b: BotWorld | undefined;
afterEach(async () => {
  await w?.close();
  await b?.close();
  w = b = undefined;
});

/** A world whose forge clock moves only by `tick()` (whole seconds, as Forgejo's), with mallory a repo writer. */
async function setup(signingKey?: string) {
  const world = await forgeWorld();
  w = world;
  let t = Math.floor(Date.now() / 1000) * 1000;
  world.forge.admin.setClock(() => t);
  world.forge.admin.addCollaborator("agent", "work", "mallory", "write");
  const repo = { owner: "agent", repo: "work" };
  const opts: Partial<SessionStoreOptions> = signingKey ? { signingKey } : {};
  const store = (issue = world.issue) => new SessionStore({ api: world.api(), repo, issue, ...opts });
  const tick = () => (t += 1000);
  const save = async (phase: string, o: { seq?: number; epoch?: number; issue?: number } = {}) => {
    tick();
    return store(o.issue).save({ agent: AGENT, session: "s1", phase, data: { phase }, ...(o.seq ? { seq: o.seq } : {}), ...(o.epoch !== undefined ? { epoch: o.epoch } : {}) });
  };
  /** What the bot does: project every comment and write the dashboard (signed when the key is set). */
  const writeIndex = async () => {
    tick();
    const snap = await store().snapshot();
    const signing = signingKey ? { resumeIndexSigning: { key: signingKey, scope: resumeIndexScope("agent", "work", world.issue) } } : {};
    const api = world.api();
    const body = (await api.getIssue(repo, world.issue)).body;
    await api.editIssue(repo, world.issue, { body: spliceDashboard(body, renderDashboard(snap, new Date(t), signing)) });
  };
  /** Mallory (a writer, not trusted) rewrites the index JSON in the body. */
  const forge = async (edit: (ix: Record<string, unknown> & { entries: Record<string, unknown>[] }) => void) => {
    tick();
    const api = world.api(world.strangerToken);
    const body = (await api.getIssue(repo, world.issue)).body;
    const from = body.indexOf(RESUME_INDEX_OPEN) + RESUME_INDEX_OPEN.length;
    const to = body.indexOf(RESUME_INDEX_CLOSE, from);
    const ix = JSON.parse(body.slice(from, to)) as Record<string, unknown> & { entries: Record<string, unknown>[] };
    edit(ix);
    await api.editIssue(repo, world.issue, { body: body.slice(0, from) + JSON.stringify(ix) + body.slice(to) });
  };
  const resume = () => store().resume(AGENT, "s1", MAP);
  return { world, repo, store, save, tick, writeIndex, forge, resume };
}

describe("a forged resume index never yields a forged answer", () => {
  it("the untouched index is used (three small reads), so the checks below are not a full read by accident", async () => {
    const s = await setup();
    await s.save("clone_complete");
    await s.save("subtask_1_complete");
    await s.writeIndex();
    const r = await s.store().resume(AGENT, "s1", MAP);
    expect(r).toMatchObject({ phase: "subtask_1_complete" });
    expect((r as { via?: string }).via).toBe("index");
  });

  it("pointing at another issue's checkpoint (same agent, trusted author): refused, full read", async () => {
    const s = await setup();
    const other = s.world.forge.admin.createIssue("agent", "work", { title: "other" }).number;
    await s.save("clone_complete");
    await s.save("subtask_1_complete");
    const foreign = await s.save("pr_created", { issue: other });
    await s.writeIndex();
    await s.forge((ix) => {
      const e = ix.entries[0] as Record<string, unknown>;
      Object.assign(e, { commentId: foreign.comment_id, id: foreign.checkpoint.id, seq: foreign.checkpoint.seq, epoch: foreign.checkpoint.epoch });
      ix.watermark = Math.max(Number(ix.watermark), foreign.comment_id);
    });
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", via: "full" });
  });

  it("a watermark later than the issue's updated_at (hiding the newer checkpoints): refused, full read", async () => {
    const s = await setup();
    const c1 = await s.save("clone_complete");
    await s.writeIndex();
    await s.save("subtask_1_complete");
    await s.forge((ix) => {
      Object.assign(ix.entries[0] as object, { commentId: c1.comment_id });
      ix.watermarkUpdatedAt = "2099-01-01T00:00:00.000Z";
    });
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", via: "full" });
  });

  it("pointing at a fenced-off zombie below the entry's fence: refused, full read (with or without a key)", async () => {
    for (const key of [undefined, KEY]) {
      const s = await setup(key);
      await s.save("clone_complete", { seq: 1, epoch: 0 });
      await s.save("subtask_1_complete", { seq: 2, epoch: 1 }); // the successor's fence
      const zombie = await s.save("pr_created", { seq: 2, epoch: 0 }); // the superseded worker keeps writing
      await s.writeIndex();
      await s.forge((ix) => Object.assign(ix.entries[0] as object, { commentId: zombie.comment_id, seq: 2, epoch: 0 }));
      expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", epoch: 2, via: "full" });
      await w?.close();
      w = undefined;
    }
  });

  it("removing the entry so that only a zombie is in the tail: refused without a signed, complete index", async () => {
    const s = await setup();
    await s.save("clone_complete", { seq: 1, epoch: 0 });
    await s.save("subtask_1_complete", { seq: 2, epoch: 1 });
    await s.writeIndex();
    const zombieAt = s.tick();
    await s.save("pr_created", { seq: 2, epoch: 0 }); // after the index: in the tail, and the fence is not
    await s.forge((ix) => {
      ix.entries = [];
      ix.complete = true;
      ix.watermarkUpdatedAt = new Date(zombieAt).toISOString();
    });
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", epoch: 2, via: "full" });
  });

  it("naming another issue's [CONTROL] (a pause by a trusted author) as this entry's control or directive: ignored", async () => {
    const s = await setup();
    const other = s.world.forge.admin.createIssue("agent", "work", { title: "other" }).number;
    await s.save("clone_complete");
    await s.writeIndex();
    const pause = await s.world.api().createComment(s.repo, other, formatControl({ agent: AGENT, session: "s1", timestamp: "2026-11-29T10:00:00Z", action: "pause", by: "alice" }));
    await s.forge((ix) => Object.assign(ix.entries[0] as object, { controls: [pause.id], directive: { kind: "pause", commentId: pause.id } }));
    expect(await s.resume()).toMatchObject({ phase: "clone_complete", directive: null, via: "full" });
    // `checkpost save`'s directive check is this same read (without the full-read fallback).
    expect((await s.store().save({ agent: AGENT, session: "s1", phase: "subtask_1_complete", data: {} }, { checkDirective: true })).directive).toBeNull();
  });

  it("with a key: any rewrite of the signed index (zombie with its fence lowered, older checkpoint) is ignored", async () => {
    const s = await setup(KEY);
    const c1 = await s.save("clone_complete", { seq: 1, epoch: 0 });
    await s.save("subtask_1_complete", { seq: 2, epoch: 1 });
    const zombie = await s.save("all_subtasks_complete", { seq: 2, epoch: 0 });
    await s.writeIndex();
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", via: "index" }); // signed: the shortcut is taken
    await s.forge((ix) => Object.assign(ix.entries[0] as object, { commentId: zombie.comment_id, seq: 2, epoch: 0, maxEpoch: 0 }));
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", via: "full" });
    await s.forge((ix) => {
      Object.assign(ix.entries[0] as object, { commentId: c1.comment_id, id: c1.checkpoint.id, seq: 1, epoch: 0, maxEpoch: 0 });
      ix.watermarkUpdatedAt = new Date(Date.parse(String(ix.watermarkUpdatedAt)) + 5000).toISOString();
    });
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", via: "full" });
    await s.forge((ix) => delete ix.sig);
    expect(await s.resume()).toMatchObject({ via: "full" });
  });

  it("pointing the body at an index comment of the writer's own (rolling back to an older checkpoint): refused, full read", async () => {
    const s = await setup();
    const c1 = await s.save("clone_complete");
    await s.save("subtask_1_complete");
    await s.writeIndex();
    const api = s.world.api(s.world.strangerToken);
    const body = (await api.getIssue(s.repo, s.world.issue)).body;
    const from = body.indexOf(RESUME_INDEX_OPEN);
    const to = body.indexOf(RESUME_INDEX_CLOSE, from + RESUME_INDEX_OPEN.length) + RESUME_INDEX_CLOSE.length;
    const ix = JSON.parse(body.slice(from + RESUME_INDEX_OPEN.length, to - RESUME_INDEX_CLOSE.length)) as Record<string, unknown> & { entries: Record<string, unknown>[] };
    const since = new Date(s.tick()).toISOString();
    // The older trusted checkpoint, without `at` (fetched by id), the watermark after the newer one.
    Object.assign(ix.entries[0] as object, { commentId: c1.comment_id, id: c1.checkpoint.id, seq: c1.checkpoint.seq });
    delete (ix.entries[0] as Record<string, unknown>)["at"];
    ix.watermarkUpdatedAt = since;
    s.tick();
    const hers = await api.createComment(s.repo, s.world.issue, `${RESUME_INDEX_OPEN}${JSON.stringify(ix)}${RESUME_INDEX_CLOSE}`);
    await api.editIssue(s.repo, s.world.issue, { body: body.slice(0, from) + formatResumeIndexRef({ comment: hers.id, since }) + body.slice(to) });
    expect(await s.resume()).toMatchObject({ phase: "subtask_1_complete", via: "full" });
  });

  it("RESIDUAL without a key (docs/security.md): a writer who rewrites the whole entry rolls the agent back to an older trusted checkpoint", async () => {
    const s = await setup();
    const c1 = await s.save("clone_complete");
    await s.save("subtask_1_complete");
    await s.writeIndex();
    await s.forge((ix) => {
      Object.assign(ix.entries[0] as object, { commentId: c1.comment_id, id: c1.checkpoint.id });
      // Without `at` the reader fetches the pointed comment by id; with it, it would read from there on and see the newer one.
      delete (ix.entries[0] as Record<string, unknown>)["at"];
      ix.watermarkUpdatedAt = new Date(Date.parse(String(ix.watermarkUpdatedAt)) + 2000).toISOString(); // past the newer one, not past the body's edit
    });
    // Still a genuine checkpoint of this agent+session: never a forged or foreign one.
    expect(await s.resume()).toMatchObject({ phase: "clone_complete", via: "index" });
  });
});

describe("rewriting a trusted checkpoint within the second it was posted", () => {
  it("with a key the rewrite breaks the signature and is not resumed", async () => {
    const s = await setup(KEY);
    await s.save("clone_complete");
    const saved = await s.save("subtask_1_complete"); // the clock does not move: the edit lands in the same second
    const api = s.world.api(s.world.strangerToken);
    const c = await api.getComment(s.repo, saved.comment_id);
    const edited = await api.editComment(s.repo, saved.comment_id, c.body.replace("Phase: subtask_1_complete", "Phase: pr_created").replace('"subtask_1_complete"', '"pr_created"'));
    expect(edited.updatedAt).toBe(edited.createdAt); // invisible to a cold reader by time
    const r = await s.resume();
    expect(r.phase).toBe("clone_complete");
    const snap = await s.store().snapshot();
    expect(snap.anomalies.map((a) => [a.commentId, a.kind])).toContainEqual([saved.comment_id, "bad-signature"]);
  });
});

describe("the bot signs the index it writes when a key is set", () => {
  it("a reader with the key takes the index; a forged unsigned copy is ignored", async () => {
    b = await botWorld({ signingKey: KEY, resumeIndexInlineMaxBytes: 8 * 1024 }); // the inline index, which readers still take
    const store = new SessionStore({ api: b.api(b.agentToken), repo: b.repo, issue: b.issue, trustedAuthors: ["agent"], signingKey: KEY });
    await store.save({ agent: AGENT, session: "s1", phase: "clone_complete", data: {} });
    await b.settle();
    const body = (await b.api(b.agentToken).getIssue(b.repo, b.issue)).body;
    expect(extractResumeIndex(body, { signing: { key: KEY, scope: resumeIndexScope(b.repo.owner, b.repo.repo, b.issue) } })?.entries).toHaveLength(1);
    expect(await store.resume(AGENT, "s1", MAP)).toMatchObject({ phase: "clone_complete", via: "index" });
  });
});
