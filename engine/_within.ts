/**
 * Waiting on a promise for a bounded time.
 *
 * @module
 */

/**
 * `promise`'s value, or undefined once `ms` passed or `signal` aborted
 * (already aborted: undefined at once). A rejection of `promise` rejects.
 */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  signal?: AbortSignal,
): Promise<T | undefined> {
  if (signal?.aborted === true) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), ms);
    onAbort = () => done(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}
