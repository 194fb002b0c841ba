import { type CaseResult, row, type RowHeader, skippedRow } from "../../bench/_case.ts";
import type { BenchResults } from "../../bench/_results.ts";

/** A ratio row: lower is better, goal 1.1. */
export const FOREGROUND: RowHeader = {
  id: "foreground-deno",
  what: 'run("true")',
  baseline: "raw setsid bash -c true",
  unit: "ms",
  goal: 1.1,
  better: "lower",
};

/** An absolute row: at most 64 MiB, baseline for scale. */
export const MEMORY: RowHeader = {
  id: "memory-1gib",
  what: "peak RSS growth",
  baseline: "raw read",
  unit: "MiB",
  goal: 64,
  better: "lower",
  goal_of: "median",
};

/** A results document with a met, a missed, an absolute, a skipped and a growth row. */
export function sampleResults(): BenchResults {
  const cases: CaseResult[] = [
    row(FOREGROUND, [3, 3.2, 3.4], [3, 3, 3]),
    row({ ...FOREGROUND, id: "throughput-deno", unit: "MiB/s", goal: 0.9, better: "higher" }, [
      500,
    ], [1000]),
    row(MEMORY, [1, 2, 3], [0.5]),
    skippedRow({ ...FOREGROUND, id: "sandbox-vs-codex" }, "no codex <binary> & no luck"),
    {
      ...row(
        { ...MEMORY, id: "growth-slope", unit: "slope", goal: 1.1, baseline: null },
        [0.9],
        null,
      ),
      points: [
        { bytes: 1024, ms: 3, peak_rss_growth_mib: 0.1 },
        { bytes: 16384, ms: 3.5, peak_rss_growth_mib: 0.1 },
        { bytes: 262144, ms: 5, peak_rss_growth_mib: 0.2 },
      ],
    },
  ];
  return {
    date: "2026-11-30T00:00:00.000Z",
    runtime_versions: { deno: "2.9.6" },
    machine: {
      cores: 2,
      memory: 24 * 2 ** 30,
      load_average: [1, 2, 3],
      load_average_end: [4, 1, 1],
    },
    started: "2026-11-29T00:00:00.000Z",
    quick: false,
    cases,
  };
}
