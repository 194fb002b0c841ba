import type { BashProcess } from "../seam/mod.ts";
import type { TaskHooks, TaskSettlement } from "../tasks/mod.ts";
import type { BashTaskOutput } from "./render/mod.ts";
import type { ScreenRenderer } from "./screen.ts";
import { ScreenFeed } from "./_screen_feed.ts";

/**
 * Adapts a started {@linkcode BashProcess} into the hooks a `TaskRegistry`
 * needs: `cancel` kills the process group, `done` settles as `completed`
 * (exit code), `killed` (signal) or `failed` (the sandbox itself failed, or
 * the executor could not read the output: the process's `error`),
 * `readOutput` is the process's consuming read plus its sandbox facts (and
 * `disposed` once the executor's disposal killed it, and its stray report
 * once settled), and `release` (called when the registry lets the settled
 * task go) frees the process's buffers and deletes its spill files. With a
 * `screen` (a process started with a terminal), the process's stdout is fed
 * to it as it arrives, each read carries the screen as a person would see it
 * (`screen`: a promise from a renderer that parses later, see
 * `ScreenRenderer`), and `done` waits until all of the output was fed.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { bashTaskHooks } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const owner = taskOwner("s");
 * const process = await executor.start({ command: "echo hi" });
 * const { id } = tasks.register({ kind: "bash", label: "echo hi", owner, hooks: bashTaskHooks(process) });
 * const settled = await tasks.wait(id, owner);
 * assert.equal(settled.status, "completed");
 * assert.equal(settled.exitCode, 0);
 * ```
 */
export function bashTaskHooks(
  process: BashProcess,
  screen?: ScreenRenderer,
): TaskHooks<BashTaskOutput> {
  return screenTaskHooks(
    process,
    screen === undefined ? undefined : new ScreenFeed(process, screen),
  );
}

/** {@linkcode bashTaskHooks} over a screen already fed (the tools', which also type and resize). */
export function screenTaskHooks(
  process: BashProcess,
  feed: ScreenFeed | undefined,
): TaskHooks<BashTaskOutput> {
  return {
    cancel: async () => {
      await process.kill();
    },
    done: Promise.all([process.done, feed?.fed]).then(() => settlementOf(process)),
    readOutput: () => {
      const read: BashTaskOutput = process.readOutput();
      if (process.sandbox) read.sandbox = process.sandbox;
      if (process.disposed) read.disposed = true;
      if (process.limitHit) read.limitHit = process.limitHit;
      if (process.strays) read.strays = process.strays;
      if (feed !== undefined) Object.assign(read, feed.screen());
      return read;
    },
    release: () => process.release(),
  };
}

function settlementOf(process: BashProcess): TaskSettlement {
  const { exitCode, signal, sandbox, error } = process;
  if (error !== undefined) return { status: "failed", exitCode, signal, error };
  if (sandbox?.runnerFailed) {
    return {
      status: "failed",
      exitCode,
      signal,
      error: `the ${sandbox.backend} sandbox itself failed to run the command`,
    };
  }
  return { status: process.status === "killed" ? "killed" : "completed", exitCode, signal };
}
