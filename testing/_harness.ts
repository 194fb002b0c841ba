import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import type { BashExecRequest, BashExecutor, BashProcess, BashRunResult } from "../seam/mod.ts";
import { runOn, startOn } from "./_calls.ts";
import type {
  BashExecutorCapabilities,
  BashExecutorFactory,
  ConformanceExecutorOptions,
} from "./executor_options.ts";

/** What every executor of the suite is made with, unless a case says otherwise. */
export const SUITE_EXECUTOR_OPTIONS: Readonly<ConformanceExecutorOptions> = Object.freeze({
  killGraceMs: 1000,
  drainGraceMs: 1000,
  maxOutputBytes: 4000,
  headBytes: 1000,
  maxSpillBytes: 1_000_000,
});

/** How long a case waits for a process to appear or for an effect to show. */
const WAIT_MS = 10_000;

/** Resolves after `ms` milliseconds. */
export const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The processes of one command, told apart from every other by `text`. */
export interface Marker {
  /** What only the marked processes' command lines contain. */
  text: string;
  /** Shell words that run the marked `sleep` (about 313 s). */
  sleep: string;
}

/** One case's definition: what it checks and the capability it needs, if any. */
export interface CaseDefinition {
  /** What the case checks, as a sentence. */
  name: string;
  /** A capability the case needs: where the executor declares it false, the case is skipped. */
  needs?: "termGrace" | "drainGrace";
  /**
   * True when the case needs executors of its own even where the suite's
   * options are shared (see {@linkcode SharedExecutor}): it disposes them, or
   * sets what the executor reads when it is made.
   */
  fresh?: true;
  /** The check itself. */
  body(harness: Harness): Promise<void>;
}

/**
 * One executor with the suite's options that the cases of a run share, as
 * the commands of an agent's session share one: made through the factory on
 * first use, and disposed when the run ends or a case that used it failed
 * (the next case then makes another). A case's background processes are
 * killed when it ends, so each case still leaves nothing running.
 */
export class SharedExecutor {
  readonly #factory: BashExecutorFactory;
  #executor: Promise<BashExecutor> | undefined;

  constructor(factory: BashExecutorFactory) {
    this.#factory = factory;
  }

