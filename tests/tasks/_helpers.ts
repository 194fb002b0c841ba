import {
  type TaskHooks,
  type TaskOwner,
  taskOwner,
  TaskRegistry,
  type TaskSettlement,
  type TaskSnapshot,
} from "../../tasks/mod.ts";

export interface FakeTask {
  hooks: TaskHooks<string>;
  /** Resolves `done`. */
  finish(settlement: TaskSettlement): void;
  /** Rejects `done`. */
  fail(error: unknown): void;
  /** The reasons `cancel` was called with, one entry per call. */
  cancels: (string | undefined)[];
  /** Output chunks handed out by `readOutput`, one per read. */
  chunks: string[];
  /** How many times `release` was called. */
  releases: number;
}

/**
 * A task made of promises. By default `cancel` settles it as killed by SIGTERM;
 * `onCancel` replaces that behaviour.
 */
export function fakeTask(
  onCancel?: (reason: string | undefined, task: FakeTask) => Promise<void>,
): FakeTask {
  let resolveDone!: (settlement: TaskSettlement) => void;
  let rejectDone!: (error: unknown) => void;
  const done = new Promise<TaskSettlement>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  const task: FakeTask = {
    cancels: [],
    chunks: [],
    releases: 0,
    finish: (settlement) => resolveDone(settlement),
    fail: (error) => rejectDone(error),
    hooks: {
      done,
      cancel: (reason) => {
        task.cancels.push(reason);
        if (onCancel) return onCancel(reason, task);
        task.finish({ status: "killed", exitCode: null, signal: "SIGTERM" });
        return Promise.resolve();
      },
      readOutput: () => task.chunks.shift() ?? "",
      release: () => {
        task.releases++;
      },
    },
  };
  return task;
}

/** Lets pending promise callbacks and zero-delay timers run. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolver, for cancels that finish when the test says so. */
export function deferred(): {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
} {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const alice: TaskOwner = taskOwner("alice");
export const bob: TaskOwner = taskOwner("bob");

export async function withRegistry(
  body: (registry: TaskRegistry<string>) => void | Promise<void>,
  registry: TaskRegistry<string> = new TaskRegistry<string>(),
): Promise<void> {
  try {
    await body(registry);
  } finally {
    await registry[Symbol.asyncDispose]();
  }
}

export function start(
  registry: TaskRegistry<string>,
  owner: TaskOwner,
  task: FakeTask = fakeTask(),
  kind = "bash",
): { id: string; task: FakeTask; snapshot: TaskSnapshot } {
  const snapshot = registry.register({ kind, label: `label of ${kind}`, owner, hooks: task.hooks });
  return { id: snapshot.id, task, snapshot };
}
