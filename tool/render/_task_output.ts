import type {
  BashProcessRead,
  BashProcessStatus,
  BashSandboxInfo,
  BashStreamRead,
  ResourceLimitHit,
  SandboxMode,
  StrayReport,
} from "../../seam/mod.ts";
import type { TaskSnapshot } from "../../tasks/mod.ts";
import {
  binaryLine,
  cutLine,
  DISPOSED_MARKER,
  keptSpillPath,
  limitLine,
  outputLines,
  sandboxLines,
  strayTroubleLines,
  violationLines,
} from "./_markers.ts";
import { scrubbedSecrets } from "./_redact.ts";
import { renderTaskStatus } from "./_task_status.ts";
import type { ScreenSnapshot } from "../screen.ts";

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
  /**
   * A terminal's screen after this read (its stdout rendered), for a task
   * that runs in one: a promise when the renderer parses later (see
   * `ScreenRenderer.snapshot`); await it before reading it.
   */
  screen?: ScreenSnapshot | Promise<ScreenSnapshot>;
  /**
   * Why a terminal task's screen could not be drawn (its renderer threw):
   * the read then shows the raw output, after a line that says so.
   */
  screenError?: string;
}

/**
 * Options of {@linkcode renderTaskOutput}.
 *
 * @example
 * ```ts
 * import type { RenderTaskOutputOptions } from "./_task_output.ts";
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
 * import { renderTaskOutput } from "./_task_output.ts";
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
    const screen = output.screen;
    if (output.screenError !== undefined) {
      lines.push(`[${output.screenError}; the raw output follows]`);
    }
    lines.push(...outputLines(
      {
        stdout: screen !== undefined
          ? screenText(screen)
          : output.stdout.binary === undefined
          ? output.stdout.text
          : "",
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
 * A terminal's screen for the model: the rows that scrolled off unread
 * (and a line for those not kept), then `[screen]` and its rows, or
 * `[screen: blank]`. A screen still a promise (the tools await it first:
 * `readTask`) says so.
 */
function screenText(screen: ScreenSnapshot | Promise<ScreenSnapshot>): string {
  if (screen instanceof Promise) return "[screen: not drawn yet; read it again]\n";
  const lines: string[] = [];
  if (screen.droppedLines > 0) {
    lines.push(`[${screen.droppedLines} earlier lines scrolled off and were not kept]`);
  }
  lines.push(...screen.scrolledOff);
  const alternate = screen.alternate ? " (a full-screen program)" : "";
  if (screen.lines.length === 0) lines.push(`[screen${alternate}: blank]`);
  else lines.push(`[screen${alternate}]`, ...screen.lines);
  return `${lines.join("\n")}\n`;
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
