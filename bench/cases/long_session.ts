/**
 * `long-session`: one executor and one registry through thousands of mixed
 * calls (foreground and background, small and spilling outputs), the way an
 * agent session runs for hours: memory and disk after the last call against
 * after the first thousand.
 *
 * @module
 */
import { type BenchCase, row } from "../_case.ts";
import { runLongSession } from "../long_session.ts";

/**
 * The `long-session` rows: RSS and heap growth and the spill folder's size,
 * after 1,000 calls against after N. RSS grows with the runtime's own spawns
 * too (raw `Deno.Command` spawns alone grow it on Deno 2.9.6), so the heap
 * after a full collection is the library's figure.
 */
export const longSession: BenchCase = {
  ids: ["long-session-memory", "long-session-heap", "long-session-disk"],
  async run(context) {
    const calls = context.quick ? 1_500 : 10_000;
    context.log(`long-session: ${calls} mixed calls`);
    const [early, late] = await runLongSession({ calls, checkpoints: [1_000, calls] });
    if (early === undefined || late === undefined) throw new Error("no checkpoints were taken");
    const note = `after ${early.calls} calls: RSS ${early.rssMb.toFixed(0)} MB, heap ` +
      `${early.heapUsedMb.toFixed(1)} MB, spill ${early.spillMb.toFixed(0)} MB in ` +
      `${early.spillFiles} files, ${early.retainedTasks} tasks kept; after ${late.calls}: RSS ` +
      `${late.rssMb.toFixed(0)} MB, heap ${late.heapUsedMb.toFixed(1)} MB, spill ` +
      `${late.spillMb.toFixed(0)} MB in ${late.spillFiles} files, ${late.retainedTasks} tasks ` +
      `kept, ${late.taskListLines} task_list lines; ${late.msPerCall.toFixed(1)} ms per call`;
    return [
      row(
        {
          id: "long-session-memory",
          what: `RSS growth from call ${early.calls} to call ${late.calls} of one session`,
          baseline: null,
          unit: "MB",
          goal: 30,
          better: "lower",
        },
        [late.rssMb - early.rssMb],
        null,
        { note },
      ),
      row(
        {
          id: "long-session-heap",
          what: `V8 heap growth (after a full collection with --expose-gc) from call ` +
            `${early.calls} to call ${late.calls}`,
          baseline: null,
          unit: "MB",
          goal: 30,
          better: "lower",
        },
        [late.heapUsedMb - early.heapUsedMb],
        null,
        { note },
      ),
      row(
        {
          id: "long-session-disk",
          what: `spill folder after ${late.calls} calls against after ${early.calls}`,
          baseline: `spill folder after ${early.calls} calls`,
          unit: "MB",
          goal: 1.1,
          better: "lower",
        },
        [late.spillMb],
        [early.spillMb],
        { note },
      ),
    ];
  },
};
