// The only places the suite calls an executor's run() and start(): when the
// seam's call shape changes, these two functions change and nothing else.
import type { BashExecRequest, BashExecutor, BashProcess, BashRunResult } from "../seam/mod.ts";

/** Runs `request` in the foreground on `executor`; a refused value rejects. */
export async function runOn(
  executor: BashExecutor,
  request: BashExecRequest,
): Promise<BashRunResult> {
  return await executor.run(request);
}

/** Starts `request` in the background on `executor`; a refused value rejects. */
export async function startOn(
  executor: BashExecutor,
  request: BashExecRequest,
): Promise<BashProcess> {
  return await executor.start(request);
}
