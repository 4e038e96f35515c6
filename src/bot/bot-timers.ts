/** A periodic task: what it runs and how often (0 or less: never). */
export interface PeriodicTask {
  everyMs: number;
  run: () => Promise<void>;
}

/**
 * Start the bot's periodic tasks (poll, reconcile, liveness). A period that is
 * still running when the next is due is skipped, never overlapped. Timers are
 * unref'd so they never keep the process alive. Returns a stop function.
 */
export function startTimers(tasks: PeriodicTask[]): () => void {
  const handles: NodeJS.Timeout[] = [];
  for (const task of tasks) {
    if (task.everyMs <= 0) continue;
    let busy = false;
    const h = setInterval(() => {
      if (busy) return;
      busy = true;
      void task.run().finally(() => (busy = false));
    }, task.everyMs);
    h.unref();
    handles.push(h);
  }
  return () => handles.forEach(clearInterval);
}
