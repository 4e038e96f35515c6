import type { IssueKey } from "../../index.ts";
import type { Queryable } from "./queryable.ts";

/** Record an alert as posted under this fencing token; false when it already was. */
export async function insertAlert(db: Queryable, issue: IssueKey, alertKey: string, token: number): Promise<boolean> {
  const r = await db.query("INSERT INTO checkpost_alerts (issue_key, alert_key, token) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [issue, alertKey, token]);
  return r.rowCount === 1;
}
