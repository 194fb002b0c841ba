/**
 * What a benchmark case is and what it reports. A case is a small module
 * that exports a {@linkcode BenchCase}; `bench/cases.ts` lists them all (see
 * bench/README.md, "Adding a case").
 *
 * @module
 */
import { meetsGoal, ratio, summarize } from "./_stats.ts";

/** Which direction is better for a measured value. */
export type Better = "lower" | "higher";

/** One measured (or skipped) point on the size axis of a growth curve. */
export interface GrowthPoint {
  /** Output size, in bytes. */
  bytes: number;
  /** Median `run()` time, in milliseconds. */
  ms: number;
  /** Median peak RSS growth during the run, in MiB. */
  peak_rss_growth_mib: number;
}

/**
 * One row of the results: `bench/results/latest.json`'s `cases[]`. The first
 * ten fields are the format the issue fixed; the rest say how the number
 * was obtained. `goal` applies to `ratio` when `goal_of` is "ratio", else
 * to `median` itself (an absolute goal, e.g. MiB of memory).
 */
export interface CaseResult {
  /** Stable id, e.g. "foreground-deno". */
  id: string;
  /** What is measured, in words. */
  what: string;
  /** What it is compared with (the floor or the peer); null when nothing. */
  baseline: string | null;
  /** Median of the subject's samples, in `unit`; null when skipped. */
  median: number | null;
  /** 10th percentile of the subject's samples. */
  p10: number | null;
  /** 90th percentile of the subject's samples. */
  p90: number | null;
  /** Unit of median, p10 and p90. */
  unit: string;
  /**
   * Subject median / baseline median; null without a baseline, when skipped,
   * or when the goal is absolute (`goal_of` "median": the baseline is there for scale).
   */
  ratio: number | null;
  /** The goal for `goal_of`; null when the case only reports. */
  goal: number | null;
  /** Whether lower or higher values (of the ratio, or of the median) are better. */
  better: Better;
  /** What `goal` applies to. */
  goal_of: "ratio" | "median";
  /** Median of the baseline's samples, in `unit`; null without a baseline. */
  baseline_median: number | null;
  /**
   * The ratio of the best ends, where `ratio` is given: p10 over p10 when
   * lower is better, p90 over p90 when higher is better. A busy machine
   * disturbs these least (the goal still judges `ratio`).
   */
  ratio_best?: number;
  /** Timed samples per arm (after the warm-up). */
  iterations: number;
  /** Whether the goal is met; null without a goal or when skipped. */
  met: boolean | null;
  /** Why the case did not run here (a missing peer or tool); absent when it ran. */
  skipped?: string;
  /** Extra facts for the reader (e.g. memory per task). */
  note?: string;
  /** The growth curve (growth-slope only). */
  points?: GrowthPoint[];
  /** When this row was measured (rows of an `--only` run are merged into the last results). */
  measured_at: string;
}

/** What a case may use while it runs. */
export interface BenchContext {
  /** Fewer iterations (`--quick`): for a check that the case works, not for numbers. */
  quick: boolean;
  /** Prints a progress line. */
  log(message: string): void;
  /** A private, gitignored folder for the case's files (bench/.cache). */
  cacheDir: string;
  /** The Node side (runtime, peers, the Node build), prepared once; or why it cannot run. */
  node(): Promise<NodeSide | { unavailable: string }>;
}

/** The prepared Node side of the benchmarks (bench/_node.ts). */
export interface NodeSide {
  /** The pinned Node binary. */
  node: string;
  /** Runs `bench/node/runner.ts` with `request`; resolves with its JSON answer. */
  run(request: Record<string, unknown>): Promise<NodeAnswer>;
}

/** What `bench/node/runner.ts` prints: samples per arm, in milliseconds, and extras. */
export interface NodeAnswer {
  /** Timed samples per arm. */
  samples: Record<string, number[]>;
  /** Why an arm could not run, by arm name. */
  unavailable?: Record<string, string>;
  /** Anything else the runner measured, by name. */
  extra?: Record<string, number>;
}

