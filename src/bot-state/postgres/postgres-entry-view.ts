import type { EntryView } from "../index.ts";
import { deleteEntries } from "./ops/delete-entries.ts";
import { selectEntries } from "./ops/select-entries.ts";
import { selectEntry } from "./ops/select-entry.ts";
import { selectProjectionState } from "./ops/select-projection-state.ts";
import { selectResumeIndex } from "./ops/select-resume-index.ts";
import { upsertEntries } from "./ops/upsert-entries.ts";
import { upsertProjectionState } from "./ops/upsert-projection-state.ts";
import { upsertResumeIndex } from "./ops/upsert-resume-index.ts";
import type { StoreConnection } from "./store-connection.ts";

type Key = { agent: string; session: string };
/** Rows in one order for every replica (row locks): by agent, then session. */
const byKey = (a: Key, b: Key) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : a.session < b.session ? -1 : a.session > b.session ? 1 : 0);

/** The EntryView port on PostgreSQL: what the bot derived from the comments. */
export function postgresEntryView(db: StoreConnection): EntryView {
  return {
    putProjectionState: (issue, state) => db.guard(() => upsertProjectionState(db.pool, issue, state)),
    projectionState: (issue) => db.guard(() => selectProjectionState(db.pool, issue)),
    putEntries: async (issue, entries, removed = []) => {
      if (!entries.length && !removed.length) return;
      const sorted = [...entries].sort(byKey);
      // One statement is its own transaction: one round trip, where BEGIN and COMMIT made three (issue 32).
      if (!removed.length) return db.guard(() => upsertEntries(db.pool, issue, sorted));
      if (!sorted.length) return db.guard(() => deleteEntries(db.pool, issue, removed));
      await db.tx(async (c) => {
        if (removed.length) await deleteEntries(c, issue, removed);
        if (sorted.length) await upsertEntries(c, issue, sorted);
      });
    },
    entries: (issue) => db.guard(() => selectEntries(db.pool, issue)),
    entry: (issue, agent, session) => db.guard(() => selectEntry(db.pool, issue, agent, session)),
    putResumeIndex: (fence, issue, index) => db.fenced(fence, (c) => upsertResumeIndex(c, issue, index, fence.token)),
    resumeIndex: (issue) => db.guard(() => selectResumeIndex(db.pool, issue)),
  };
}
