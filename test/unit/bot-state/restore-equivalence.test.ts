import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createProjection } from "../../../src/projection/index.ts";
import type { CommentEvent } from "../../../src/projection/index.ts";
import { createSqliteProjectionStore } from "../../../src/bot-state/index.ts";
import { formatCheckpoint, formatHealth } from "../../../src/protocol/index.ts";

const policy = { trustedAuthors: new Set(["agent"]) };
const t0 = Date.parse("2026-11-29T10:00:00Z");
const bodies = [
  formatCheckpoint({ agent: "a", session: "s1", phase: "clone_complete", timestamp: "2026-11-29T10:00:00", data: { n: 1 } as never }),
  formatCheckpoint({ agent: "a", session: "s1", phase: "commit_complete", timestamp: "2026-11-29T10:00:00", seq: 2, data: {} as never }),
  formatHealth({ agent: "a", session: "s1", timestamp: "2026-11-29T10:00:00", metrics: { ok: true } as never }),
  "a person's note",
  "[CHECKPOINT] a\nnot readable",
];

const eventArb: fc.Arbitrary<CommentEvent> = fc.oneof(
  fc
    .record({
      id: fc.integer({ min: 1, max: 6 }),
      body: fc.integer({ min: 0, max: bodies.length - 1 }),
      created: fc.integer({ min: 0, max: 3 }),
      edit: fc.integer({ min: 0, max: 2 }),
      author: fc.constantFrom("agent", "mallory"),
    })
    .map(
      ({ id, body, created, edit, author }): CommentEvent => ({
        type: "upsert",
        comment: {
          id,
          author,
          body: bodies[body] as string,
          createdAt: new Date(t0 + (id * 10 + created) * 1000).toISOString(),
          updatedAt: new Date(t0 + (id * 10 + created + edit) * 1000).toISOString(),
        },
      }),
    ),
  fc.integer({ min: 1, max: 6 }).map((commentId): CommentEvent => ({ type: "delete", commentId })),
);

describe("a projection restored from the store", () => {
  it("equals the projection that saw the events, whatever they were (the bot's restart loses nothing)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { maxLength: 25 }), async (events) => {
        const direct = createProjection(policy);
        const viaChanged = createProjection(policy);
        const store = createSqliteProjectionStore(":memory:");
        for (const [i, e] of events.entries()) {
          direct.apply(e);
          viaChanged.applyAll((await store.applyDelivery("o/r#1", `d${i}`, [e])).changed);
        }
        const restored = createProjection(policy);
        for (const c of await store.comments("o/r#1")) restored.restore(c);
        await store.close();
        expect(viaChanged.snapshot()).toEqual(direct.snapshot());
        expect(restored.snapshot()).toEqual(direct.snapshot());
      }),
      { numRuns: 300 },
    );
  });
});