/**
 * A benchmark case: the ids it reports (for `--only` and for the rows of a
 * case that fails) and how to measure them.
 */
export interface BenchCase {
  /** The ids of the rows `run` returns. */
  ids: readonly string[];
  /** Measures and returns one row per id (skipped rows included, never dropped). */
  run(context: BenchContext): Promise<CaseResult[]>;
}

/** What a row says before it is measured. */
export interface RowHeader {
  /** See {@linkcode CaseResult.id}. */
  id: string;
  /** See {@linkcode CaseResult.what}. */
  what: string;
  /** See {@linkcode CaseResult.baseline}. */
  baseline: string | null;
  /** See {@linkcode CaseResult.unit}. */
  unit: string;
  /** See {@linkcode CaseResult.goal}. */
  goal: number | null;
  /** See {@linkcode CaseResult.better}. */
  better: Better;
  /** See {@linkcode CaseResult.goal_of}; default "ratio" with a baseline, else "median". */
  goal_of?: "ratio" | "median";
}

/**
 * A row from the subject's samples and its baseline's (same unit; `null`
 * for none), with `goal_of` defaulting to the ratio when there is a baseline.
 */
export function row(
  header: RowHeader,
  subject: readonly number[],
  baseline: readonly number[] | null,
  extras: { note?: string; points?: GrowthPoint[] } = {},
): CaseResult {
  const stats = summarize(subject);
  const baseStats = baseline === null ? null : summarize(baseline);
  const base = baseStats?.median ?? null;
  const goalOf = header.goal_of ?? (baseline === null ? "median" : "ratio");
  // A baseline shown only for scale (an absolute goal) gets no ratio.
  const r = base === null || goalOf === "median" ? null : ratio(stats.median, base) ?? null;
  const judged = goalOf === "ratio" ? r : stats.median;
  return {
    id: header.id,
    what: header.what,
    baseline: header.baseline,
    median: stats.median,
    p10: stats.p10,
    p90: stats.p90,
    unit: header.unit,
    ratio: r,
    goal: header.goal,
    better: header.better,
    goal_of: goalOf,
    baseline_median: base,
    ...(r === null || baseStats === null ? {} : {
      ratio_best: header.better === "lower" ? stats.p10 / baseStats.p10 : stats.p90 / baseStats.p90,
    }),
    iterations: stats.n,
    met: header.goal === null || judged === null
      ? null
      : meetsGoal(judged, header.goal, header.better),
    ...extras,
    measured_at: new Date().toISOString(),
  };
}

/** A row that could not be measured here, saying why. */
export function skippedRow(header: RowHeader, reason: string): CaseResult {
  return {
    id: header.id,
    what: header.what,
    baseline: header.baseline,
    median: null,
    p10: null,
    p90: null,
    unit: header.unit,
    ratio: null,
    goal: header.goal,
    better: header.better,
    goal_of: header.goal_of ?? (header.baseline === null ? "median" : "ratio"),
    baseline_median: null,
    iterations: 0,
    met: null,
    skipped: reason,
    measured_at: new Date().toISOString(),
  };
}

/** Milliseconds per run of `bytes` of output as MiB/s. */
export function mibPerSecond(bytes: number): (ms: number) => number {
  return (ms) => bytes / 1048576 / (ms / 1000);
}

/**
 * `rows`, plus a skipped row (saying `reason`) for each of `ids` that has
 * none: a case's declared ids are reported, never dropped.
 */
export function everyId(ids: readonly string[], rows: CaseResult[], reason: string): CaseResult[] {
  const seen = new Set(rows.map((row) => row.id));
  const missing = ids.filter((id) => !seen.has(id)).map((id) =>
    skippedRow({
      id,
      what: "(not measured)",
      baseline: null,
      unit: "",
      goal: null,
      better: "lower",
    }, reason)
  );
  return [...rows, ...missing];
}