  /** The shared executor, made now when there is none. */
  get(): Promise<BashExecutor> {
    if (this.#executor === undefined) {
      const made = Promise.resolve(this.#factory({ ...SUITE_EXECUTOR_OPTIONS }));
      // One that could not be made is not kept: the next case tries again.
      made.catch(() => {
        if (this.#executor === made) this.#executor = undefined;
      });
      this.#executor = made;
    }
    return this.#executor;
  }

  /** Disposes the executor, if one was made (through `dispose`); the next `get()` makes another. */
  async close(dispose: (executor: BashExecutor) => Promise<void>): Promise<void> {
    const made = this.#executor;
    this.#executor = undefined;
    if (made === undefined) return;
    let executor: BashExecutor;
    try {
      executor = await made;
    } catch {
      return;
    }
    await dispose(executor);
  }
}

/**
 * What a case works with: executors made through the factory, unique markers
 * for its processes, the two call sites, and the process census. Closing it
 * kills the background processes it started on the shared executor, disposes
 * every executor it made, and then fails if a process carrying one of its
 * markers is still alive.
 */
export class Harness {
  readonly capabilities: Required<BashExecutorCapabilities>;
  readonly #factory: BashExecutorFactory;
  readonly #find: (text: string) => Promise<number[]>;
  readonly #killLeftovers: ((pids: number[]) => void) | undefined;
  readonly #shared: SharedExecutor | undefined;
  readonly #executors: BashExecutor[] = [];
  readonly #markers: string[] = [];
  /** The shared executor, once this case took it. */
  #sharedTaken: BashExecutor | undefined;
  /** What this case started on the shared executor. */
  readonly #started: BashProcess[] = [];

  /**
   * With `shared`, the case's executors with the suite's options are that
   * one executor (unless the case is `fresh`); without, each is its own.
   */
  constructor(
    factory: BashExecutorFactory,
    capabilities: Required<BashExecutorCapabilities>,
    find: (text: string) => Promise<number[]>,
    killLeftovers?: (pids: number[]) => void,
    shared?: SharedExecutor,
  ) {
    this.#factory = factory;
    this.capabilities = capabilities;
    this.#find = find;
    this.#killLeftovers = killLeftovers;
    this.#shared = shared;
  }

  /**
   * An executor with the suite's options and `overrides`: the shared one
   * when there is one and nothing is overridden, else a new one from the factory.
   */
  async executor(overrides: Partial<ConformanceExecutorOptions> = {}): Promise<BashExecutor> {
    if (this.#shared !== undefined && Object.keys(overrides).length === 0) {
      this.#sharedTaken = await this.#shared.get();
      return this.#sharedTaken;
    }
    const executor = await this.#factory({ ...SUITE_EXECUTOR_OPTIONS, ...overrides });
    this.#executors.push(executor);
    return executor;
  }

  /**
   * A unique marker for the processes of one command: `sleep` runs
   * `sleep <text>` (about 313 s) written so that only the sleep's own command
   * line carries `text`, not the shell's that runs it.
   */
  marker(): Marker {
    const digits = `${randomInt(100_000, 999_999)}${randomInt(100_000, 999_999)}`;
    const marker = { text: `313.${digits}`, sleep: `sleep 313."${digits}"` };
    this.#markers.push(marker.text);
    return marker;
  }

  /** Runs a request in the foreground. */
  run(executor: BashExecutor, request: BashExecRequest): Promise<BashRunResult> {
    return runOn(executor, request);
  }

  /** Starts a request in the background. */
  async start(executor: BashExecutor, request: BashExecRequest): Promise<BashProcess> {
    const process = await startOn(executor, request);
    if (executor === this.#sharedTaken) this.#started.push(process);
    return process;
  }

  /** Live processes running the sleep of `marker`. */
  processes(marker: Marker): Promise<number[]> {
    return this.#find(marker.text);
  }

  /** Waits until the sleep of `marker` runs. */
  async waitForSleep(marker: Marker): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while ((await this.#find(marker.text)).length === 0) {
      assert.ok(
        Date.now() < deadline,
        `no process ran "sleep ${marker.text}" within ${WAIT_MS} ms`,
      );
      await pause(20);
    }
  }

  /** Fails unless no process runs the sleep of `marker` (after `graceMs` for the census to settle). */
  async assertNoneLeft(marker: Marker, graceMs = 1000): Promise<void> {
    await this.#assertNoneLeft(marker.text, graceMs);
  }

  async #assertNoneLeft(text: string, graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    let left = await this.#find(text);
    while (left.length > 0 && Date.now() < deadline) {
      await pause(50);
      left = await this.#find(text);
    }
    // Reported, but not left running (where the suite can reach them).
    if (left.length > 0) this.#killLeftovers?.(left);
    assert.deepEqual(left, [], `processes running "sleep ${text}" were left behind`);
  }

  /** Disposes `executor` (see {@linkcode disposeWithin}). */
  dispose(executor: BashExecutor): Promise<void> {
    return disposeWithin(executor);
  }

  /**
   * Kills what the case left running on the shared executor, disposes every
   * executor it made (even when one disposal fails), then checks every marker.
   */
  async close(): Promise<void> {
    await Promise.all(this.#started.map(async (process) => {
      if (process.status === "running") await process.kill();
      await process.done;
    }));
    const disposals = await Promise.allSettled(
      this.#executors.map((executor) => this.dispose(executor)),
    );
    for (const disposal of disposals) {
      if (disposal.status === "rejected") throw disposal.reason;
    }
    for (const text of this.#markers) await this.#assertNoneLeft(text, 1000);
  }
}

/**
 * Disposes `executor`, failing when that does not finish within the suite's
 * wait beyond the kill grace (a disposal that never ends would hang the run).
 */
export async function disposeWithin(executor: BashExecutor): Promise<void> {
  const limit = SUITE_EXECUTOR_OPTIONS.killGraceMs + WAIT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () => fail(new assert.AssertionError({ message: `disposal did not end within ${limit} ms` })),
      limit,
    );
  });
  try {
    await Promise.race([executor[Symbol.asyncDispose](), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `check` on a fresh harness and closes it; a failed check wins over a
 * failed close. When either fails, the shared executor is disposed, so no
 * later case meets what this one left in it.
 */
export async function withHarness(
  harness: Harness,
  check: (harness: Harness) => Promise<void>,
  shared?: SharedExecutor,
): Promise<void> {
  const abandon = () => shared?.close(disposeWithin);
  try {
    await check(harness);
  } catch (error) {
    await harness.close().catch(() => {});
    await abandon()?.catch(() => {});
    throw error;
  }
  try {
    await harness.close();
  } catch (error) {
    await abandon()?.catch(() => {});
    throw error;
  }
}

/** Polls `read` until `done` holds for what it returns, failing after the suite's wait. */
export async function eventually<T>(
  read: () => T,
  done: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = read();
    if (done(value)) return value;
    assert.ok(Date.now() < deadline, `${what} did not happen within ${WAIT_MS} ms`);
    await pause(20);
  }
}
