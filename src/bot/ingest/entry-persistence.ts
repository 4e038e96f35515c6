import type { Logger } from "pino";
import type { BotState } from "../../bot-state/index.ts";
import type { AgentEntry, Projection } from "../../projection/index.ts";
import { entryKey } from "../../projection/index.ts";
import type { AnomalyLog } from "../anomaly-log.ts";

/** What EntryPersistence uses: the projection it reads, the store it writes, and no more. */
export interface EntryPersistenceDeps {
  projection: Pick<Projection, "snapshot" | "sealedState">;
  store: Pick<BotState, "putEntries" | "putProjectionState">;
  /** The store's key of this issue. */
  storeKey: string;
  /** owner/repo#issue, for logs. */
  key: string;
  logger: Pick<Logger, "warn">;
  now: () => Date;
  /** Anomalies already logged by this process (shared by its trackers). */
  anomalyLog: AnomalyLog;
}

/** How often (at most) the projection's folded state is written to the store, besides on stop. */
const SEALED_STATE_EVERY_MS = 60_000;

/** Writes one issue's changed entries (and, now and then, its folded state) to the store, one write at a time. */
export class EntryPersistence {
  /** Entries as last written to the store, to write only those that changed. */
  private persisted = new Map<string, AgentEntry>();
  private persisting: Promise<void> | null = null;
  private persistAgain = false;
  private sealedWrittenAt = 0;

  constructor(private readonly t: EntryPersistenceDeps) {}

  /** Write what the projection folded away, so the next start parses only the newest comments. */
  async storeSealedState(): Promise<void> {
    this.sealedWrittenAt = this.t.now().getTime();
    await this.t.store.putProjectionState(this.t.storeKey, JSON.stringify(this.t.projection.sealedState()));
  }

  /** Resolves when the entries changed so far are in the store. */
  async stored(): Promise<void> {
    while (this.persisting) await this.persisting;
  }

  /** Write the entries that changed since the last write (derived entries are cached objects: identity tells). */
  persist(): void {
    if (this.persisting) {
      this.persistAgain = true;
      return;
    }
    const { store, logger, projection, key, storeKey, anomalyLog } = this.t;
    this.persisting = new Promise<void>((r) => setImmediate(r))
      .then(async () => {
        const current = new Map<string, AgentEntry>();
        const changed: AgentEntry[] = [];
        const snap = projection.snapshot();
        // Once per process, not on every re-derivation: the same anomaly is listed after each change.
        anomalyLog.note(logger, key, snap.anomalies);
        for (const e of snap.entries) {
          const k = entryKey(e.agent, e.session);
          current.set(k, e);
          if (this.persisted.get(k) !== e) changed.push(e);
        }
        const removed = [...this.persisted.entries()].filter(([k]) => !current.has(k)).map(([, e]) => ({ agent: e.agent, session: e.session }));
        if (changed.length || removed.length) await store.putEntries(storeKey, changed, removed);
        this.persisted = current;
        if (this.t.now().getTime() - this.sealedWrittenAt >= SEALED_STATE_EVERY_MS) await this.storeSealedState();
      })
      .catch((e: unknown) => logger.warn({ err: e, issue: key }, "storing entries failed; will retry on the next change"))
      .finally(() => {
        this.persisting = null;
        if (this.persistAgain) {
          this.persistAgain = false;
          this.persist();
        }
      });
  }
}
