// The only places the suite calls an executor's run() and start(): when the
// seam's call shape changes, these two functions change and nothing else.
import type { BashExecRequest, BashExecutor, BashProcess, BashRunResult } from "../seam/mod.ts";

/**
 * Runs `request` in the foreground on `executor`. Async, so a value that
 * `resolve()` refuses arrives as a rejection, as it would from `run()`.
 */
export async function runOn(
  executor: BashExecutor,
  request: BashExecRequest,
): Promise<BashRunResult> {
  return await executor.run(executor.resolve(request));
}

/** Starts `request` in the background on `executor`; a refused value rejects. */
export async function startOn(
  executor: BashExecutor,
  request: BashExecRequest,
): Promise<BashProcess> {
  return await executor.start(executor.resolve(request));
}
