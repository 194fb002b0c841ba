import type {
  BashProcessRead,
  BashProcessStatus,
  BashSandboxInfo,
  BashStreamRead,
  ResourceLimitHit,
  SandboxMode,
  StrayReport,
} from "../seam/mod.ts";
import type { TaskSnapshot } from "../tasks/mod.ts";
import {
  binaryLine,
  cutLine,
  DISPOSED_MARKER,
  keptSpillPath,
  limitLine,
  oneLine,
  outputLines,
  sandboxLines,
  strayTroubleLines,
  violationLines,
} from "./_markers.ts";
import { scrubbedSecrets } from "./redact.ts";

/**
 * What a background bash task's `readOutput` hook returns: the process read,
 * plus the process's sandbox facts and stray report once it has settled.
 *
 * @example
 * ```ts
 * import type { BashTaskOutput } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const quiet = { text: "", truncated: false, omittedBytes: 0, spillComplete: false };
 * const output: BashTaskOutput = {
 *   stdout: { ...quiet, text: "ready\n" }, stderr: quiet,
 *   status: "running", exitCode: null, signal: null,
 * };
 * assert.equal(output.stdout.text, "ready\n");
 * ```
 */
export interface BashTaskOutput extends BashProcessRead {
  /** Sandbox facts of the settled process, from a sandboxing executor. */
  sandbox?: BashSandboxInfo;
  /** True when the executor's disposal killed the process. */
  disposed?: boolean;
  /** The resource limit the settled process ran into. */
  limitHit?: ResourceLimitHit;
  /** What the settled process left behind (see `BashRunResult.strays`). */
  strays?: StrayReport;
}

/**
 * The inside of a `[status: ...]` marker: the status, then the exit code,
 * signal, error and kill reason when there are any.
 *
 * @example
 * ```ts
 * import { renderTaskStatus } from "./render_task.ts";
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
 * Options of {@linkcode renderTaskOutput}.
 *
 * @example
 * ```ts
 * import type { RenderTaskOutputOptions } from "./render_task.ts";
 * import assert from "node:assert/strict";
 *
 * const options: RenderTaskOutputOptions = { escalationModes: [] };
 * assert.deepEqual(options.escalationModes, []);
 * ```
 */
export interface RenderTaskOutputOptions {
  /** As in `renderRunResult`: the modes a denied task may be retried under. */
  escalationModes?: readonly SandboxMode[];
  /**
   * How long the call waited for the task to finish (`wait: true`); a task
   * still running afterwards gets a line saying the wait ran out.
   */
  waitedMs?: number;
  /** As in `renderRunResult`: values never shown to the model (default: `scrubbedSecrets()`). */
  secrets?: Readonly<Record<string, string>>;
}

/**
 * Renders a `task_output` read: the new stdout and `[stderr]` section, or
 * `(no new output)`; an `[output lost: ...]` marker when a text stream's
 * bytes were dropped from memory since the last read, counting those and
 * naming their streams' complete spill files (while they exist); a
 * `[the full stdout could not be saved: <reason>]` line per stream whose
 * spill file a fault stopped; a `[stopped: the executor was shut down
 * (disposed) ...]` line when its disposal killed the task; a `[resource limit: ...]`
 * line when it ran into one; a line per protected path this read of a running
 * task found planted and moved away, or the sandbox markers of a settled
 * sandboxed task; a line for processes it left that would not die, or whose
 * census failed; a line when a wait ran out with the task unfinished; and
 * last `[status: ...]`. Output of other task kinds (a
 * string, or any JSON value) is shown as is.
 *
 * @example
 * ```ts
 * import { renderTaskOutput } from "./render_task.ts";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const dir = mkdtempSync(join(tmpdir(), "example-"));
 * const spillPath = join(dir, "stdout");
 * writeFileSync(spillPath, "...");
 * const snapshot = {
 *   id: "bash-1", kind: "bash", label: "make", status: "running" as const,
 *   exitCode: null, signal: null, startedAt: 0,
 * };
 * const output = {
 *   stdout: { text: "tail\n", truncated: true, omittedBytes: 4096, spillPath, spillComplete: true },
 *   stderr: { text: "", truncated: false, omittedBytes: 0, spillComplete: false },
 *   status: "running" as const, exitCode: null, signal: null,
 * };
 * assert.equal(
 *   renderTaskOutput({ snapshot, output }),
 *   "tail\n[output lost: 4096 bytes since the last read were dropped from memory and are missing above; " +
 *     `full output: ${spillPath} (stdout)]\n` +
 *     "[status: running]",
 * );
 * rmSync(dir, { recursive: true });
 * ```
 */
