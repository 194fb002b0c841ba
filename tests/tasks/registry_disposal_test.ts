// Disposing of a registry full of real bash tasks: they are killed side by
// side, so the whole takes about one kill grace, however many there are.
import { it } from "node:test";
import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import type { BashProcess } from "../../seam/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { bashTaskHooks } from "../../tool/mod.ts";
import { pause } from "../local/_helpers.ts";

/** 50 tasks, not the 200 of the report: enough to show a cost per task, light on 2 cores. */
const TASKS = 50;
const KILL_GRACE_MS = 2000;

it("kills 50 tasks, half of them ignoring SIGTERM, within twice the kill grace", async () => {
  await using executor = new LocalBashExecutor({ killGraceMs: KILL_GRACE_MS });
  const registry = new TaskRegistry({ maxRunningTasksPerOwner: TASKS });
  const owner = taskOwner("disposal");
  const processes: BashProcess[] = [];
  try {
    for (let index = 0; index < TASKS; index++) {
      // The ignored SIGTERM is inherited by the sleep the shell becomes.
      const trap = index % 2 === 0 ? "trap '' TERM; " : "";
      const process = await executor.start({ command: `${trap}echo up; exec sleep 600` });
      processes.push(process);
      registry.register({ kind: "bash", label: "sleep", owner, hooks: bashTaskHooks(process) });
    }
    // Every trap is in place once its shell said so.
    const said = processes.map(() => "");
    while (said.some((text) => !text.includes("up"))) {
      processes.forEach((process, index) => (said[index] += process.readOutput().stdout.text));
      await pause(20);
    }
  } finally {
    const started = performance.now();
    await registry[Symbol.asyncDispose]();
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 2 * KILL_GRACE_MS, `disposal took ${Math.round(elapsed)} ms`);
  }
  assert.deepEqual(
    [...new Set(processes.map((process) => process.status))],
    ["killed"],
    "every task was killed",
  );
  assert.deepEqual(
    [...new Set(processes.filter((_, index) => index % 2 === 0).map((p) => p.signal))],
    ["SIGKILL"],
    "those ignoring SIGTERM met SIGKILL",
  );
});
