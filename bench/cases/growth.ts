import { LocalBashExecutor } from "../../local/mod.ts";
import type { BenchCase, CaseResult, GrowthPoint, RowHeader } from "../_case.ts";
import { interleaveValues } from "../_interleave.ts";
import { peakGrowth } from "../_memory.ts";
import { fitLine, logLogSlope, meetsGoal, summarize } from "../_stats.ts";
import { rounds } from "./_spawn.ts";

const MIB = 1 << 20;
/** 1 KiB to 1 GiB in x16 steps. */
export const GROWTH_SIZES: readonly number[] = Array.from({ length: 6 }, (_, i) => 1024 * 16 ** i);
/** How many of the largest sizes the log-log slope is fitted over (where bytes dominate). */
const SLOPE_POINTS = 3;

const HEADER: RowHeader = {
  id: "growth-slope",
  what: "run() time against stdout size, 1 KiB to 1 GiB in x16 steps, under Deno: the " +
    `log-log slope over the ${SLOPE_POINTS} largest sizes (1 = linear in bytes)`,
  baseline: null,
  unit: "slope",
  goal: 1.1,
  better: "lower",
};

/** Rounds per size: small outputs are cheap, the largest few are not. */
function perSize(bytes: number, quick: boolean): { warmup: number; iterations: number } {
  if (quick) return { warmup: 0, iterations: bytes >= 64 * MIB ? 1 : 3 };
  if (bytes >= 1 << 30) return { warmup: 0, iterations: 2 };
  if (bytes >= 64 * MIB) return { warmup: 1, iterations: 3 };
  return { warmup: 2, iterations: 10 };
}

/**
 * The growth-slope row from measured points: the log-log slope of the
 * median (and p10, p90) times over the largest sizes, and in the note the
 * linear fit (ns per byte) and the peak RSS growth at both ends.
 */
export function growthRow(
  points: readonly { bytes: number; ms: number[]; mib: number[] }[],
): CaseResult {
  const top = points.slice(-SLOPE_POINTS);
  const xs = top.map((p) => p.bytes);
  const at = (q: "median" | "p10" | "p90") => logLogSlope(xs, top.map((p) => summarize(p.ms)[q]));
  const medians: GrowthPoint[] = points.map((p) => ({
    bytes: p.bytes,
    ms: summarize(p.ms).median,
    peak_rss_growth_mib: summarize(p.mib).median,
  }));
  const line = fitLine(medians.map((p) => p.bytes), medians.map((p) => p.ms));
  const first = medians[0]!, last = medians.at(-1)!;
  const slope = at("median");
  return {
    ...HEADER,
    baseline: null,
    median: slope,
    p10: at("p10"),
    p90: at("p90"),
    ratio: null,
    goal_of: "median",
    baseline_median: null,
    iterations: Math.min(...points.map((p) => p.ms.length)),
    met: meetsGoal(slope, HEADER.goal!, HEADER.better),
    note:
      `linear fit: ${(line.slope * 1e6).toFixed(3)} ns/byte + ${line.intercept.toFixed(1)} ms ` +
      `(r² ${line.r2.toFixed(4)}); peak RSS growth ${first.peak_rss_growth_mib.toFixed(1)} MiB ` +
      `at ${first.bytes} B, ${last.peak_rss_growth_mib.toFixed(1)} MiB at ${last.bytes} B`,
    points: medians,
    measured_at: new Date().toISOString(),
  };
}

/** `growth-slope`: how `run()` time and memory grow with the size of the output. */
export const growthSlope: BenchCase = {
  ids: [HEADER.id],
  async run(context) {
    await using executor = new LocalBashExecutor();
    const points = [];
    for (const bytes of GROWTH_SIZES) {
      const mib: number[] = [];
      const options = perSize(bytes, context.quick);
      const { ours } = await interleaveValues({
        ours: async () => {
          const start = performance.now();
          const { growth } = await peakGrowth(() =>
            executor.run(executor.resolve({ command: `head -c ${bytes} /dev/zero` }))
          );
          mib.push(growth / MIB);
          return performance.now() - start;
        },
      }, rounds(context, options, options));
      points.push({ bytes, ms: ours!, mib: mib.slice(options.warmup) });
      context.log(`  ${bytes} B: ${summarize(ours!).median.toFixed(1)} ms`);
    }
    return [growthRow(points)];
  },
};
