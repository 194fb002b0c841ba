/**
 * The `long-session` bench case: one executor, one registry and one tool set
 * make many calls, as a long agent session would (mixed foreground and
 * background, small and large outputs, every background task waited for and
 * read), and memory and disk are measured at checkpoints. Both should stay
 * flat: the registry lets seen tasks go and the executor keeps its private
 * folder within its spill budget.
 *
 * Run alone: `deno run --allow-all --v8-flags=--expose-gc bench/long_session.ts [calls]`
 * (with `--expose-gc` the heap is measured after a full collection, so its
 * figure is what is really kept). The resident set size includes what the
 * runtime itself keeps per spawned child: raw `Deno.Command` spawns grow it
 * too (on Deno 2.9.6, by about 70 MB per 1,000 spawns with no shellseam code).
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { LocalBashExecutor } from "../local/mod.ts";
import { taskOwner, TaskRegistry } from "../tasks/mod.ts";
import { createBashTools } from "../tool/mod.ts";

/** One measurement, after `calls` tool calls. */
export interface LongSessionCheckpoint {
  /** Tool calls made so far (each `bash` and each `task_output` counts). */
  calls: number;
  /** Resident set size of this process, in MB. */
  rssMb: number;
  /** V8 heap in use, in MB (after a full collection when `gc` is exposed). */
  heapUsedMb: number;
  /** Bytes in the executor's private folder (spill files and scratch), in MB. */
  spillMb: number;
  /** Files in that folder. */
  spillFiles: number;
  /** Tasks the registry still keeps for the session. */
  retainedTasks: number;
  /** Lines `task_list` returns. */
  taskListLines: number;
  /** Mean wall time per call since the previous checkpoint, in ms. */
  msPerCall: number;
}

/** Options of {@linkcode runLongSession}. */
export interface LongSessionOptions {
  /** Tool calls in all (default 10,000). */
  calls?: number;
  /** Calls at which to measure (default 1,000 and the last). */
  checkpoints?: number[];
  /** The executor's spill budget, in bytes (default 128 MiB, so it is reached within 1,000 calls). */
  maxSpillTotalBytes?: number;
}

/** What one step of the mix runs; a background step costs two calls (start, then a waited read). */
const MIX: readonly { command: string; background: boolean }[] = [
  { command: "echo small", background: false },
  { command: "head -c 1048576 /dev/zero | tr '\\0' x", background: false }, // 1 MiB: spills
  { command: "seq 1 200", background: false },
  { command: "head -c 270000 /dev/zero | tr '\\0' y", background: true }, // 270 KB: spills
  { command: "echo tick", background: true },
  { command: "git --version >/dev/null 2>&1; echo $?", background: false },
];

/** Bytes and files beneath `dir`. */
function folderSize(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { bytes, files };
}

/** An executor that shows its private folder, to measure it. */
class MeasuredExecutor extends LocalBashExecutor {
  folder(): Promise<string> {
    return this.privateDir();
  }
}

/**
 * Runs the session and returns one checkpoint per requested call count.
 *
 * @example
 * ```ts ignore
 * import { runLongSession } from "./long_session.ts";
 * const rows = await runLongSession({ calls: 2_000, checkpoints: [200, 2_000] });
 * console.table(rows);
 * ```
 */
export async function runLongSession(
  options: LongSessionOptions = {},
): Promise<LongSessionCheckpoint[]> {
  const calls = options.calls ?? 10_000;
  const checkpoints = new Set(options.checkpoints ?? [Math.min(1_000, calls), calls]);
  await using executor = new MeasuredExecutor({
    cwd: "/tmp",
    maxSpillTotalBytes: options.maxSpillTotalBytes ?? 128 * 1024 * 1024,
  });
  await using tasks = new TaskRegistry();
  const owner = taskOwner("long-session");
  const tools = createBashTools({ executor, tasks, owner });
  const folder = await executor.folder();
  const rows: LongSessionCheckpoint[] = [];
  let made = 0;
  let since = performance.now();
  let sinceCalls = 0;
  const measure = async (): Promise<void> => {
    const { bytes, files } = folderSize(folder);
    (globalThis as { gc?: () => void }).gc?.();
    const memory = Deno.memoryUsage();
    rows.push({
      calls: made,
      rssMb: memory.rss / 1e6,
      heapUsedMb: memory.heapUsed / 1e6,
      spillMb: bytes / 1e6,
      spillFiles: files,
      retainedTasks: tasks.list(owner).length,
      taskListLines: (await tools.taskList.execute({})).text.split("\n").length,
      msPerCall: (performance.now() - since) / (made - sinceCalls),
    });
    since = performance.now();
    sinceCalls = made;
  };
  const count = async (): Promise<void> => {
    made++;
    if (checkpoints.has(made)) await measure();
  };
  for (let step = 0; made < calls; step++) {
    const { command, background } = MIX[step % MIX.length]!;
    const started = await tools.bash.execute({
      command,
      description: "Long session step",
      run_in_background: background,
    });
    await count();
    if (!background || made >= calls) continue;
    const id = /^started background task (\S+)$/.exec(started.text)?.[1];
    if (id === undefined) throw new Error(`The background start failed: ${started.text}`);
    await tools.taskOutput.execute({ task_id: id, wait: true });
    await count();
  }
  return rows;
}

if (import.meta.main) {
  const calls = Number(Deno.args[0] ?? 10_000);
  const rows = await runLongSession({ calls });
  console.table(rows.map((row) => ({ ...row, msPerCall: Number(row.msPerCall.toFixed(2)) })));
}
