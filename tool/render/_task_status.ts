/**
 * A task's status, as the inside of a `[status: ...]` marker, and the short
 * replies built on it: `task_list`, the completion notice, the reply to a
 * background start, and `task_kill`'s.
 *
 * @module
 */
import type { TaskSnapshot } from "../../tasks/mod.ts";
import { oneLine } from "./_markers.ts";

/**
 * The inside of a `[status: ...]` marker: the status, then the exit code,
 * signal, error and kill reason when there are any.
 *
 * @example
 * ```ts
 * import { renderTaskStatus } from "./_task_status.ts";
 * import assert from "node:assert/strict";
 *
 * const base = { id: "bash-1", kind: "bash", label: "make", startedAt: 0 };
 * assert.equal(
 *   renderTaskStatus({ ...base, status: "completed", exitCode: 0, signal: null }),
 *   "status: completed, exit code: 0",
 * );
 * assert.equal(
 *   renderTaskStatus({ ...base, status: "killed", exitCode: null, signal: "SIGTERM", killReason: "done" }),
 *   'status: killed, signal: SIGTERM, kill reason: "done"',
 * );
 * ```
 */
export function renderTaskStatus(snapshot: TaskSnapshot): string {
  const parts = [`status: ${snapshot.status}`];
  if (snapshot.exitCode !== null) parts.push(`exit code: ${snapshot.exitCode}`);
  if (snapshot.signal !== null) parts.push(`signal: ${snapshot.signal}`);
  if (snapshot.error !== undefined) parts.push(`error: ${oneLine(snapshot.error)}`);
  if (snapshot.killReason !== undefined) {
    parts.push(`kill reason: ${JSON.stringify(oneLine(snapshot.killReason))}`);
  }
  return parts.join(", ");
}

/**
 * Options of {@linkcode renderTaskList}.
 *
 * @example
 * ```ts
 * import type { RenderTaskListOptions } from "./_task_status.ts";
 * import assert from "node:assert/strict";
 *
 * const options: RenderTaskListOptions = { maxFinished: 5 };
 * assert.equal(options.maxFinished, 5);
 * ```
 */
export interface RenderTaskListOptions {
  /** How many finished tasks are listed, the most recently ended (default 20). */
  maxFinished?: number;
}

/** How many finished tasks `task_list` shows by default. */
const DEFAULT_LISTED_FINISHED = 20;

/**
 * Renders `task_list`: one line per task, `<id> [<kind>] <status> — <label>`,
 * the running (and stopping) ones first, then the `maxFinished` most
 * recently ended ones, each group in registration order, then
 * `(N older finished tasks not shown)` when there are more; or
 * `(no background tasks)`.
 *
 * @example
 * ```ts
 * import { renderTaskList } from "./_task_status.ts";
 * import assert from "node:assert/strict";
 *
 * const task = { kind: "bash", exitCode: null, signal: null, startedAt: 0 };
 * assert.equal(renderTaskList([]), "(no background tasks)");
 * assert.equal(
 *   renderTaskList([
 *     { ...task, id: "bash-1", label: "make", status: "completed", exitCode: 0, endedAt: 5 },
 *     { ...task, id: "bash-2", label: "make test", status: "completed", exitCode: 0, endedAt: 9 },
 *     { ...task, id: "bash-3", label: "npm run dev", status: "running" },
 *   ], { maxFinished: 1 }),
 *   [
 *     "bash-3 [bash] running — npm run dev",
 *     "bash-2 [bash] completed — make test",
 *     "(1 older finished task not shown)",
 *   ].join("\n"),
 * );
 * ```
 */
export function renderTaskList(
  snapshots: readonly TaskSnapshot[],
  options: RenderTaskListOptions = {},
): string {
  if (snapshots.length === 0) return "(no background tasks)";
  const maxFinished = options.maxFinished ?? DEFAULT_LISTED_FINISHED;
  const running = snapshots.filter((task) => task.endedAt === undefined);
  const finished = snapshots.filter((task) => task.endedAt !== undefined);
  const shown = new Set(
    [...finished].sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0)).slice(0, maxFinished),
  );
  const lines = [...running, ...finished.filter((task) => shown.has(task))]
    .map((task) => `${task.id} [${task.kind}] ${task.status} — ${oneLine(task.label)}`);
  const hidden = finished.length - shown.size;
  if (hidden > 0) {
    lines.push(`(${hidden} older finished task${hidden === 1 ? "" : "s"} not shown)`);
  }
  return lines.join("\n");
}

/**
 * Renders a completion notice for a harness to inject into the next model
 * turn.
 *
 * @example
 * ```ts
 * import { renderTaskNotice } from "./_task_status.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   renderTaskNotice({
 *     id: "bash-3", kind: "bash", label: "make test", status: "completed",
 *     exitCode: 0, signal: null, startedAt: 0, endedAt: 5,
 *   }),
 *   "background task bash-3 (make test) finished [status: completed, exit code: 0]. " +
 *     "Read its output with task_output.",
 * );
 * ```
 */
export function renderTaskNotice(snapshot: TaskSnapshot): string {
  return `background task ${snapshot.id} (${oneLine(snapshot.label)}) finished [${
    renderTaskStatus(snapshot)
  }]. Read its output with task_output.`;
}

/**
 * Renders the `bash` reply to a `run_in_background` call:
 * `started background task <id>`.
 *
 * @example
 * ```ts
 * import { renderBackgroundStart } from "./_task_status.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(renderBackgroundStart("bash-4"), "started background task bash-4");
 * ```
 */
export function renderBackgroundStart(taskId: string): string {
  return `started background task ${taskId}`;
}

/**
 * Renders the `task_kill` reply from the registry's answer and the task's
 * snapshot afterwards; it ends with `[status: ...]`.
 *
 * @example
 * ```ts
 * import { renderTaskKill } from "./_task_status.ts";
 * import assert from "node:assert/strict";
 *
 * const snapshot = {
 *   id: "bash-1", kind: "bash", label: "sleep 100", status: "killed" as const,
 *   exitCode: null, signal: "SIGTERM", startedAt: 0, endedAt: 9,
 * };
 * assert.equal(
 *   renderTaskKill("requested", snapshot),
 *   "stopped task bash-1; read what it printed with task_output\n[status: killed, signal: SIGTERM]",
 * );
 * ```
 */
export function renderTaskKill(
  outcome: "requested" | "already-finished",
  snapshot: TaskSnapshot,
): string {
  let head: string;
  if (outcome === "already-finished") {
    head = `task ${snapshot.id} had already finished; read its output with task_output`;
  } else if (snapshot.status === "running" || snapshot.status === "stopping") {
    head =
      `asked task ${snapshot.id} to stop, but it has not exited yet; check its status later with task_list`;
  } else {
    head = `stopped task ${snapshot.id}; read what it printed with task_output`;
  }
  return `${head}\n[${renderTaskStatus(snapshot)}]`;
}
