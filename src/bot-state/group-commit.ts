/** One queued write: runs inside the batch's transaction, settles after its commit. */
interface Job {
  run(): void;
  done(): void;
  fail(e: unknown): void;
}

/**
 * Group commit for a synchronous store (better-sqlite3): the writes queued during one turn of the
 * event loop (the deliveries whose bodies arrived in it) run in one transaction, committed once at
 * the turn's end (setImmediate), in the order they were queued. Each promise settles only after that
 * commit, so nothing is acknowledged before it is stored. A commit costs about as much as all of a
 * delivery's statements (the WAL frames of every page touched, written again per transaction):
 * sharing it is the saving (docs/benchmarks.md, "Issue 32, third round: ingest").
 *
 * When the batch fails, each write is run again in a transaction of its own, so one bad write
 * fails only its own caller; when that fails too (the store is unavailable), each caller gets its
 * own error and the sender retries. `flush()` commits what is queued now: the store calls it before
 * a read of what the queued writes change, so reads see every write queued before them.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  /** `transact` runs its function in one write transaction and commits it (or rolls back and throws). */
  constructor(private readonly transact: (fn: () => void) => void) {}

  /** Queue `fn` for this turn's transaction; resolves with its result once committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let out!: T;
      const run = () => {
        out = fn();
      };
      this.queue.push({ run, done: () => resolve(out), fail: reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commit what is queued (nothing when the queue is empty). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (!batch.length) return;
    this.queue = [];
    try {
      this.transact(() => {
        for (const j of batch) j.run();
      });
    } catch (e) {
      if (batch.length === 1) batch[0]?.fail(e);
      else for (const j of batch) this.alone(j);
      return;
    }
    for (const j of batch) j.done();
  }

  private alone(j: Job): void {
    try {
      this.transact(() => j.run());
    } catch (e) {
      j.fail(e);
      return;
    }
    j.done();
  }
}
