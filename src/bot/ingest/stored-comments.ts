import type { Logger } from "pino";
import type { BotState, StoredComment } from "../../bot-state/index.ts";
import type { Projection } from "../../projection/index.ts";

/** The one issue's comments in the store: all these functions read. */
export interface StoredIssue {
  store: Pick<BotState, "comments">;
  /** The store's key of this issue. */
  storeKey: string;
}

/** Stored comments read per page on restart and reconcile (the bodies are never all held at once). */
export const STORE_PAGE = 2000;

/**
 * Every stored comment, a page at a time. With `claim`, a page is read without
 * bodies and `claim` takes what needs none (folded comments); only the rest
 * are read again with their bodies (a restart: most bodies stay in the store).
 * `bodies: false` without `claim`: `fn` needs only ids, versions and tombstones.
 */
export async function forEachStored(t: StoredIssue, fn: (c: StoredComment) => void, opts: { claim?: (c: StoredComment) => boolean; bodies?: false } = {}): Promise<number> {
  const { claim } = opts;
  let afterId = 0;
  let n = 0;
  for (;;) {
    const page = await t.store.comments(t.storeKey, { afterId, limit: STORE_PAGE, ...(claim || opts.bodies === false ? { bodies: false } : {}) });
    if (claim) {
      const rest = page.filter((c) => !claim(c)).map((c) => c.id);
      if (rest.length) for (const c of await t.store.comments(t.storeKey, { ids: rest })) fn(c);
    } else for (const c of page) fn(c);
    n += page.length;
    const last = page[page.length - 1];
    if (!last || page.length < STORE_PAGE) return n;
    afterId = last.id;
  }
}

/**
 * The rare fallback of a bounded projection: an edit, delete or late comment
 * reached records it no longer holds, so read those entries' comments back
 * from the store (by id, only theirs) and fold them again.
 */
export async function readHistory(t: StoredIssue & { projection: Pick<Projection, "historyNeeded" | "hydrate">; logger: Pick<Logger, "debug">; key: string }): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const needed = t.projection.historyNeeded();
    if (!needed.length) return;
    const stored = await t.store.comments(t.storeKey, { ids: [...new Set(needed.flatMap((n) => n.ids))] });
    for (const n of needed) {
      const ids = new Set(n.ids);
      t.projection.hydrate(
        n.key,
        stored.filter((c) => ids.has(c.id)),
      );
    }
    t.logger.debug({ issue: t.key, entries: needed.length, comments: stored.length }, "read entry history back from the store");
  }
}
