import type { NewComment } from "./ops/insert-new-comments.ts";

/** Deliveries a batch carries at most (14 array parameters, whatever the count). */
export const MAX_BATCH = 256;

interface Waiting {
  item: NewComment;
  settle: (inserted: boolean) => void;
  fail: (e: unknown) => void;
}

/**
 * Group commit for webhooks' new comments: a delivery that arrives while no batch is being written is
 * written at once, alone; deliveries that arrive while one is in flight wait and are written together,
 * in one statement, when it returns. Each caller's promise settles only after its batch's statement
 * committed (true: its row was inserted; false: nothing of it was written, take the general path), or
 * rejects with the batch's error: nothing is acknowledged that was not committed. When the server
 * refused a batch for what one row holds (`isolate(e)`: PostgreSQL answered, so it is up), each of its
 * deliveries is written again alone, so one bad delivery fails only itself. A batch never holds one
 * delivery id or one (issue, comment id) twice: a repeat waits for the next batch.
 */
export class NewCommentBatches {
  private queue: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: readonly NewComment[]) => Promise<Set<number>>,
    private readonly isolate: (e: unknown) => boolean = () => false,
  ) {}

  add(item: NewComment): Promise<boolean> {
    return new Promise<boolean>((settle, fail) => {
      this.queue.push({ item, settle, fail });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length) {
        const batch = this.take();
        try {
          const inserted = await this.write(batch.map((w) => w.item));
          for (const [i, w] of batch.entries()) w.settle(inserted.has(i));
        } catch (e) {
          if (batch.length > 1 && this.isolate(e)) await this.alone(batch);
          else for (const w of batch) w.fail(e);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async alone(batch: readonly Waiting[]): Promise<void> {
    for (const w of batch)
      await this.write([w.item]).then(
        (inserted) => w.settle(inserted.has(0)),
        (e: unknown) => w.fail(e),
      );
  }

  /** The next batch: up to MAX_BATCH waiting deliveries in arrival order, no key twice. */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const seen = new Set<string>();
    for (const w of this.queue) {
      const keys = [`d ${w.item.deliveryId}`, `c ${w.item.row.id} ${w.item.issue}`];
      if (batch.length >= MAX_BATCH || keys.some((k) => seen.has(k))) {
        rest.push(w);
        continue;
      }
      for (const k of keys) seen.add(k);
      batch.push(w);
    }
    this.queue = rest;
    return batch;
  }
}
