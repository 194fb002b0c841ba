/**
 * The value checks of the whole library and their messages, in one place:
 * every "must be ...; got <value>" of a config, a request or a tool argument
 * describes the bad value with describeValue() or kindOf().
 *
 * Shared by every folder above the seam, which imports this file itself: it
 * is not part of the seam's public surface (`mod.ts` does not export it).
 *
 * @module
 */
import { BashConfigError } from "./errors.ts";
import { type BashTerminalSize, MAX_TERMINAL_CELLS } from "./terminal.ts";

/**
 * A bad value as an error message shows it: a string quoted (cut at 80
 * characters), a number as written (JSON would print NaN and Infinity as
 * null), other primitives as such, and an object, array or function by kind.
 */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  }
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (value === null || typeof value !== "object") return String(value);
  return "an object";
}

/** What kind of value an error message says it got: `typeof`, with null named as such. */
export function kindOf(value: unknown): string {
  return value === null ? "null" : typeof value;
}

/**
 * Throws `BashConfigError` for a key of `value` that is not in `known` (a
 * typo such as `timeout` would otherwise be ignored silently), naming the
 * closest known key. `what` names the object (`the executor config`).
 */
export function checkKnownKeys(what: string, value: object, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = closestKey(key, known);
    const hint = near === undefined ? "" : `; did you mean "${near}"?`;
    throw new BashConfigError(
      `${what} has no key "${key}"${hint}; the known keys are ${
        known.map((name) => `"${name}"`).join(", ")
      }`,
    );
  }
}

/** The known key a typo most likely meant: a prefix either way, or at most two edits away. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const other = name.toLowerCase();
    const distance = other.startsWith(lower) || lower.startsWith(other)
      ? 0
      : editDistance(lower, other);
    if (distance <= 2 && (best === undefined || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Throws unless `value` is a positive finite number of milliseconds; names `field`. */
export function positiveFinite(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new BashConfigError(
      `"${field}" must be a positive finite number of milliseconds; got ${describeValue(value)}`,
    );
  }
  return value;
}

/** The longest delay a timer can wait: `setTimeout` fires at once for a longer one. */
export const MAX_TIMER_MS: number = 2 ** 31 - 1;

/** Throws unless `value` milliseconds fit a timer; names `field`. */
export function fitsTimer(field: string, value: number): number {
  if (value > MAX_TIMER_MS) {
    throw new BashConfigError(
      `"${field}" must be at most ${MAX_TIMER_MS} milliseconds (about 24 days), the longest a timer waits; got ${value}`,
    );
  }
  return value;
}

/** Throws unless `value` is a whole number of at least `min`; names `field`. */
export function wholeNumber(field: string, value: unknown, min: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new BashConfigError(
      `"${field}" must be a whole number >= ${min}; got ${describeValue(value)}`,
    );
  }
  return value;
}

/**
 * Throws `BashConfigError` unless `value` is a terminal size: an object with
 * whole `rows` and `cols` from 1 to `MAX_TERMINAL_CELLS` and no other key.
 * `field` names it in the message.
 */
export function checkTerminalSize(field: string, value: unknown): BashTerminalSize {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BashConfigError(
      `"${field}" must be an object { rows, cols }; got ${
        Array.isArray(value) ? "an array" : kindOf(value)
      }; pass for example { rows: 24, cols: 80 }`,
    );
  }
  const size = value as Record<string, unknown>;
  for (const key of Object.keys(size)) {
    if (key !== "rows" && key !== "cols") {
      throw new BashConfigError(
        `"${field}" has no key "${key}"; the known keys are "rows", "cols"`,
      );
    }
  }
  for (const key of ["rows", "cols"] as const) {
    const cells = size[key];
    if (
      typeof cells !== "number" || !Number.isInteger(cells) || cells < 1 ||
      cells > MAX_TERMINAL_CELLS
    ) {
      throw new BashConfigError(
        `"${field}.${key}" must be a whole number from 1 to ${MAX_TERMINAL_CELLS}; got ${
          describeValue(cells)
        }`,
      );
    }
  }
  return { rows: size.rows as number, cols: size.cols as number };
}
