import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

export async function selectAlert(db: Queryable, issue: IssueKey, alertKey: string): Promise<boolean> {
  return (await db.query("SELECT 1 FROM checkpost_alerts WHERE issue_key = $1 AND alert_key = $2", [issue, alertKey])).rowCount === 1;
}
