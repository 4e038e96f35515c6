import { randomUUID } from "node:crypto";
import type pg from "pg";
import { ChangesUnheardError } from "../changes-unheard-error.ts";
import type { ChangeListener, IssueKey } from "../index.ts";
import { sendNotify } from "./ops/send-notify.ts";
import type { Queryable } from "./ops/queryable.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

/** Migration 4's trigger notifies this channel with the issue key of every comment change. */
export const CHANGES_CHANNEL = "checkpost_comments";

/**
 * Call `onChange(issue, fromSelf)` whenever a transaction that changed an issue's comment rows commits, on any
 * replica (migration 4's trigger NOTIFYs the issue key on CHANGES_CHANNEL). One connection of its
 * own (`c`, not yet connected) holds the LISTEN. Before resolving, a probe NOTIFY sent through the pool
 * must come back on it within `probeMs`: behind a transaction-pooling proxy (pgbouncer `pool_mode =
 * transaction`) the LISTEN lands on a server connection the proxy hands to others, nothing ever arrives,
 * and this rejects with ChangesUnheardError so the caller knows it is left with its poll. `onLost` is
 * called once if the connection drops later (the caller polls meanwhile and may listen again).
 * `fromSelf` is true when the notifying backend is one of `ownPids` (this store's pool connections):
 * the change was committed by this process.
 */
export async function listenChanges(
  c: pg.Client,
  pool: Queryable,
  onChange: (issue: IssueKey, fromSelf: boolean) => void,
  onLost: (e: Error) => void,
  probeMs: number,
  ownPids: ReadonlySet<number> = new Set(),
): Promise<ChangeListener> {
  const probe = `probe ${randomUUID()}`;
  let heard!: () => void;
  const probed = new Promise<void>((r) => (heard = r));
  let closing = false;
  let lost = false;
  const drop = (e: Error) => {
    if (closing || lost) return;
    lost = true;
    onLost(e);
  };
  c.on("notification", (m) => {
    if (m.channel !== CHANGES_CHANNEL || m.payload === undefined) return;
    if (m.payload === probe) heard();
    else if (!m.payload.startsWith("probe ")) onChange(m.payload, ownPids.has(m.processId));
  });
  c.on("error", drop);
  c.on("end", () => drop(new Error("the LISTEN connection closed")));
  const close = async () => {
    closing = true;
    await c.end().catch(() => undefined);
  };
  try {
    await c.connect();
    await c.query(`LISTEN ${CHANGES_CHANNEL}`);
    await sendNotify(pool, CHANGES_CHANNEL, probe);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), probeMs)));
    const got = await Promise.race([probed.then(() => "heard" as const), late]).finally(() => clearTimeout(timer));
    if (got === "late") throw new ChangesUnheardError(`a NOTIFY sent through the pool did not come back on the LISTEN connection within ${probeMs} ms`);
  } catch (e) {
    await close();
    if (e instanceof ChangesUnheardError) throw e;
    throw new StoreUnavailableError(`PostgreSQL store: cannot LISTEN for changes: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return { close };
}