export function renderTaskOutput(
  read: { snapshot: TaskSnapshot; output: unknown },
  options: RenderTaskOutputOptions = {},
): string {
  const { snapshot, output } = read;
  const empty = "(no new output)";
  const secrets = options.secrets ?? scrubbedSecrets();
  const lines: string[] = [];
  if (isBashTaskOutput(output)) {
    lines.push(...outputLines(
      {
        stdout: output.stdout.binary === undefined ? output.stdout.text : "",
        stdoutMarkers: streamLines(output.stdout, "stdout", output.status),
        stderr: output.stderr.binary === undefined ? output.stderr.text : "",
        stderrMarkers: streamLines(output.stderr, "stderr", output.status),
      },
      empty,
      secrets,
    ));
    lines.push(...lossyMarker(output));
    lines.push(...spillErrorMarkers(output));
    if (output.disposed) lines.push(DISPOSED_MARKER);
    if (output.limitHit) lines.push(limitLine(output.limitHit));
    // What this read moved away while the command runs; a settled one says it all in `sandbox`.
    if (output.sandbox === undefined) lines.push(...violationLines(output.violations));
    lines.push(...sandboxLines(output.sandbox, options.escalationModes ?? []));
    if (output.strays !== undefined) lines.push(...strayTroubleLines(output.strays));
  } else {
    const text = output === undefined || typeof output === "string"
      ? output ?? ""
      : JSON.stringify(output, null, 2) ?? "";
    lines.push(
      ...outputLines(
        { stdout: text, stdoutMarkers: [], stderr: "", stderrMarkers: [] },
        empty,
        secrets,
      ),
    );
  }
  const unsettled = snapshot.status === "running" || snapshot.status === "stopping";
  if (options.waitedMs !== undefined && unsettled) {
    lines.push(
      `[still ${snapshot.status} after waiting ${options.waitedMs} ms; wait again or do other work meanwhile]`,
    );
  }
  lines.push(`[${renderTaskStatus(snapshot)}]`);
  return lines.join("\n");
}

/**
 * The lines after a stream: one for a stream that is not text, on every read
 * of it (none for text), and one for a stream the executor stopped reading
 * before its end.
 */
function streamLines(
  stream: BashStreamRead,
  name: "stdout" | "stderr",
  status: BashProcessStatus,
): string[] {
  const binary = stream.binary;
  const lines = binary === undefined
    ? []
    : [binaryLine({ ...stream, binary }, name, status === "running")];
  if (stream.cut !== undefined) lines.push(cutLine(name, stream.cut));
  return lines;
}

/**
 * The `[output lost: ...]` line, when a text stream dropped bytes since the
 * last read: their count, and the complete spill files of those streams
 * only (a binary stream has its own line).
 */
function lossyMarker(output: BashTaskOutput): string[] {
  const lossy = (["stdout", "stderr"] as const).filter((name) =>
    output[name].truncated && output[name].binary === undefined
  );
  if (lossy.length === 0) return [];
  let omitted = 0;
  const files: string[] = [];
  for (const name of lossy) {
    const stream = output[name];
    omitted += stream.omittedBytes;
    const path = stream.spillComplete ? keptSpillPath(stream) : undefined;
    if (path !== undefined) files.push(`${path} (${name})`);
  }
  return [
    `[output lost: ${omitted} bytes since the last read were dropped from memory and are missing above; full output: ${
      files.length ? files.join(", ") : "(unavailable)"
    }]`,
  ];
}

/** A line per stream whose spill file a fault stopped or removed, with the reason. */
function spillErrorMarkers(output: BashTaskOutput): string[] {
  const lines: string[] = [];
  for (const stream of ["stdout", "stderr"] as const) {
    const error = output[stream].spillError;
    if (error !== undefined) lines.push(`[the full ${stream} could not be saved: ${error}]`);
  }
  return lines;
}

function isBashTaskOutput(output: unknown): output is BashTaskOutput {
  if (typeof output !== "object" || output === null) return false;
  const read = output as Partial<Record<keyof BashTaskOutput, unknown>>;
  return isStreamRead(read.stdout) && isStreamRead(read.stderr);
}

function isStreamRead(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stream = value as Record<string, unknown>;
  return typeof stream.text === "string" && typeof stream.truncated === "boolean" &&
    typeof stream.omittedBytes === "number";
}

/**
 * Options of {@linkcode renderTaskList}.
 *
 * @example
 * ```ts
 * import type { RenderTaskListOptions } from "./render_task.ts";
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
 * import { renderTaskList } from "./render_task.ts";
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
 * import { renderTaskNotice } from "./render_task.ts";
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
 * import { renderBackgroundStart } from "./render_task.ts";
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
 * import { renderTaskKill } from "./render_task.ts";
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
