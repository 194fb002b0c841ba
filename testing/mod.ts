/**
 * The conformance suite of the `BashExecutor` seam: the contract every
 * executor keeps, as cases parametrized by a factory that makes the executor
 * under test. {@linkcode describeBashExecutorConformance} registers them with
 * `node:test` (run by `deno test` and `node --test`);
 * {@linkcode bashExecutorConformanceCases} hands them out for any other
 * runner. Where an executor keeps a weaker form of a promise because of how
 * it isolates commands, it declares that in `capabilities`.
 *
 * Nothing else in the package imports this entry, so `node:test` is loaded
 * only by those who import it.
 *
 * @example
 * ```ts
 * import { bashExecutorConformanceCases } from "@shellseam/bash/testing";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const [exitCodes] = bashExecutorConformanceCases((options) => new LocalBashExecutor(options), {
 *   select: (test) => test.name.startsWith("reports stdout, stderr and the exit code"),
 * });
 * assert.equal(exitCodes?.group, "foreground");
 * await exitCodes?.run();
 * ```
 *
 * @module
 */
export {
  bashExecutorConformanceCases,
  type BashExecutorConformanceOptions,
  type ConformanceCase,
} from "./cases.ts";
export type {
  BashExecutorCapabilities,
  BashExecutorFactory,
  ConformanceExecutorOptions,
} from "./executor_options.ts";
export { describeBashExecutorConformance } from "./describe.ts";
