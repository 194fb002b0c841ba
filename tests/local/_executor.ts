import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { describe, it as nodeIt } from "node:test";
import {
  LocalBashExecutor,
  type LocalBashExecutorConfig,
  type Runtime,
  runtime,
  type SessionStrategy,
  type SpawnRequest,
} from "../../local/mod.ts";
import { WATCHDOG_NAME } from "../../engine/_watchdog.ts";
import { STRATEGIES } from "./_helpers.ts";

// Shared by the executor_*_test.ts files: the leak-checking `it`, and the
// loop that runs a concern's tests under each session strategy.

/** Every process a test spawns inherits this variable (executors snapshot the env when made). */
export const LEAK_MARK = "LOCAL_EXECUTOR_TEST_MARK";

/** Live pids whose environment carries `LEAK_MARK=<mark>`. */
export function markedProcesses(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, "latin1").includes(`${LEAK_MARK}=${mark}\0`)) {
        continue;
      }
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && state !== "X") found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * `it`, plus the check that the test left no process behind: everything the
 * test spawned carries a mark in its environment, and nothing carrying it may
 * be alive once the test is over (no grace: runs settle only when their
 * session is empty).
 */
export function it(name: string, body: () => void | Promise<void>): void {
  nodeIt(name, async () => {
    const mark = randomUUID();
    process.env[LEAK_MARK] = mark;
    try {
      await body();
    } finally {
      delete process.env[LEAK_MARK];
    }
    assert.deepEqual(markedProcesses(mark), [], "the test left processes behind");
  });
}

/** Runs `body` with a runtime, injected through the config, that records each stdout chunk. */
export async function recordingStdoutChunks<T>(
  body: (recording: Runtime) => Promise<T>,
): Promise<{ result: T; chunks: number[][] }> {
  const chunks: number[][] = [];
  const recording: Runtime = {
    ...runtime,
    spawn: async (request: SpawnRequest) => {
      const child = await runtime.spawn(request);
      // The executor's watchdog answers on its stdout too.
      if (request.args.includes(WATCHDOG_NAME)) return child;
      const stdout = child.stdout.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            chunks.push([...chunk]);
            controller.enqueue(chunk);
          },
        }),
      );
      return { ...child, stdout };
    },
  };
  return { result: await body(recording), chunks };
}

/** Makes an executor with the strategy under test (and more config). */
export type MakeExecutor = (config?: LocalBashExecutorConfig) => LocalBashExecutor;

/**
 * `describe(title (strategy))` once per session strategy, with `body`
 * given the executor maker and the strategy.
 */
export function forEachStrategy(
  title: string,
  body: (make: MakeExecutor, sessionStrategy: SessionStrategy) => void,
): void {
  for (const sessionStrategy of STRATEGIES) {
    const make: MakeExecutor = (config = {}) =>
      new LocalBashExecutor({ sessionStrategy, ...config });
    describe(`${title} (${sessionStrategy})`, () => body(make, sessionStrategy));
  }
}
