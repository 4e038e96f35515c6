/**
 * Issue 9 at full size, in the slow suite: the web view of an issue holding an 8 MB and a 30 MB comment
 * renders (truncated) instead of answering 500. `npm test` runs the 8 MB case (web-view-xss.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { WEB_BODY_LIMIT } from "../../src/embedded-forge/web-view.ts";
import { api, asRecord, seededForge, type Seeded } from "../forge/helpers.ts";

let s: Seeded | undefined;
afterEach(async () => {
  await s?.forge.close();
  s = undefined;
});

describe("web view of a huge issue", () => {
  it("renders an issue with an 8 MB and a 30 MB comment, truncated, instead of answering 500", async () => {
    s = await seededForge();
    const i = s.forge.admin.createIssue("alice", "widgets", { title: "huge" });
    const eight = `[CHECKPOINT] evil\n${"x".repeat(8 * 1024 * 1024)}`;
    const thirty = "y".repeat(30 * 1024 * 1024);
    const a = asRecord((await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: eight } })).json);
    const b = asRecord((await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: thirty } })).json);
    await api(s.forge, "POST", `/repos/alice/widgets/issues/${i.number}/comments`, { token: s.bob, body: { body: "small **after**" } });
    const res = await fetch(`${s.forge.url}/alice/widgets/issues/${i.number}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html.length).toBeLessThan(4 * WEB_BODY_LIMIT);
    expect(html).toContain(`Truncated: this text is ${eight.length.toLocaleString("en-US")} characters`);
    expect(html).toContain(`/api/v1/repos/alice/widgets/issues/comments/${String(a.id)}`);
    expect(html).toContain(`/api/v1/repos/alice/widgets/issues/comments/${String(b.id)}`);
    expect(html).toContain("<strong>after</strong>");
  });
});
