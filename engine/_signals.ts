import process from "node:process";
import { BashConfigError } from "../seam/mod.ts";

/** A signal on which `killOnSignals()` disposes executors and exits. */
export type HostSignal = "SIGHUP" | "SIGINT" | "SIGTERM";

/** The signals that end a host by default, and their numbers (the exit code is 128 + it). */
const SIGNAL_NUMBERS: Readonly<Record<HostSignal, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** Every signal `killOnSignals()` listens to by default. */
export const HOST_SIGNALS: readonly HostSignal[] = Object.freeze(
  Object.keys(SIGNAL_NUMBERS) as HostSignal[],
);

type Dispose = () => Promise<unknown>;

/** What disposes on each signal, shared by every executor that asked. */
const disposers = new Map<HostSignal, Set<Dispose>>();
const listeners = new Map<HostSignal, () => void>();
let exiting = false;

function onSignal(signal: HostSignal): void {
  // A second signal while disposing (a second Ctrl-C) changes nothing.
  if (exiting) return;
  exiting = true;
  const all = [...disposers.values()].flatMap((set) => [...set]);
  Promise.allSettled([...new Set(all)].map((dispose) => dispose())).then(() => {
    process.exit(128 + SIGNAL_NUMBERS[signal]);
  });
}

/**
 * Makes `signals` dispose with `dispose` (and every other registered
 * disposer), then exit the process with 128 + the signal's number. Returns
 * what unregisters it; the process-wide listeners go when nobody needs them.
 */
export function disposeOnSignals(dispose: Dispose, signals: readonly HostSignal[]): Disposable {
  if (!Array.isArray(signals) || signals.some((signal) => !(signal in SIGNAL_NUMBERS))) {
    throw new BashConfigError(
      `"signals" must list "SIGTERM", "SIGINT" and/or "SIGHUP"; got ${
        JSON.stringify(signals)
      }; omit it for all three`,
    );
  }
  for (const signal of new Set(signals)) {
    let set = disposers.get(signal);
    if (set === undefined) {
      set = new Set();
      disposers.set(signal, set);
      const listener = () => onSignal(signal);
      listeners.set(signal, listener);
      process.on(signal, listener);
    }
    set.add(dispose);
  }
  return {
    [Symbol.dispose]() {
      for (const signal of new Set(signals)) {
        const set = disposers.get(signal);
        set?.delete(dispose);
        if (set?.size !== 0) continue;
        disposers.delete(signal);
        const listener = listeners.get(signal);
        listeners.delete(signal);
        if (listener !== undefined) process.off(signal, listener);
      }
    },
  };
}

/**
 * The signal hooks of one executor: `add()` does its `killOnSignals()`, and
 * `clear()` (at its disposal) removes every hook it made. Each hook disposes
 * the executor through `dispose`.
 */
export class SignalHooks {
  readonly #dispose: Dispose;
  readonly #hooks = new Set<Disposable>();

  constructor(dispose: Dispose) {
    this.#dispose = dispose;
  }

  /** Registers `signals` (see {@linkcode disposeOnSignals}); the result removes them again. */
  add(signals: readonly HostSignal[]): Disposable {
    // A function of its own, so removing this hook leaves the executor's other hooks in place.
    const hook = disposeOnSignals(() => this.#dispose(), signals);
    this.#hooks.add(hook);
    return {
      [Symbol.dispose]: () => {
        this.#hooks.delete(hook);
        hook[Symbol.dispose]();
      },
    };
  }

  /** Removes every hook. */
  clear(): void {
    for (const hook of this.#hooks) hook[Symbol.dispose]();
    this.#hooks.clear();
  }
}
