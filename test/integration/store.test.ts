import { afterEach, describe, expect, it } from "vitest";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";
import { formatCheckpoint, IMPLEMENTATION_WORKER_PHASE_MAP, parseComment } from "../../src/protocol/index.ts";
import { CheckpointTooLargeError, SessionIssueNotFoundError } from "../../src/errors.ts";
import { DEFAULT_SESSION_LABEL, DEFAULT_SESSION_TITLE } from "../../src/session-client/index.ts";

let world: ForgeWorld;
afterEach(async () => world?.close());

const MAP = IMPLEMENTATION_WORKER_PHASE_MAP;

describe("SessionStore against the embedded Forgejo", () => {
  it("a save with a known issue number costs exactly one request: the POST", async () => {
    world = await forgeWorld();
    const store = world.store();
    const saved = await store.save({ agent: "implementation-worker", session: "s1", phase: "clone_complete", data: { branch_name: "b" } });
    expect(store.api.requestCount).toBe(1);
    expect(saved.issue).toBe(world.issue);
    const [c] = await world.api().listComments({ owner: "agent", repo: "work" }, world.issue);
    expect(c?.id).toBe(saved.comment_id);
    expect(parseComment(c?.body)).toMatchObject({ kind: "checkpoint", checkpoint: { phase: "clone_complete", id: saved.checkpoint.id } });
  });

  it("locates the session issue by title and label, and reports when there is none", async () => {
    world = await forgeWorld({ withIssue: false });
    const store = world.store();
    await expect(store.issueNumber()).rejects.toBeInstanceOf(SessionIssueNotFoundError);
    const created = await store.issueNumber({ create: true });
    const issue = await world.api().getIssue({ owner: "agent", repo: "work" }, created);
    expect(issue.title).toBe(DEFAULT_SESSION_TITLE);
    expect(issue.labels.map((l) => l.name)).toEqual([DEFAULT_SESSION_LABEL]);
    expect(await world.store().issueNumber()).toBe(created);
  });

  it("with several matches picks the newest and warns; ignores a same-titled issue without the label", async () => {
    world = await forgeWorld();
    const a = world.forge.admin;
    const newer = a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE, labels: [DEFAULT_SESSION_LABEL] }).number;
    a.createIssue("agent", "work", { title: DEFAULT_SESSION_TITLE }); // newest, but unlabelled
    const warnings: unknown[] = [];
    const store = world.store({ issue: undefined, logger: { warn: (o: unknown) => warnings.push(o), debug: () => {}, info: () => {} } as never });
    expect(await store.issueNumber()).toBe(newer);
    expect(warnings).toHaveLength(1);
  });

  it("latest is by server order, not by the Time string the seed sorts", async () => {
    world = await forgeWorld();
    const a = world.forge.admin;
    const body = (phase: string, time: string) => formatCheckpoint({ agent: "w", session: "s", phase, timestamp: time, data: {} });
    // Written in this order; the seed's string sort would pick the first (".5…Z" > "Z").
    a.bulkComments("agent", "work", world.issue, [
      { login: "agent", body: body("clone_complete", "2026-11-29T10:00:00.500000Z") },
      { login: "agent", body: body("commit_complete", "2026-11-29T10:00:00Z") },
    ]);
    expect((await world.store().latest("w", "s"))?.phase).toBe("commit_complete");
  });

  it("a month-old checkpoint still resumes (no 24-hour window)", async () => {
    world = await forgeWorld();
    const monthAgo = new Date(Date.now() - 31 * 86400_000);
    world.forge.admin.bulkComments("agent", "work", world.issue, [
      {
        login: "agent",
        createdAt: monthAgo,
        body: formatCheckpoint({ agent: "implementation-worker", session: "s", phase: "commit_complete", timestamp: "2026-10-29T10:00:00Z", data: { commit_sha: "abc" } }),
      },
    ]);
    const r = await world.store().resume("implementation-worker", "s", MAP);
    expect(r).toMatchObject({ resume_point: "phase_4_pr", phase: "commit_complete", state: { commit_sha: "abc" } });
  });

  it("never resumes from a checkpoint by an untrusted author, unless CHECKPOST_TRUSTED_AUTHORS names them", async () => {
    world = await forgeWorld();
    await world.store().save({ agent: "implementation-worker", session: "s", phase: "clone_complete", data: { n: 1 } });
    await world.store({ token: world.strangerToken }).save({ agent: "implementation-worker", session: "s", phase: "pr_created", data: { pr_number: 666 } });
    expect(await world.store().resume("implementation-worker", "s", MAP)).toMatchObject({ phase: "clone_complete", state: { n: 1 } });
    expect(await world.store({ trustedAuthors: ["Mallory"] }).resume("implementation-worker", "s", MAP)).toMatchObject({ phase: "pr_created" });
  });

  it("resume with no checkpoint starts fresh; then saves continue Seq and take over with a higher Epoch", async () => {
    world = await forgeWorld();
    const store = world.store();
    expect(await store.resume("w", "s", MAP)).toMatchObject({ resume_point: "start", phase: "fresh_start", state: {}, next_seq: 1, epoch: 1 });
    const first = await store.save({ agent: "w", session: "s", phase: "clone_complete", data: {} });
    const second = await store.save({ agent: "w", session: "s", phase: "subtask_1_complete", data: {} });
    expect([first.checkpoint.seq, first.checkpoint.epoch, second.checkpoint.seq]).toEqual([1, 1, 2]);
    const successor = world.store();
    expect(await successor.resume("w", "s", MAP)).toMatchObject({ phase: "subtask_1_complete", next_seq: 3, epoch: 2 });
    expect((await successor.save({ agent: "w", session: "s", phase: "all_subtasks_complete", data: {} })).checkpoint).toMatchObject({ seq: 3, epoch: 2 });
  });

  it("refuses a save over the size cap before sending anything", async () => {
    world = await forgeWorld();
    const store = world.store({ maxCheckpointBytes: 2048 });
    const err = await store.save({ agent: "w", session: "s", phase: "p", data: { small: 1, file_contents: "x".repeat(5000) } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointTooLargeError);
    expect((err as Error).message).toMatch(/leave out or shorten "file_contents"/);
    expect(store.api.requestCount).toBe(0);
  });

  it("posts health signals the seed's way", async () => {
    world = await forgeWorld();
    await world.store().health({ agent: "orch", session: "s", metrics: { queue_depth: 2 } });
    const snap = await world.store().snapshot();
    expect(snap.entries[0]).toMatchObject({ agent: "orch", session: "s", health: { status: "Active", metrics: { queue_depth: 2 } } });
  });

  it("resume with takeOver writes the fence at once, so a zombie's later write is never resumed from", async () => {
    world = await forgeWorld();
    const zombie = world.store();
    await zombie.resume("w", "s", MAP); // epoch 1
    await zombie.save({ agent: "w", session: "s", phase: "clone_complete", data: { by: "zombie", n: 1 } });
    const successor = world.store();
    const r = await successor.resume("w", "s", MAP, { takeOver: true });
    // Two above the zombie's: a resume that wrote nothing may hold epoch 2 (issue 28.5).
    expect(r).toMatchObject({ phase: "clone_complete", epoch: 3, next_seq: 3 });
    expect(r.takeover_comment_id).toBeGreaterThan(0);
    // The successor dies before its first own save; the zombie keeps going.
    await zombie.save({ agent: "w", session: "s", phase: "commit_complete", data: { by: "zombie", n: 2 } });
    const third = await world.store().resume("w", "s", MAP);
    expect(third).toMatchObject({ phase: "clone_complete", state: { by: "zombie", n: 1 }, epoch: 4 });
    const snap = await world.store().snapshot();
    expect(snap.anomalies.some((a) => a.kind === "zombie")).toBe(true);
  });

  it("a take-over fences a worker whose resume wrote nothing: never the same epoch (issue 28.5)", async () => {
    world = await forgeWorld();
    await world.store().save({ agent: "w", session: "s", phase: "clone_complete", data: { n: 0 } });
    const first = world.store();
    const held = await first.resume("w", "s", MAP); // writes nothing
    const taker = world.store();
    const took = await taker.resume("w", "s", MAP, { takeOver: true });
    expect(took.epoch).toBeGreaterThan(held.epoch);
    // The first instance saves afterwards at the epoch it was handed: a zombie, refused as fenced.
    const late = await first.save({ agent: "w", session: "s", phase: "commit_complete", data: { by: "first" } }, { checkDirective: true });
    expect(late.checkpoint.epoch).toBe(held.epoch);
    expect(late.fenced).toBe(true);
    const after = await world.store().resume("w", "s", MAP);
    expect(after).toMatchObject({ phase: "clone_complete", state: { n: 0 } });
  });

  it("two take-overs from the same fence end at different epochs, the later one above", async () => {
    world = await forgeWorld();
    await world.store().save({ agent: "w", session: "s", phase: "clone_complete", data: { n: 0 } });
    // Both read the fence before either writes: each one's first POST waits for the other's.
    let arrived = 0;
    let release = () => {};
    const both = new Promise<void>((r) => (release = r));
    const racing = () => {
      const api = world!.api();
      let first = true;
      const post = api.createComment.bind(api);
      api.createComment = async (...args: Parameters<typeof post>) => {
        if (first) {
          first = false;
          if (++arrived === 2) release();
          await both;
        }
        return post(...args);
      };
      return world!.store({ api });
    };
    const [a, b] = await Promise.all([racing().resume("w", "s", MAP, { takeOver: true }), racing().resume("w", "s", MAP, { takeOver: true })]);
    expect(a.epoch).not.toBe(b.epoch);
    const later = (a.takeover_comment_id ?? 0) > (b.takeover_comment_id ?? 0) ? a : b;
    expect(later.epoch).toBe(Math.max(a.epoch, b.epoch));
  });

  it("a zombie's save on a just-opened issue (no resume index yet) answers fenced, not false", async () => {
    world = await forgeWorld();
    const zombie = world.store();
    await zombie.save({ agent: "w", session: "s", phase: "clone_complete", data: { n: 1 }, epoch: 1, seq: 1 });
    await world.store().resume("w", "s", MAP, { takeOver: true });
    const z = await zombie.save({ agent: "w", session: "s", phase: "commit_complete", data: { n: 2 } }, { checkDirective: true });
    expect(z.checkpoint.epoch).toBe(1);
    expect(z.fenced).toBe(true);
  });
});
