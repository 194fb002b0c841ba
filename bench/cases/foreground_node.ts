import { type BenchCase, row, type RowHeader, skippedRow } from "../_case.ts";
import { rounds } from "./_spawn.ts";

const RAW: RowHeader = {
  id: "foreground-node",
  what: 'the Node build\'s LocalBashExecutor.run("true") under Node 22',
  baseline: 'raw child_process.spawn("bash", ["-c", "true"], { detached: true })',
  unit: "ms",
  goal: 1.1,
  better: "lower",
};
const EXECA: RowHeader = {
  ...RAW,
  id: "foreground-node-vs-execa",
  baseline: 'execa("bash", ["-c", "true"]) (execa 10.2.1)',
  goal: 1.0,
};

/** `foreground-node` and `foreground-node-vs-execa`: one interleaved run of three arms. */
export const foregroundNode: BenchCase = {
  ids: [RAW.id, EXECA.id],
  async run(context) {
    const node = await context.node();
    if ("unavailable" in node) return [RAW, EXECA].map((h) => skippedRow(h, node.unavailable));
    const { samples } = await node.run({
      kind: "foreground",
      ...rounds(context, { warmup: 5, iterations: 80 }, { warmup: 2, iterations: 8 }),
    });
    return [row(RAW, samples.ours!, samples.raw!), row(EXECA, samples.ours!, samples.execa!)];
  },
};
