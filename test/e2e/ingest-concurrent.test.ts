import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatCheckpoint, pythonUtcIsoformat } from "../../src/protocol/index.ts";
import { projectComments } from "../../src/projection/index.ts";
import { toCommentRecord } from "../../src/session-client/index.ts";
import { botWorld } from "../helpers/bot-world.ts";
import type { BotWorld } from "../helpers/bot-world.ts";

let w: BotWorld | undefined;
let dir = "";
afterEach(async () => {
  await w?.close();
  w = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const cp = (session: string, i: number) => formatCheckpoint({ agent: "implementation-worker", session, phase: `phase_${i}`, timestamp: pythonUtcIsoformat(new Date()), data: { i } as never });

describe("webhook ingest on the SQLite store (group commit)", () => {
  it("deliveries arriving together are each answered 2xx and all stored; a redelivery is a duplicate", async () => {
    dir = mkdtempSync(join(tmpdir(), "checkpost-ingest-"));
    const world = (w = await botWorld({ storeFile: join(dir, "bot", "projection.sqlite") }));
    const api = world.api(world.agentToken);
    await world.settle();
    const from = world.forge.admin.deliveries().length;
    // 40 comments posted at once: their deliveries reach the bot concurrently and share commits.
    const posted = await Promise.all(Array.from({ length: 40 }, (_, i) => api.createComment(world.repo, world.issue, cp(`s${i % 5}`, i))));
    await world.settle();
    const sent = world.forge.admin
      .deliveries()
      .slice(from)
      .filter((d) => d.event === "issue_comment");
    expect(sent.length).toBeGreaterThanOrEqual(40);
    expect(sent.filter((d) => !d.ok)).toEqual([]);

    const key = `${world.repo.owner}/${world.repo.repo}#${world.issue}`.toLowerCase();
    const stored = new Set((await world.bot.store.comments(key)).map((c) => c.id));
    expect(posted.filter((c) => !stored.has(c.id))).toEqual([]);
    const rebuilt = projectComments((await api.listComments(world.repo, world.issue)).map(toCommentRecord), { trustedAuthors: new Set(["agent", "checkpost-bot"]) });
    expect(world.bot.tracker(world.repo, world.issue)?.projection.snapshot()).toEqual(rebuilt);

    // The same delivery id again (Forgejo's redelivery keeps it): stored once, nothing changes.
    const first = (await world.bot.store.applyDelivery(key, sent[0]?.uuid ?? "", [])).duplicate;
    expect(first).toBe(true);
  });
});
