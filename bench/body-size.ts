/**
 * The issue body's size (issue 22): every `issue_comment` delivery and every cold read carries it.
 * Rendered in-process as the bot renders it: the dashboard section at the bench's 20 agents (data set
 * of 1,000 comments, signed index: inline while the section stays ≤ 32 KiB, else in its comment) and at 10,000 agents (index in its comment, the body holds
 * the pointer). Same inputs as test/unit/dashboard/body-size.test.ts, which asserts the targets.
 */
import { createProjection } from "../src/projection/index.ts";
import type { ProjectionSnapshot } from "../src/projection/index.ts";
import { formatCheckpoint } from "../src/protocol/index.ts";
import { renderDashboard, renderResumeIndex } from "../src/dashboard/index.ts";
import type { RenderDashboardOptions } from "../src/dashboard/index.ts";
import { DASHBOARD_SECTION_MAX_BYTES, RESUME_INDEX_INLINE_MAX_BYTES } from "../src/bot/upkeep/dashboard-writer.ts";
import { AGENT_LOGIN, generateDataset } from "./data.ts";

export interface BodySizeResult {
  /** Dashboard section bytes at the bench's 20 agents, as written (the index inline, or the pointer when inline would pass 32 KiB). */
  agents20Bytes: number;
  /** Dashboard section bytes at 10,000 agents (pointer to the index comment), and the index comment's bytes. */
  agents10kBytes: number;
  index10kBytes: number;
}

const url = (id: number) => `https://forgejo.example.org/acme/widgets/issues/1#issuecomment-${id}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** The bench's 20 agents: its data set of 1,000 comments, projected (test/unit/dashboard/body-size.test.ts too). */
export function benchAgentsProjection(now: number) {
  const ds = generateDataset(1000, now, 42);
  const p = createProjection({ trustedAuthors: new Set([AGENT_LOGIN]) });
  p.replaceAll(ds.comments.map((c, i) => ({ id: i + 1, author: c.login, body: c.body, createdAt: iso(c.at), updatedAt: iso(c.at), htmlUrl: url(i + 1) })));
  return p;
}

/** 10,000 agents, one checkpoint each, a second apart from t0 (test/unit/dashboard/body-size.test.ts too). */
export function tenThousandAgentsProjection(t0: number) {
  const p = createProjection({ trustedAuthors: new Set(["agent"]) });
  p.replaceAll(
    Array.from({ length: 10_000 }, (_, i) => ({
      id: i + 1,
      author: "agent",
      body: formatCheckpoint({ agent: `worker-${String(i).padStart(5, "0")}`, session: `sess-${i}-2026`, phase: "subtask_1_complete", timestamp: iso(t0 + i * 1000), data: { i } }),
      createdAt: iso(t0 + i * 1000),
      updatedAt: iso(t0 + i * 1000),
      htmlUrl: url(i + 1),
    })),
  );
  return p;
}

/**
 * The section as the bot's DashboardWriter writes it: the index inline while it and the section are
 * small enough (RESUME_INDEX_INLINE_MAX_BYTES, DASHBOARD_SECTION_MAX_BYTES), else a pointer to the
 * index comment (here comment 1001, as if the bot had posted it after the bench's 1,000 comments).
 */
export function sectionAsWritten(snap: ProjectionSnapshot, now: Date, opts: Pick<RenderDashboardOptions, "resumeIndexSigning"> = {}): string {
  const index = renderResumeIndex(snap, opts);
  const inline = renderDashboard(snap, now, opts);
  if (Buffer.byteLength(index.text) <= RESUME_INDEX_INLINE_MAX_BYTES && Buffer.byteLength(inline) <= DASHBOARD_SECTION_MAX_BYTES) return inline;
  return renderDashboard(snap, now, { ...opts, resumeIndexRef: { comment: 1001, since: index.since ?? "" } });
}

export function measureBodySize(): BodySizeResult {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const small = benchAgentsProjection(now);
  const agents20Bytes = Buffer.byteLength(sectionAsWritten(small.snapshot(), new Date(now), { resumeIndexSigning: { key: "k", scope: "acme/widgets#1" } }));
  const t0 = Date.parse("2026-12-01T00:00:00Z");
  const snap = tenThousandAgentsProjection(t0).snapshot();
  const index = renderResumeIndex(snap);
  const agents10kBytes = Buffer.byteLength(renderDashboard(snap, new Date(t0 + 10_001_000), { resumeIndexRef: { comment: 10_001, since: index.since ?? "" } }));
  return { agents20Bytes, agents10kBytes, index10kBytes: Buffer.byteLength(index.text) };
}
