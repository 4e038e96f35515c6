import type { Logger } from "pino";
import type { BotState, IssueMeta } from "../../bot-state/index.ts";
import type { UnconfirmedChange } from "../../dashboard/index.ts";
import type { IssueLease } from "../replicas/issue-lease.ts";
import type { DashboardWriter } from "./dashboard-writer.ts";

/** What IssueMetaCell uses: the store's bookkeeping of the issue, the lease, the dashboard it marks. */
export interface IssueMetaDeps {
  store: Pick<BotState, "issueMeta" | "updateIssueMeta">;
  /** The store's key of this issue. */
  storeKey: string;
  /** owner/repo#issue, for logs. */
  key: string;
  lease: Pick<IssueLease, "current">;
  logger: Pick<Logger, "warn">;
  /** What the meta holds is on the dashboard (the retention line, the unconfirmed box changes). */
  dashboard: Pick<DashboardWriter, "markDirty">;
}

/** Unconfirmed box changes kept at most (the newest). */
const UNCONFIRMED_KEPT = 200;

/**
 * The store's bookkeeping of one issue (IssueMeta: predecessor, successor, compaction, unconfirmed box
 * changes), as this process last read or wrote it. One cell shared by the parts that read it (the
 * dashboard's section, upkeep, the tracker's successor) and the ones that write it (upkeep's refresh,
 * the control desk's unconfirmed changes), so none of them reaches into another for it.
 */
export class IssueMetaCell {
  meta: IssueMeta = {};

  constructor(private readonly d: IssueMetaDeps) {}

  /** The first read (a tracker's start). */
  async load(): Promise<IssueMeta> {
    this.meta = await this.d.store.issueMeta(this.d.storeKey);
    return this.meta;
  }

  /** Read it again; the dashboard is rewritten when it changed. */
  async refresh(): Promise<void> {
    const meta = await this.d.store.issueMeta(this.d.storeKey);
    if (JSON.stringify(meta) !== JSON.stringify(this.meta)) {
      this.meta = meta;
      this.d.dashboard.markDirty();
    }
  }

  /** Box changes the control desk did not run (the poster may not command): added to those kept, each once. */
  addUnconfirmed(changes: UnconfirmedChange[]): Promise<void> {
    const have = this.meta.unconfirmed ?? [];
    const key = (c: UnconfirmedChange) => JSON.stringify([c.action, c.agent, c.session, c.target ?? null]);
    const known = new Set(have.map(key));
    return this.storeUnconfirmed([...have, ...changes.filter((c) => !known.has(key(c)))].slice(-UNCONFIRMED_KEPT));
  }

  /** A person's command for this agent+session was accepted: its unconfirmed changes are settled. */
  async settle(agent: string, session: string): Promise<void> {
    const have = this.meta.unconfirmed ?? [];
    const left = have.filter((c) => c.agent !== agent || c.session !== session);
    if (left.length === have.length) return;
    await this.storeUnconfirmed(left);
    this.d.dashboard.markDirty();
  }

  /**
   * Keep the unconfirmed box changes (IssueMeta.unconfirmed) in the store, so the dashboard line outlives a
   * restart and a replica that takes over shows it too; without the lease, in memory only (the writer keeps them).
   */
  private async storeUnconfirmed(unconfirmed: UnconfirmedChange[]): Promise<void> {
    const fence = this.d.lease.current();
    if (fence) {
      try {
        this.meta = await this.d.store.updateIssueMeta(fence, this.d.storeKey, { unconfirmed });
        return;
      } catch (e) {
        this.d.logger.warn({ err: e, issue: this.d.key }, "storing the unconfirmed box changes failed; the dashboard shows them until this process stops (the reply comment names them too)");
      }
    }
    this.meta = { ...this.meta, unconfirmed };
  }
}
