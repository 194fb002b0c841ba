import type { BashExecutorCapabilities, BashExecutorFactory } from "./executor_options.ts";
import { type CaseDefinition, Harness, type SharedExecutor, withHarness } from "./_harness.ts";
import { killHere, processesHere } from "./_processes.ts";
import { backgroundCases } from "./_background.ts";
import { clockCases } from "./_clocks.ts";
import { disposalCases } from "./_disposal.ts";
import { foregroundCases } from "./_foreground.ts";
import { inputCases } from "./_input.ts";
import { liveCases } from "./_live.ts";
import { outputCases } from "./_output.ts";
import { strayCases } from "./_strays.ts";

/**
 * How to run the suite against one executor.
 *
 * @example
 * ```ts
 * import type { BashExecutorConformanceOptions } from "@shellseam/bash/testing";
 * import assert from "node:assert/strict";
 *
 * const options: BashExecutorConformanceOptions = {
 *   capabilities: { drainGrace: false },
 *   skip: false,
 *   select: (test) => test.group !== "disposal",
 * };
 * assert.equal(options.select?.({ group: "output", name: "any" }), true);
 * ```
 */
export interface BashExecutorConformanceOptions {
  /** Where the executor keeps a weaker form of the contract; everything defaults to the full one. */
  capabilities?: BashExecutorCapabilities;
  /**
   * Live (not zombie) pids of processes, where the executor runs commands,
   * whose command line (arguments joined by spaces) contains `text`. The
   * suite uses it to wait for a command's process and to check that none is
   * left behind. Default: a census of this machine's /proc (Linux; under
   * Deno it needs `--allow-all`).
   */
  findProcesses?: (text: string) => Promise<number[]>;
  /** A message when the executor cannot run here (every case is skipped with it), else false. */
  skip?: string | false;
  /** Which cases to run (default: all), by group and name. */
  select?: (test: { group: string; name: string }) => boolean;
}

/**
 * One check of the contract, independent of any test runner.
 *
 * @example
 * ```ts
 * import { bashExecutorConformanceCases, type ConformanceCase } from "@shellseam/bash/testing";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const cases: ConformanceCase[] = bashExecutorConformanceCases((options) =>
 *   new LocalBashExecutor(options)
 * );
 * const first = cases[0]!;
 * assert.equal(first.skip, false);
 * await first.run();
 * ```
 */
export interface ConformanceCase {
  /** The behaviour it belongs to: "foreground", "clocks", "strays", "output", "input", "background", "live" or "disposal". */
  group: string;
  /** What it checks, as a sentence. */
  name: string;
  /** Why it does not apply to this executor (a capability it declared `false`), else false. */
  skip: string | false;
  /**
   * Runs it: makes its executors through the factory, runs its commands,
   * disposes the executors and checks that none of its processes is left.
   * Rejects with an assertion error when the executor breaks the contract.
   */
  run(): Promise<void>;
}

const GROUPS: readonly [string, readonly CaseDefinition[]][] = [
  ["foreground", foregroundCases],
  ["clocks", clockCases],
  ["strays", strayCases],
  ["output", outputCases],
  ["input", inputCases],
  ["background", backgroundCases],
  ["live", liveCases],
  ["disposal", disposalCases],
];

/**
 * The contract of `BashExecutor` as a list of cases, for any test runner:
 * foreground exit codes and signals, the wall and idle clocks, abort, pipes
 * held by background children (the drain grace), strays killed and counted,
 * head + tail + spill byte for byte, invalid UTF-8, stdin, env and managed
 * env, background start/read/write/kill, and disposal leaving nothing.
 * `describeBashExecutorConformance` registers them with `node:test`.
 *
 * @example Run the output cases against the local executor
 * ```ts
 * import { bashExecutorConformanceCases } from "@shellseam/bash/testing";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const cases = bashExecutorConformanceCases((options) => new LocalBashExecutor(options), {
 *   select: (test) => test.group === "output",
 * });
 * assert.ok(cases.length >= 5);
 * for (const test of cases) await test.run();
 * ```
 */
export function bashExecutorConformanceCases(
  factory: BashExecutorFactory,
  options: BashExecutorConformanceOptions = {},
): ConformanceCase[] {
  return conformanceCases(factory, options);
}

/**
 * The cases of {@linkcode bashExecutorConformanceCases}; with `shared`, those
 * that take the suite's options run on that one executor (see `SharedExecutor`).
 */
export function conformanceCases(
  factory: BashExecutorFactory,
  options: BashExecutorConformanceOptions,
  shared?: SharedExecutor,
): ConformanceCase[] {
  const capabilities: Required<BashExecutorCapabilities> = {
    termGrace: true,
    drainGrace: true,
    countsStrays: true,
    reportsShellSignal: true,
    ...options.capabilities,
  };
  const find = options.findProcesses ?? processesHere;
  const killLeftovers = options.findProcesses === undefined ? killHere : undefined;
  const cases: ConformanceCase[] = [];
  for (const [group, definitions] of GROUPS) {
    for (const definition of definitions) {
      const { name, needs, fresh, body } = definition;
      const sharing = fresh === true ? undefined : shared;
      if (options.select !== undefined && !options.select({ group, name })) continue;
      const skip = options.skip ||
        (needs !== undefined && !capabilities[needs] &&
          `the executor declares "${needs}: false"`);
      cases.push({
        group,
        name,
        skip,
        run: () =>
          withHarness(
            new Harness(factory, capabilities, find, killLeftovers, sharing),
            body,
            sharing,
          ),
      });
    }
  }
  return cases;
}
