import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createProjection, projectComments } from "../../../src/projection/index.ts";
import type { CommentEvent, CommentRecord, ProjectionSnapshot } from "../../../src/projection/index.ts";
import { KEY, at, cpBody, healthBody, policy, signedPolicy } from "./build-comments.ts";

const bodyArb = fc.oneof(
  fc
    .record({
      agent: fc.constantFrom("w1", "w2"),
      session: fc.constantFrom("s1", "s2"),
      phase: fc.constantFrom("clone_complete", "commit_complete"),
      id: fc.option(fc.constantFrom("cp-aaaaaaaa", "cp-bbbbbbbb", "cp-cccccccc"), { nil: undefined }),
      seq: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      epoch: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
      signed: fc.boolean(),
    })
    .map(({ signed, id, seq, epoch, ...o }) => cpBody({ ...o, ...(id ? { id } : {}), ...(seq ? { seq } : {}), ...(epoch !== undefined ? { epoch } : {}), ...(signed ? { sign: KEY } : {}) })),
  fc.record({ agent: fc.constantFrom("w1", "w2"), status: fc.constantFrom("Active", "Busy") }).map((o) => healthBody(o)),
  fc.constantFrom("lgtm", "[CHECKPOINT] w1\nSession: s1\nbroken", "[HEALTH]"),
);

const commentArb = fc.record({
  author: fc.constantFrom("worker", "WORKER", "mallory"),
  createdAt: fc.integer({ min: 0, max: 10_000 }),
  versions: fc.array(fc.record({ body: bodyArb, k: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 3 }),
  deleted: fc.boolean(),
});

interface Case {
  events: CommentEvent[];
  final: CommentRecord[];
}

/** Comment i gets id i+1; version k is edited k seconds after creation (k = 0 means never edited). */
const caseArb: fc.Arbitrary<Case> = fc.array(commentArb, { minLength: 1, maxLength: 14 }).map((cs) => {
  const events: CommentEvent[] = [];
  const final: CommentRecord[] = [];
  cs.forEach((c, i) => {
    const records = c.versions.map(({ body, k }) => ({
      id: i + 1,
      author: c.author,
      body,
      createdAt: at(c.createdAt),
      updatedAt: at(c.createdAt + k),
      htmlUrl: `https://f/x#${i + 1}`,
    }));
    for (const r of records) events.push({ type: "upsert", comment: r });
    if (c.deleted) events.push({ type: "delete", commentId: i + 1 });
    else final.push(...records); // projectComments picks the winning version itself
  });
  return { events, final };
});

/** A permutation of the log with some events repeated. */
const shuffledArb = (events: CommentEvent[]) =>
  fc
    .array(fc.nat(), { minLength: events.length, maxLength: events.length })
    .chain((keys) => fc.array(fc.integer({ min: 0, max: events.length - 1 }), { maxLength: 6 }).map((dups) => ({ keys, dups })))
    .map(({ keys, dups }) => {
      const all = [...events, ...dups.map((d) => events[d] as CommentEvent)];
      return all
        .map((e, i) => ({ e, k: keys[i % keys.length] ?? 0, i }))
        .sort((a, b) => a.k - b.k || a.i - b.i)
        .map((x) => x.e);
    });

const withoutDeletes = (s: ProjectionSnapshot) => ({ ...s, anomalies: s.anomalies.filter((a) => a.kind !== "deleted-checkpoint") });

describe("order independence (property)", () => {
  for (const [name, pol] of [
    ["no signing key", policy],
    ["signing key", signedPolicy],
  ] as const) {
    it(`any permutation/duplication of the log gives the snapshot of the final list (${name})`, () => {
      fc.assert(
        fc.property(
          caseArb.chain((c) => fc.tuple(fc.constant(c), shuffledArb(c.events), shuffledArb(c.events))),
          ([c, log1, log2]) => {
            const p1 = createProjection(pol);
            p1.applyAll(log1);
            const p2 = createProjection(pol);
            p2.applyAll(log2);
            const s1 = p1.snapshot();
            expect(s1).toEqual(p2.snapshot());
            expect(withoutDeletes(s1)).toEqual(projectComments(c.final, pol));
            // Applying the log again changes nothing.
            expect(p1.applyAll(log2)).toBe(false);
            expect(p1.snapshot()).toEqual(s1);
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  it("incremental reads between events agree with a batch fold", () => {
    fc.assert(
      fc.property(caseArb, ({ events }) => {
        const p = createProjection(policy);
        for (const e of events) {
          p.apply(e);
          p.snapshot(); // forces derivation between events
        }
        const q = createProjection(policy);
        q.applyAll(events);
        expect(p.snapshot()).toEqual(q.snapshot());
      }),
      { numRuns: 100 },
    );
  });
});
