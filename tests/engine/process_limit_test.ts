// A command the kernel refuses a process for (EAGAIN: the user's process
// limit, `ulimit -u`, which counts every thread, or the system's): the call
// rejects with a BashSpawnError that says so, not that a program is missing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LocalBashExecutor, type Runtime, runtime, type SpawnRequest } from "../../local/mod.ts";
import { WATCHDOG_NAME } from "../../engine/_watchdog.ts";
import { BashSpawnError } from "../../seam/mod.ts";

/**
 * A runtime that refuses each process as Deno does at the process limit;
 * the watchdog starts unless `watchdogToo`.
 */
function refusingRuntime(watchdogToo = false): Runtime {
  return {
    ...runtime,
    spawn: (request: SpawnRequest) => {
      if (!watchdogToo && request.args.includes(WATCHDOG_NAME)) return runtime.spawn(request);
      const error = new Error(
        `Failed to spawn '${request.program}': Resource temporarily unavailable (os error 11)`,
      );
      return Promise.reject(Object.assign(error, { code: "EAGAIN" }));
    },
  };
}

describe("a user at its process limit", () => {
  it("fails each run with a BashSpawnError that names the limit, not a missing program", async () => {
    await using executor = new LocalBashExecutor({ runtime: refusingRuntime() });
    await assert.rejects(
      executor.run(executor.resolve({ command: "true" })),
      (error: unknown) =>
        error instanceof BashSpawnError &&
        // The spawn's own error, which names the program, is kept as it is.
        /^Could not start "[^"]+": the kernel refused a new process \(EAGAIN\): this user has as many processes as its limit allows \(ulimit -u/
          .test(error.message) &&
        !/check that the program/.test(error.message),
    );
  });

  it("fails each run whose watchdog cannot start with the same words", async () => {
    await using executor = new LocalBashExecutor({ runtime: refusingRuntime(true) });
    await assert.rejects(
      executor.run(executor.resolve({ command: "true" })),
      (error: unknown) =>
        error instanceof BashSpawnError &&
        /^Could not prepare the command: the kernel refused a new process \(EAGAIN\): this user has as many processes/
          .test(error.message),
    );
  });
});
