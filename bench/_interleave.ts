/**
 * Interleaved timing: the arms of a comparison (a subject and its baselines)
 * take turns, A B A B ..., after a warm-up of each, so that a machine that
 * slows down or speeds up during the run affects every arm alike. Runs under
 * Deno and, by type stripping, under Node (bench/node/runner.ts), so it uses
 * only erasable TypeScript and no runtime API.
 *
 * @module
 */

/** One arm of a comparison: an operation to time. */
export type Arm = () => Promise<unknown>;

/** How many rounds, and how many untimed rounds before them. */
export interface InterleaveOptions {
  /** Untimed rounds first (each arm once per round). */
  warmup: number;
  /** Timed rounds (each arm once per round). */
  iterations: number;
  /** The clock, in milliseconds (default `performance.now`). */
  now?: () => number;
  /**
   * A pause before every step, untimed (default none), so that what an arm
   * left running in the background (a standby starting the next command
   * ahead) is done before the next arm is timed, as between an agent's
   * commands.
   */
  pauseMs?: number;
}

/**
 * The order in which the arms run: `warmup` rounds, then `iterations`
 * rounds, each round every arm once in the given order. `timed` is false
 * for warm-up steps.
 */
export function interleavedOrder(
  names: readonly string[],
  warmup: number,
  iterations: number,
): { name: string; timed: boolean }[] {
  for (const [label, value] of [["warmup", warmup], ["iterations", iterations]] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`"${label}" must be a whole number >= 0; got ${value}`);
    }
  }
  if (names.length === 0 || new Set(names).size !== names.length) {
    throw new RangeError(`Arms need distinct names, at least one; got ${JSON.stringify(names)}`);
  }
  const order: { name: string; timed: boolean }[] = [];
  for (let round = 0; round < warmup + iterations; round++) {
    for (const name of names) order.push({ name, timed: round >= warmup });
  }
  return order;
}

/**
 * Runs `arms` in interleaved order and returns the values the arms resolved
 * with in the timed rounds (warm-up values are dropped). For a measure
 * other than time, such as peak memory. An arm that throws stops the whole
 * run (a comparison with a failing arm means nothing).
 */
export async function interleaveValues(
  arms: Record<string, () => Promise<number>>,
  options: InterleaveOptions,
): Promise<Record<string, number[]>> {
  const names = Object.keys(arms);
  const values: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const pauseMs = options.pauseMs ?? 0;
  for (const { name, timed } of interleavedOrder(names, options.warmup, options.iterations)) {
    if (pauseMs > 0) await new Promise((done) => setTimeout(done, pauseMs));
    const value = await arms[name]!();
    if (timed) values[name]!.push(value);
  }
  return values;
}

/**
 * Runs `arms` in interleaved order and returns each arm's timed samples, in
 * milliseconds per operation (by `options.now`).
 */
export function interleave(
  arms: Record<string, Arm>,
  options: InterleaveOptions,
): Promise<Record<string, number[]>> {
  const now = options.now ?? (() => performance.now());
  const timed = Object.entries(arms).map(([name, arm]) => [name, async () => {
    const start = now();
    await arm();
    return now() - start;
  }]);
  return interleaveValues(Object.fromEntries(timed), options);
}
