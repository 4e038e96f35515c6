/** Benchmark-sized data (timings are printed, not asserted: speed is for `npm run bench`): 50,000 comments on one issue, bulk-inserted in one transaction and listed at once. */
import { afterAll, expect, it } from "vitest";
import { api, asArray, asRecord, seededForge, type Seeded } from "./helpers.ts";

let s: Seeded | undefined;
afterAll(async () => {
  await s?.forge.close();
});

it("bulk-loads and lists 50,000 comments", async () => {
  s = await seededForge();
  const issue = s.forge.admin.createIssue("alice", "widgets", { title: "big" });
  let t = Date.now();
  const r = s.forge.admin.bulkComments(
    "alice",
    "widgets",
    issue.number,
    Array.from({ length: 50_000 }, (_, i) => ({ login: i % 3 ? "bob" : "alice", body: `comment ${i}`, createdAt: Date.UTC(2026, 0, 1) + i * 1000 })),
  );
  const bulkMs = Date.now() - t;
  expect(r.count).toBe(50_000);
  expect(r.lastId - r.firstId).toBe(49_999);
  t = Date.now();
  const reply = await api(s.forge, "GET", `/repos/alice/widgets/issues/${issue.number}/comments`);
  const listMs = Date.now() - t;
  const list = asArray(reply.json);
  expect(list).toHaveLength(50_000);
  expect(asRecord(list[49_999]).body).toBe("comment 49999");
  // since on the last 10 seconds of updated_at uses the (issue_id, updated_unix) index.
  const tail = asArray((await api(s.forge, "GET", `/repos/alice/widgets/issues/${issue.number}/comments?since=${new Date(Date.UTC(2026, 0, 1) + 49_990_000).toISOString()}`)).json);
  expect(tail).toHaveLength(10);
  console.log(`forge scale: bulk 50k in ${bulkMs} ms, list in ${listMs} ms`);
});
