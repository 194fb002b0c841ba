import type { TaskEntry, WakeReason } from "./_entry.ts";

/**
 * Waits on `entry` until it settles or is dropped, `delay` milliseconds pass
 * (undefined: no limit) or `signal` aborts, and resolves with what `finish`
 * returns for why the wait ended (or rejects with what it throws). `finish`
 * runs at that moment, not when the caller resumes, so what it reads agrees
 * with the state that ended the wait; for an entry already settled it runs at
 * once. An abort, before or during the wait, rejects with the signal's reason.
 */
export function waitFor<Output, Result>(
  entry: TaskEntry<Output>,
  delay: number | undefined,
  signal: AbortSignal | undefined,
  finish: (reason: WakeReason | "timeout") => Result,
): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    signal?.throwIfAborted();
    const answer = (reason: WakeReason | "timeout"): void => {
      try {
        resolve(finish(reason));
      } catch (error) {
        reject(error);
      }
    };
    if (entry.settled) return answer("settled");
    const end = (reason: WakeReason | "timeout" | "abort"): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      entry.waiters.delete(end);
      if (reason === "abort") reject(signal?.reason);
      else answer(reason);
    };
    const onAbort = (): void => end("abort");
    const timer = delay === undefined ? undefined : setTimeout(() => end("timeout"), delay);
    signal?.addEventListener("abort", onAbort, { once: true });
    entry.waiters.add(end);
  });
}
