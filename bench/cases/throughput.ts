import { LocalBashExecutor } from "../../local/mod.ts";
import {
  type BenchCase,
  type CaseResult,
  mibPerSecond,
  row,
  type RowHeader,
  skippedRow,
} from "../_case.ts";
import { interleave, interleaveValues } from "../_interleave.ts";
import { peakGrowth } from "../_memory.ts";
import { summarize } from "../_stats.ts";
import { rawSpawnOk, rounds } from "./_spawn.ts";

const GIB = 1 << 30;
const MIB = 1 << 20;
const command = (bytes: number): string => `head -c ${bytes} /dev/zero`;

const DENO: RowHeader = {
  id: "throughput-deno",
  what: "1 GiB of stdout through LocalBashExecutor.run() under Deno",
  baseline: "raw Deno.Command stream read of the same command",
  unit: "MiB/s",
  goal: 0.9,
  better: "higher",
};
const NODE: RowHeader = {
  ...DENO,
  id: "throughput-node",
  what: "1 GiB of stdout through the Node build's run() under Node 22",
  baseline: "raw child_process.spawn stream read of the same command",
};

/**
 * The throughput row: ours against the raw read (the row's baseline); the
 * note adds the raw read in a new session (`setsid`, as ours runs), which
 * tells the library's cost from the new session's.
 */
function throughputRow(
  header: RowHeader,
  samples: Record<string, number[]>,
  more = "",
): CaseResult {
  const rate = mibPerSecond(GIB);
  const session = summarize(samples.rawSession!.map(rate)).median;
  const ours = summarize(samples.ours!.map(rate)).median;
  return row(header, samples.ours!.map(rate), samples.raw!.map(rate), {
    note: `a raw read in a new session (setsid) ran at ${session.toFixed(0)} MiB/s: ` +
      `ratio ${(ours / session).toFixed(2)} against it${more}`,
  });
}

/** `throughput-deno`: 1 GiB through `run()` against a raw stream read. */
export const throughputDeno: BenchCase = {
  ids: [DENO.id],
  async run(context) {
    await using executor = new LocalBashExecutor();
    const samples = await interleave({
      ours: async () => {
        const result = await executor.run(executor.resolve({ command: command(GIB) }));
        if (result.stdout.totalBytes !== GIB) throw new Error("run() lost bytes");
      },
      raw: () => rawSpawnOk("bash", ["-c", command(GIB)]),
      rawSession: () => rawSpawnOk("setsid", ["bash", "-c", command(GIB)]),
    }, rounds(context, { warmup: 1, iterations: 7 }, { warmup: 0, iterations: 1 }));
    return [throughputRow(DENO, samples)];
  },
};

/** `throughput-node`: the same under Node, with the Node build. */
export const throughputNode: BenchCase = {
  ids: [NODE.id],
  async run(context) {
    const node = await context.node();
    if ("unavailable" in node) return [skippedRow(NODE, node.unavailable)];
    const { samples, extra } = await node.run({
      kind: "throughput",
      bytes: GIB,
      ...rounds(context, { warmup: 1, iterations: 7 }, { warmup: 0, iterations: 1 }),
    });
    const growth = (extra?.peak_rss_growth_median ?? NaN) / MIB;
    return [
      throughputRow(
        NODE,
        samples,
        `; peak RSS growth of the Node process during run(): ${growth.toFixed(1)} MiB (median)`,
      ),
    ];
  },
};

/** The sizes `memory-*` reports, by id. */
const MEMORY_SIZES: readonly [string, number][] = [
  ["memory-64mib", 64 * MIB],
  ["memory-256mib", 256 * MIB],
  ["memory-1gib", GIB],
];

/**
 * `memory-64mib`, `memory-256mib`, `memory-1gib`: peak RSS growth of the
 * Deno process during `run()` of that much stdout (goal: at most 64 MiB,
 * whatever the size); the raw stream read's growth is its baseline, shown
 * for scale only.
 */
export const memory: BenchCase = {
  ids: MEMORY_SIZES.map(([id]) => id),
  async run(context) {
    await using executor = new LocalBashExecutor();
    const rows = [];
    for (const [id, bytes] of MEMORY_SIZES) {
      const header: RowHeader = {
        id,
        what: `peak RSS growth of the Deno process during run() of ${bytes / MIB} MiB of stdout`,
        baseline: "the same for a raw Deno.Command stream read (for scale; the goal is absolute)",
        unit: "MiB",
        goal: 64,
        better: "lower",
        goal_of: "median",
      };
      const growth = async (operation: () => Promise<unknown>) =>
        (await peakGrowth(operation)).growth / MIB;
      const samples = await interleaveValues({
        ours: () => growth(() => executor.run(executor.resolve({ command: command(bytes) }))),
        raw: () => growth(() => rawSpawnOk("bash", ["-c", command(bytes)])),
      }, rounds(context, { warmup: 1, iterations: 3 }, { warmup: 0, iterations: 1 }));
      rows.push(row(header, samples.ours!, samples.raw!));
    }
    return rows;
  },
};
