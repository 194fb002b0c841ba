import { BashConfigError } from "../seam/errors.ts";
import { describeValue, MAX_TIMER_MS } from "../seam/checks.ts";

const KIND_PATTERN = /^[a-z][a-z0-9_-]*$/;

/** Throws unless `value` is a usable owner token; `name` is used in the message. */
export function assertOwnerToken(value: unknown, name: string): asserts value is string {
  if (typeof value !== "string" || value === "") {
    throw new BashConfigError(
      `"${name}" must be a non-empty string; got ${
        describeValue(value)
      }; pass a session or connection id`,
    );
  }
}

/** Throws unless `kind` can prefix task ids. */
export function assertKind(kind: unknown): asserts kind is string {
  if (typeof kind !== "string" || !KIND_PATTERN.test(kind)) {
    throw new BashConfigError(
      `"kind" must match ${KIND_PATTERN} (lowercase, starting with a letter); got ${
        describeValue(kind)
      }; pass a name such as "bash"`,
    );
  }
}

/** Throws unless `label` is a string. */
export function assertLabel(label: unknown): asserts label is string {
  if (typeof label !== "string") {
    throw new BashConfigError(
      `"label" must be a string; got ${describeValue(label)}; pass the command or a short summary`,
    );
  }
}

/** Throws unless the reason of a kill is absent or a string. */
export function assertReason(reason: unknown): asserts reason is string | undefined {
  if (reason !== undefined && typeof reason !== "string") {
    throw new BashConfigError(
      `"reason" must be a string; got ${describeValue(reason)}; pass a short sentence or omit it`,
    );
  }
}

/** Throws unless `listener` is a function. */
export function assertListener(listener: unknown): asserts listener is (...args: never) => unknown {
  if (typeof listener !== "function") {
    throw new BashConfigError(
      `"listener" must be a function; got ${describeValue(listener)}; pass a callback`,
    );
  }
}

/**
 * Throws unless `hooks` has a `cancel` function, a `done` promise and
 * optional `readOutput` and `release` functions.
 */
export function assertHooks(hooks: unknown): void {
  const h = (typeof hooks === "object" && hooks !== null ? hooks : {}) as Record<string, unknown>;
  const done = h.done as { then?: unknown } | undefined;
  if (
    typeof h.cancel !== "function" ||
    typeof done?.then !== "function" ||
    (h.readOutput !== undefined && typeof h.readOutput !== "function") ||
    (h.release !== undefined && typeof h.release !== "function")
  ) {
    throw new BashConfigError(
      '"hooks" must have a "cancel" function, a "done" promise and optionally "readOutput" and "release" functions; pass the hooks of a started task',
    );
  }
}

/** Throws unless `value` is a whole number of at least `min`; names the option `name`. */
export function wholeOption(name: string, value: unknown, min: number, hint: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new BashConfigError(
      `"${name}" must be a whole number >= ${min}; got ${describeValue(value)}; ${hint}`,
    );
  }
  return value;
}

/** Throws unless `value` is a positive number of milliseconds that a timer can wait. */
export function timerOption(name: string, value: unknown, hint: string): number {
  if (
    typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS
  ) {
    throw new BashConfigError(
      `"${name}" must be a positive number of milliseconds, at most ${MAX_TIMER_MS}; got ${
        describeValue(value)
      }; ${hint}`,
    );
  }
  return value;
}

/** Returns a timer delay for `timeoutMs` (undefined means no timeout), or throws if it is invalid. */
export function timerDelay(timeoutMs: unknown): number | undefined {
  if (timeoutMs === undefined) return undefined;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new BashConfigError(
      `"timeoutMs" must be a positive finite number; got ${
        describeValue(timeoutMs)
      }; omit it to wait until the task settles`,
    );
  }
  return Math.min(timeoutMs, MAX_TIMER_MS);
}

/** Throws unless `signal` is absent or an `AbortSignal`. */
export function assertSignal(signal: unknown): asserts signal is AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new BashConfigError(
      `"signal" must be an AbortSignal; got ${
        describeValue(signal)
      }; pass an AbortController's signal or omit it`,
    );
  }
}
