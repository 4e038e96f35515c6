import { type CommandClaims, type IssueBookkeeping, IssueMetaSchema } from "../index.ts";
import { insertAlert } from "./ops/insert-alert.ts";
import { insertCommandClaim } from "./ops/insert-command-claim.ts";
import { selectAlert } from "./ops/select-alert.ts";
import { selectIssueMeta } from "./ops/select-issue-meta.ts";
import { upsertIssueMeta } from "./ops/upsert-issue-meta.ts";
import type { StoreConnection } from "./store-connection.ts";

/** The IssueBookkeeping and CommandClaims ports on PostgreSQL: alerts, rollover/compaction meta, claimed commands. */
export function postgresIssueBookkeeping(db: StoreConnection): IssueBookkeeping & CommandClaims {
  return {
    recordAlert: (fence, issue, alertKey) => db.fenced(fence, (c) => insertAlert(c, issue, alertKey, fence.token)),
    hasAlert: (issue, alertKey) => db.guard(() => selectAlert(db.pool, issue, alertKey)),
    issueMeta: (issue) => db.guard(() => selectIssueMeta(db.pool, issue)),
    updateIssueMeta: (fence, issue, patch) =>
      db.fenced(fence, async (c) => {
        const next = IssueMetaSchema.parse({ ...(await selectIssueMeta(c, issue, true)), ...patch });
        await upsertIssueMeta(c, issue, next);
        return next;
      }),
    claimCommand: (issue, key, outcome) => db.guard(() => insertCommandClaim(db.pool, issue, key, outcome, db.nowParam())),
  };
}
