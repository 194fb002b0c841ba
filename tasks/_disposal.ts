import type { TaskEntry } from "./_entry.ts";

/** The reason recorded as `killReason` when `disposeOwner` or disposal stops a task. */
const DISPOSE_REASON = "disposed with its owner";

/**
 * Stops and drops the tasks that `select` returns, and asks again until it
 * returns none, so a task registered meanwhile goes too. For each task:
 * 1. an unsettled one is asked to stop, and awaited until it settles or is
 *    dropped;
 * 2. it is dropped with `drop`, which is told whether its cancel failed (such
 *    a task is not awaited).
 *
 * Once no task is left, a failed cancel rejects with an `AggregateError` of
 * every cancel error.
 */
export async function disposeEntries<Output>(
  select: () => TaskEntry<Output>[],
  drop: (entry: TaskEntry<Output>, cancelFailed: boolean) => void,
): Promise<void> {
  const failures: { id: string; error: unknown }[] = [];
  for (;;) {
    const entries = select();
    if (entries.length === 0) break;
    await Promise.all(entries.map(async (entry) => {
      let cancelFailed = false;
      if (!entry.settled) {
        try {
          await entry.requestStop(DISPOSE_REASON);
          await entry.settledOrDropped();
        } catch (error) {
          cancelFailed = true;
          failures.push({ id: entry.id, error });
        }
      }
      drop(entry, cancelFailed);
    }));
  }
  if (failures.length > 0) {
    throw new AggregateError(
      failures.map((f) => f.error),
      `Could not cancel ${failures.length} task(s) (${
        failures.map((f) => `"${f.id}"`).join(", ")
      }); they were dropped but may still be running, so stop them by other means`,
    );
  }
}
