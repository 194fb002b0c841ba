import { LocalBashExecutor } from "../../local/mod.ts";
import type { BashProcess } from "../../seam/mod.ts";
import { type BenchCase, row, type RowHeader } from "../_case.ts";
import { interleaveValues } from "../_interleave.ts";
import { peakGrowth } from "../_memory.ts";
import { summarize } from "../_stats.ts";
import { rawSpawn, rounds } from "./_spawn.ts";

const TASKS = 200;
const COMMAND = "sleep 0.5; echo x";
const READ_EVERY_MS = 50;

const HEADER: RowHeader = {
  id: "background-200",
  what: `${TASKS} concurrent background "${COMMAND}" by LocalBashExecutor.start(), ` +
    `each with a reader polling readOutput() every ${READ_EVERY_MS} ms: wall time`,
  baseline: `${TASKS} concurrent raw Deno.Command setsid bash -c, stdout read as a stream`,
  unit: "ms",
  goal: null,
  better: "lower",
};

/** Polls `process` until it settles; resolves with everything it printed. */
async function reader(process: BashProcess): Promise<string> {
  let text = "";
  while (process.status === "running") {
    text += process.readOutput().stdout.text;
    await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
  }
  await process.done;
  return text + process.readOutput().stdout.text;
}

/**
 * `background-200`: wall time of 200 concurrent background commands with
 * readers, against as many raw spawns; the note gives the peak RSS growth
 * per task.
 */
export const background200: BenchCase = {
  ids: [HEADER.id],
  async run(context) {
    await using executor = new LocalBashExecutor();
    const perTaskKib: number[] = [];
    const ours = async () => {
      const start = performance.now();
      const { growth } = await peakGrowth(async () => {
        const processes = await Promise.all(
          Array.from(
            { length: TASKS },
            () => executor.start(executor.resolve({ command: COMMAND })),
          ),
        );
        const texts = await Promise.all(processes.map(reader));
        if (texts.some((text) => text !== "x\n")) throw new Error("A reader lost its output");
      });
      const elapsed = performance.now() - start;
      perTaskKib.push(growth / TASKS / 1024);
      return elapsed;
    };
    const raw = async () => {
      const start = performance.now();
      const runs = await Promise.all(
        Array.from({ length: TASKS }, () => rawSpawn("setsid", ["bash", "-c", COMMAND])),
      );
      if (runs.some(({ code, bytes }) => code !== 0 || bytes !== 2)) {
        throw new Error("A raw background command failed");
      }
      return performance.now() - start;
    };
    const options = rounds(context, { warmup: 1, iterations: 8 }, { warmup: 0, iterations: 1 });
    const samples = await interleaveValues({ ours, raw }, options);
    const kib = summarize(perTaskKib.slice(options.warmup)).median;
    return [row(HEADER, samples.ours!, samples.raw!, {
      note: `peak RSS growth per task: ${kib.toFixed(0)} KiB (median of the timed rounds)`,
    })];
  },
};
