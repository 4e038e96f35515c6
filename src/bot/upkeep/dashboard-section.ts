import type { RepoRef } from "../../ports/issue-host.ts";
import type { LivenessOptions, Projection, TrustPolicy } from "../../projection/index.ts";
import { renderDashboard, renderResumeIndex, resumeIndexScope } from "../../dashboard/index.ts";
import type { RenderDashboardOptions, ResumeIndexRef } from "../../dashboard/index.ts";
import type { IssueMetaCell } from "./issue-meta.ts";

/** What the dashboard's section is rendered from: the projection, the meta cell, the clock and the settings. */
export interface DashboardSectionDeps {
  repo: RepoRef;
  issue: number;
  policy: Pick<TrustPolicy, "signingKey" | "legacyWriters">;
  projection: Pick<Projection, "snapshot">;
  meta: Pick<IssueMetaCell, "meta">;
  now: () => Date;
  liveness: Partial<LivenessOptions>;
  /** Dashboard options (docs link, bot URL for "How to resume", row cap). */
  dashboard?: Pick<RenderDashboardOptions, "docsUrl" | "apiUrl" | "maxRows" | "trustedAuthors">;
  /** Live comments at which the issue rolls over (the retention line). */
  rolloverAt: number;
  /** Health signals kept this long (the retention line). */
  healthRetentionMs: number;
}

/** What DashboardWriter writes, rendered at write time (its `render` and `resumeIndex.render`). */
export interface DashboardSection {
  /** The section as it would be written now (`ref`: pointing at the index comment instead of holding the index). */
  render(ref?: ResumeIndexRef | null): string;
  /** The resume index as it would be written now. */
  resumeIndex(): ReturnType<typeof renderResumeIndex>;
}

export function dashboardSection(d: DashboardSectionDeps): DashboardSection {
  /** Signing and legacy-writer policy of the resume index. */
  const indexOptions = (): Pick<RenderDashboardOptions, "resumeIndexSigning" | "legacyWriters"> => ({
    ...(d.policy.signingKey ? { resumeIndexSigning: { key: d.policy.signingKey, scope: resumeIndexScope(d.repo.owner, d.repo.repo, d.issue) } } : {}),
    ...(d.policy.legacyWriters ? { legacyWriters: d.policy.legacyWriters } : {}),
  });
  return {
    render: (ref) => {
      const meta = d.meta.meta;
      return renderDashboard(d.projection.snapshot(), d.now(), {
        liveness: d.liveness,
        ...d.dashboard,
        retention: {
          comments: d.projection.snapshot().comments,
          rolloverAt: d.rolloverAt,
          healthRetentionMs: d.healthRetentionMs,
          ...(meta.predecessor !== undefined ? { predecessor: meta.predecessor } : {}),
          ...(meta.successor !== undefined ? { successor: meta.successor } : {}),
          ...(meta.compaction ? { compaction: meta.compaction } : {}),
        },
        ...(meta.unconfirmed?.length ? { unconfirmed: meta.unconfirmed } : {}),
        ...indexOptions(),
        ...(ref !== undefined ? { resumeIndexRef: ref } : {}),
      });
    },
    resumeIndex: () => renderResumeIndex(d.projection.snapshot(), indexOptions()),
  };
}
