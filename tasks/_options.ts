import { BashConfigError } from "../seam/errors.ts";
import { describeValue } from "../seam/checks.ts";
import type { TaskRegistryOptions } from "./options.ts";
import type { TaskSnapshot } from "./task.ts";
import { timerOption, wholeOption } from "./_validate.ts";

/** The defaults of the retention and limit options. */
const DEFAULT_MAX_SETTLED = 100;
const DEFAULT_SETTLED_TTL_MS = 30 * 60_000;
const DEFAULT_MAX_RUNNING = 64;

/** A registry's options, checked, with the defaults filled in. */
export interface RegistrySettings {
  /** Where errors of listeners and of the registry's own calls go. */
  report: (error: unknown, snapshot: TaskSnapshot) => void;
  /** How many seen settled tasks are kept per owner. */
  maxSettled: number;
  /** How long a seen settled task is kept, in milliseconds. */
  settledTtlMs: number;
  /** How many tasks an owner may have running at once. */
  maxRunning: number;
  /** When a running task is stopped, in milliseconds after it was registered (none: never). */
  maxLifetimeMs: number | undefined;
}

/**
 * Checks the options of a `TaskRegistry` and fills in the defaults.
 *
 * @throws {BashConfigError} when `options` is not an object, `onListenerError` is not a
 * function, or a limit or duration is out of range (each message names the option).
 */
export function registrySettings(options: TaskRegistryOptions): RegistrySettings {
  const valid = typeof options === "object" && options !== null &&
    (options.onListenerError === undefined || typeof options.onListenerError === "function");
  if (!valid) {
    throw new BashConfigError(
      `"options" must be an object whose optional "onListenerError" is a function; got ${
        describeValue(options?.onListenerError ?? options)
      }; pass {} for the defaults`,
    );
  }
  return {
    report: options.onListenerError ??
      ((error, snapshot) =>
        console.error(
          `A TaskRegistry listener or a hook it called on its own failed for task "${snapshot.id}":`,
          error,
        )),
    maxSettled: wholeOption(
      "maxSettledTasksPerOwner",
      options.maxSettledTasksPerOwner ?? DEFAULT_MAX_SETTLED,
      1,
      `omit it for ${DEFAULT_MAX_SETTLED}`,
    ),
    settledTtlMs: timerOption(
      "settledTaskTtlMs",
      options.settledTaskTtlMs ?? DEFAULT_SETTLED_TTL_MS,
      `omit it for ${DEFAULT_SETTLED_TTL_MS} (30 minutes)`,
    ),
    maxRunning: wholeOption(
      "maxRunningTasksPerOwner",
      options.maxRunningTasksPerOwner ?? DEFAULT_MAX_RUNNING,
      1,
      `omit it for ${DEFAULT_MAX_RUNNING}`,
    ),
    maxLifetimeMs: options.maxTaskLifetimeMs === undefined
      ? undefined
      : timerOption("maxTaskLifetimeMs", options.maxTaskLifetimeMs, "omit it for no limit"),
  };
}
