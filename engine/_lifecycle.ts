/**
 * The bookkeeping every executor keeps from its start to its disposal, held
 * once here: the launches under way, the commands running, the signal
 * hooks, whether it was disposed (and the error a call gets then), and the
 * order of its disposal. The local engine and the SSH executor each hold
 * one and pass what they close of their own to {@linkcode ExecutorLifecycle.dispose}.
 *
 * @module
 */
import { type BashExecSpec, BashSpawnError } from "../seam/mod.ts";
import type { RunningCommand } from "./_command.ts";
import { type HostSignal, SignalHooks } from "./_signals.ts";

/** The error of a call to an executor that was disposed. */
export function disposedError(): BashSpawnError {
  return new BashSpawnError("The executor was disposed; create a new executor to run commands");
}

/** What an executor closes of its own when it is disposed, around the end of its commands. */
export interface Teardown {
  /**
   * Called at once, before the launches under way settle: stops what would
   * start more work (a queue of channels that refuses its waiters, processes
   * started ahead that begin to go). Its promise is awaited once every
   * command ended.
   */
  stop?(): Promise<void> | void;
  /**
   * Called once every command ended and `stop` is done: closes what the
   * commands used (cgroups, the private folder, the watchdog, a connection).
   */
  close(): Promise<void>;
}

/**
 * One executor's launches, running commands and signal hooks, until
 * {@linkcode ExecutorLifecycle.dispose}.
 *
 * @example A disposed executor refuses every later call, and its teardown runs once its commands ended
 * ```ts
 * import { ExecutorLifecycle } from "./mod.ts";
 * import { BashSpawnError } from "../seam/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const steps: string[] = [];
 * const teardown = {
 *   stop: () => void steps.push("stop"),
 *   close: () => Promise.resolve(void steps.push("close")),
 * };
 * const lifecycle: ExecutorLifecycle = new ExecutorLifecycle(() => lifecycle.dispose(teardown));
 * lifecycle.checkOpen();
 * await lifecycle.dispose(teardown);
 * assert.deepEqual(steps, ["stop", "close"]);
 * assert.throws(() => lifecycle.checkOpen(), BashSpawnError);
 * ```
 */
export class ExecutorLifecycle {
  readonly #running = new Set<RunningCommand>();
  readonly #launching = new Set<Promise<unknown>>();
  readonly #signalHooks: SignalHooks;
  #disposed = false;

  /** `dispose` disposes the whole executor: a host signal calls it (see {@linkcode killOnSignals}). */
  constructor(dispose: () => Promise<void>) {
    this.#signalHooks = new SignalHooks(dispose);
  }

  /** True once disposal began. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Throws {@linkcode disposedError} once the executor was disposed. */
  checkOpen(): void {
    if (this.#disposed) throw disposedError();
  }

  /**
   * Throws `BashSpawnError` when nothing may be spawned for `spec`: the
   * executor was disposed, or the spec's signal was aborted before the start.
   */
  checkCanSpawn(spec: BashExecSpec): void {
    this.checkOpen();
    if (spec.signal?.aborted) {
      throw new BashSpawnError(
        "The signal was aborted before the command started, so nothing was run; pass a signal that is not aborted yet",
        { cause: spec.signal.reason },
      );
    }
  }

  /** Tracks a launch until it settles: disposal waits for it before it kills the commands. */
  launch<T>(launching: Promise<T>): Promise<T> {
    this.#launching.add(launching);
    return launching.finally(() => this.#launching.delete(launching));
  }

  /** Tracks a running command until it settles: disposal kills it and waits for its end. */
  track(running: RunningCommand): void {
    this.#running.add(running);
    running.settled.then(() => this.#running.delete(running));
  }

  /** Makes `signals` dispose the executor (see `LocalBashExecutor.killOnSignals`). */
  killOnSignals(signals: readonly HostSignal[]): Disposable {
    return this.#signalHooks.add(signals);
  }

  /**
   * Disposes the executor. The sequence is:
   * 1. Mark it disposed (every later call throws {@linkcode disposedError}),
   *    remove its signal hooks, and call `teardown.stop`.
   * 2. Wait for the launches under way to settle (each either started its
   *    command or failed).
   * 3. Kill every running command (SIGTERM, then SIGKILL after its grace)
   *    and wait until each settled.
   * 4. Wait for what `teardown.stop` returned, then call `teardown.close`.
   */
  async dispose(teardown: Teardown): Promise<void> {
    this.#disposed = true;
    this.#signalHooks.clear();
    const stopped = teardown.stop?.();
    await Promise.allSettled(this.#launching);
    for (const running of this.#running) running.kill("dispose");
    await Promise.all([...this.#running].map((running) => running.settled));
    await stopped;
    await teardown.close();
  }
}
