import { after, describe, it } from "node:test";
import { type BashExecutorConformanceOptions, conformanceCases } from "./cases.ts";
import { disposeWithin, SharedExecutor } from "./_harness.ts";
import type { BashExecutorFactory } from "./executor_options.ts";

/**
 * Registers the conformance suite of `BashExecutor` with `node:test`, which
 * both `deno test` and `node --test` run: one `describe` named `name`, one
 * nested `describe` per behaviour, one `it` per case (see
 * {@linkcode bashExecutorConformanceCases} for what they check). Call it at
 * the top level of a test file. The cases that take the suite's limits run
 * on one executor they share, as the commands of an agent's session do: made
 * through `factory` on first use, disposed after the last case (and after a
 * case that failed, so the next one gets a new executor). A case that needs
 * other limits, disposes its executor or sets what an executor reads when it
 * is made gets executors of its own, disposed when it ends. Each case kills
 * the background processes it left, and fails when a process of its commands
 * is still running then. Under Deno, run it with `--allow-all` (the suite
 * reads /proc), or pass `findProcesses`.
 *
 * @example Run the suite against an executor, here from a generated test file
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 * import { spawnSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import process from "node:process";
 *
 * // A test file of your own holds these lines (here a few cases are selected).
 * const testFile = `
 * import { describeBashExecutorConformance } from "${import.meta.resolve("@shellseam/bash/testing")}";
 * import { LocalBashExecutor } from "${import.meta.resolve("@shellseam/bash/local")}";
 *
 * describeBashExecutorConformance("LocalBashExecutor", (options) => new LocalBashExecutor(options), {
 *   select: (test) => test.group === "input",
 * });
 * `;
 * const dir = mkdtempSync(join(tmpdir(), "conformance-example-"));
 * try {
 *   writeFileSync(join(dir, "local_test.ts"), testFile);
 *   const run = spawnSync(process.execPath, ["test", "--allow-all", "local_test.ts"], { cwd: dir });
 *   assert.equal(run.status, 0, run.stdout.toString() + run.stderr.toString());
 *   assert.match(run.stdout.toString(), /passes env and managedEnv values exactly \.\.\. .*ok/);
 * } finally {
 *   rmSync(dir, { recursive: true });
 * }
 * ```
 */
export function describeBashExecutorConformance(
  name: string,
  factory: BashExecutorFactory,
  options: BashExecutorConformanceOptions = {},
): void {
  const shared = new SharedExecutor(factory);
  const cases = conformanceCases(factory, options, shared);
  const groups = [...new Set(cases.map((test) => test.group))];
  describe(name, () => {
    after(() => shared.close(disposeWithin));
    for (const group of groups) {
      describe(group, () => {
        for (const test of cases.filter((test) => test.group === group)) {
          it(test.name, { skip: test.skip }, () => test.run());
        }
      });
    }
  });
}
