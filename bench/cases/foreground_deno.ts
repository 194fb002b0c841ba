import { LocalBashExecutor } from "../../local/mod.ts";
import { type BenchCase, row, type RowHeader, skippedRow } from "../_case.ts";
import { interleave } from "../_interleave.ts";
import { rawSpawnOk, rounds, unavailable } from "./_spawn.ts";

const HEADER: RowHeader = {
  id: "foreground-deno",
  what: 'LocalBashExecutor.run("true") under Deno',
  baseline: "raw Deno.Command setsid bash -c true (the floor for a new session)",
  unit: "ms",
  goal: 1.1,
  better: "lower",
};

/** `foreground-deno`: the executor's `run("true")` against the floor for its semantics. */
export const foregroundDeno: BenchCase = {
  ids: [HEADER.id],
  async run(context) {
    const missing = await unavailable("setsid");
    if (missing !== undefined) return [skippedRow(HEADER, missing)];
    await using executor = new LocalBashExecutor();
    const samples = await interleave({
      ours: () => executor.run(executor.resolve({ command: "true" })),
      raw: () => rawSpawnOk("setsid", ["bash", "-c", "true"]),
    }, rounds(context, { warmup: 5, iterations: 80 }, { warmup: 2, iterations: 8 }));
    return [row(HEADER, samples.ours!, samples.raw!)];
  },
};
