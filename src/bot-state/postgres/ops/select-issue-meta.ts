import { type IssueKey, type IssueMeta, IssueMetaSchema } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** An issue's meta (empty when none); `lock`: FOR UPDATE, to merge into it in the caller's transaction. */
export async function selectIssueMeta(db: Queryable, issue: IssueKey, lock = false): Promise<IssueMeta> {
  const sql = `SELECT meta FROM checkpost_issue_meta WHERE issue_key = $1${lock ? " FOR UPDATE" : ""}`;
  return IssueMetaSchema.parse((await db.query<{ meta: unknown }>(sql, [issue])).rows[0]?.meta ?? {});
}
