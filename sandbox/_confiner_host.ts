import type { BashExecRequest, BashRunResult } from "../seam/mod.ts";
import type { Launch, ResolvedLocalBashExecutorConfig } from "../engine/mod.ts";

/**
 * What the executor lends the sandbox's confiner: its private folder, a
 * direct run for the probes (unconfined, its launch changed by `wrap`), and
 * its config.
 */
export interface ConfinerHost {
  /** The executor's private folder, made again when an unconfined command removed it. */
  privateDir(): Promise<string>;
  /** Runs `request` on the direct path, its launch changed by `wrap`, never confined. */
  runDirect(request: BashExecRequest, wrap: (launch: Launch) => Launch): Promise<BashRunResult>;
  /** The executor's validated config. */
  readonly config: ResolvedLocalBashExecutorConfig;
}
