import { afterEach, describe, expect, it } from "vitest";
import { forgeWorld } from "../helpers/forge-fixture.ts";
import type { ForgeWorld } from "../helpers/forge-fixture.ts";
import { forEachCommentBatch, readAllComments } from "../../src/session-client/index.ts";
import { ForgejoApi } from "../../src/forgejo-client/index.ts";
import type { CommentWindow, HostComment, RepoRef } from "../../src/ports/issue-host.ts";

let world: ForgeWorld;
afterEach(async () => world?.close());
const repo = { owner: "agent", repo: "work" };

/** A session issue opened ten days ago with `n` comments since: a burst on day one, then a trickle. */
function seed(w: ForgeWorld, n: number) {
  const start = Date.now() - 10 * 86400_000;
  w.issue = w.forge.admin.createIssue("agent", "work", { title: "long session", createdAt: start }).number;
  w.forge.admin.bulkComments(
    "agent",
    "work",
    w.issue,
    Array.from({ length: n }, (_, i) => ({ login: "agent", body: `c${i}`, createdAt: i < n / 2 ? start + i * 1000 : start + i * 1500_000 })),
  );
}

describe("readAllComments", () => {
  it("reads a large issue in windows of updated time and returns exactly what one unfiltered read returns", async () => {
    world = await forgeWorld();
    seed(world, 400);
    const api = world.api();
    const whole = await api.listComments(repo, world.issue);
    const before = api.client.requestCount;
    const windowed = await readAllComments(api, repo, world.issue, { windowSize: 50 });
    expect(api.client.requestCount - before).toBeGreaterThan(5);
    expect(windowed.map((c) => [c.id, c.body])).toEqual(whole.map((c) => [c.id, c.body]));
  });

  it("makes one list request for a small issue", async () => {
    world = await forgeWorld();
    seed(world, 30);
    const api = world.api();
    const got = await readAllComments(api, repo, world.issue, { windowSize: 50 });
    expect(got).toHaveLength(30);
    expect(api.client.requestCount).toBe(2); // the issue (for its count) and the list
  });

  it("catches a comment edited while the scan runs", async () => {
    world = await forgeWorld();
    seed(world, 300);
    const api = world.api();
    const first = (await api.listComments(repo, world.issue))[0]!;
    let windows = 0;
    const spy = new (class extends ForgejoApi {
      override async listComments(r: RepoRef, n: number, q: CommentWindow = {}): Promise<HostComment[]> {
        const out = await super.listComments(r, n, q);
        // After the first window (which held comment `first`), a person edits it: it moves to "now".
        if (q.untilMs !== undefined && ++windows === 1) await api.editComment(repo, first.id, "edited during the scan");
        return out;
      }
    })(api.client);
    const got = await readAllComments(spy, repo, world.issue, { windowSize: 50, concurrency: 1 });
    expect(got.find((c) => c.id === first.id)?.body).toBe("edited during the scan");
    expect(got).toHaveLength(300);
  });

  it("reads no further while a batch's fold is pending (forEachCommentBatch)", async () => {
    world = await forgeWorld();
    seed(world, 400);
    const api = world.api();
    const meta = await api.getIssue(repo, world.issue);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let batches = 0;
    let ids = 0;
    let firstBatchIn!: () => void;
    const firstBatch = new Promise<void>((r) => (firstBatchIn = r));
    const before = api.client.requestCount;
    const done = forEachCommentBatch(
      api,
      repo,
      world.issue,
      (list) => {
        batches++;
        ids += list.length;
        firstBatchIn();
        return held;
      },
      { windowSize: 50, concurrency: 2, issueMeta: meta },
    );
    await firstBatch;
    // Give the other reader time to answer and block too; no third request may go out meanwhile.
    await new Promise<void>((r) => setImmediate(r));
    await api.listComments(repo, world.issue, { sinceMs: 0, untilMs: 1000 });
    expect(api.client.requestCount - before).toBeLessThanOrEqual(3);
    expect(batches).toBeLessThanOrEqual(2);
    release();
    await done;
    expect(batches).toBeGreaterThan(5);
    expect(ids).toBeGreaterThanOrEqual(400);
  });
});
