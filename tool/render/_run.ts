import type { BashRunResult, CollectedOutput, SandboxMode } from "../../seam/mod.ts";
import {
  binaryLine,
  CONNECTION_LOST_MARKER,
  cutLine,
  DISPOSED_MARKER,
  keptSpillPath,
  limitLine,
  outputLines,
  sandboxLines,
  strayTroubleLines,
} from "./_markers.ts";
import { scrubbedSecrets } from "./_redact.ts";
import type { ToolResult } from "../tool.ts";

/**
 * Options of {@linkcode renderRunResult}.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { RenderRunOptions } from "@shellseam/bash/tool";
 * import { renderRunResult } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const options: RenderRunOptions = { escalationModes: ["workspace-write"], runInBackground: false };
 * await using executor = new LocalBashExecutor();
 * const result = await executor.run({ command: "exit 1" });
 * assert.deepEqual(renderRunResult(result, options), {
 *   text: "(no output)\n[exit code: 1]",
 *   isError: true,
 * });
 * ```
 */
export interface RenderRunOptions {
  /**
   * The modes the model may ask for with `sandbox_permissions` (empty or
   * absent when escalation is not possible, for instance without an
   * approver). A denial gets a retry hint naming those of them wider than
   * the mode the command ran under.
   */
  escalationModes?: readonly SandboxMode[];
  /**
   * Whether the model is offered `run_in_background` (default true). The
   * stray-process marker advises it only then.
   */
  runInBackground?: boolean;
  /**
   * Values never shown to the model, by variable name: each exact occurrence
   * in the output becomes `[redacted: NAME]` (the spill files keep the raw
   * bytes). Default: `scrubbedSecrets()`, the values of the credentials the
   * environment scrub keeps from commands.
   */
  secrets?: Readonly<Record<string, string>>;
}

/**
 * The marker lines for a truncated stream:
 * `[output truncated: N bytes omitted; full output: <path>]`, with
 * `(unavailable)` for the path when no file holds the whole stream, with the
 * reason when a fault or the executor's spill budget stopped it
 * (`(unavailable: ENOSPC: no space left on device)`). When the spill file
 * stopped early, a second line names it as holding only the beginning. A path
 * is named only while its file exists: the executor may delete old spill
 * files to stay within its spill budget, so a result rendered late may no
 * longer name one.
 *
 * @example
 * ```ts
 * import { truncationMarkers } from "./_run.ts";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const dir = mkdtempSync(join(tmpdir(), "example-"));
 * const out = join(dir, "out");
 * writeFileSync(out, "...");
 * const base = { text: "", truncated: true, totalBytes: 90, omittedBytes: 50, invalidUtf8Bytes: 0 };
 * assert.deepEqual(truncationMarkers({ ...base, spillPath: out, spillComplete: true }), [
 *   `[output truncated: 50 bytes omitted; full output: ${out}]`,
 * ]);
 * assert.deepEqual(truncationMarkers({ ...base, spillComplete: false }), [
 *   "[output truncated: 50 bytes omitted; full output: (unavailable)]",
 * ]);
 * assert.deepEqual(truncationMarkers({ ...base, spillPath: out, spillComplete: false }), [
 *   "[output truncated: 50 bytes omitted; full output: (unavailable)]",
 *   `[only the beginning of the output was saved: ${out}]`,
 * ]);
 * assert.deepEqual(
 *   truncationMarkers({
 *     ...base,
 *     spillPath: out,
 *     spillComplete: false,
 *     spillError: "ENOSPC: no space left on device",
 *   }),
 *   [
 *     "[output truncated: 50 bytes omitted; full output: (unavailable: ENOSPC: no space left on device)]",
 *     `[only the beginning of the output was saved: ${out}]`,
 *   ],
 * );
 * rmSync(dir, { recursive: true });
 * assert.deepEqual(truncationMarkers({ ...base, spillPath: out, spillComplete: true }), [
 *   "[output truncated: 50 bytes omitted; full output: (unavailable)]",
 * ]);
 * assert.deepEqual(truncationMarkers({ ...base, truncated: false, spillComplete: false }), []);
 * ```
 */
export function truncationMarkers(output: CollectedOutput): string[] {
  if (!output.truncated) return [];
  const { omittedBytes, spillComplete, spillError } = output;
  const spillPath = keptSpillPath(output);
  const full = spillPath !== undefined && spillComplete
    ? spillPath
    : spillError === undefined
    ? "(unavailable)"
    : `(unavailable: ${spillError})`;
  const lines = [`[output truncated: ${omittedBytes} bytes omitted; full output: ${full}]`];
  if (spillPath !== undefined && !spillComplete) {
    lines.push(`[only the beginning of the output was saved: ${spillPath}]`);
  }
  return lines;
}

/**
 * The marker lines after a stream: one line for binary output, else its
 * truncation markers; then the line for a stream cut short.
 */
function streamMarkers(output: CollectedOutput, name: "stdout" | "stderr"): string[] {
  const binary = output.binary;
  const lines = binary === undefined
    ? truncationMarkers(output)
    : [binaryLine({ ...output, binary }, name)];
  if (output.cut !== undefined) lines.push(cutLine(name, output.cut));
  return lines;
}

/**
 * Renders a foreground run for the model: stdout, a `[stderr]` section, or
 * `(no output)`; the {@linkcode truncationMarkers} after each truncated
 * stream, or one line instead of a stream that is not text
 * (`[binary output: 18 KB (looks like image/png); saved to <path>]`), and
 * `[stdout cut short: ...]` after a stream the executor stopped reading
 * before its end (see `CollectedOutput.cut`); then marker lines in a fixed order: sandbox denial (or sandbox failure), escalation
 * hint, timeout (or idle timeout, or abort), `[stopped: the executor was shut
 * down (disposed) ...]` when its disposal ended the run, `[resource limit: ...]`
 * when it ran into a resource limit, `[killed by signal: SIGX]` or
 * `[exit code: N]`, `[connection lost: ...]` when the connection to a remote
 * host was lost while the command ran (its state is unknown: check before
 * running it again), stray processes stopped, those that would not stop, and
 * a census that failed (so that nothing reads as "nothing left"). Terminal
 * controls are removed, and so are the values of `options.secrets`.
 * `isError` is false only for a clean exit 0 with nothing the sandbox refused
 * or undid (a protected path the command planted and the sandbox moved away).
 *
 * @example
 * ```ts
 * import { renderRunResult } from "@shellseam/bash/tool";
 * import type { BashRunResult } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const stream = { truncated: false, totalBytes: 0, omittedBytes: 0, spillComplete: false, invalidUtf8Bytes: 0 };
 * const result: BashRunResult = {
 *   exitCode: 0, signal: null, timedOut: true, idledOut: false, aborted: false, timeoutMs: 1000,
 *   durationMs: 1002, stdout: { ...stream, text: "\x1b[32mok\x1b[0m\n" }, stderr: { ...stream, text: "" },
 *   strays: { killed: 1, survivors: [] }, scrubbedEnv: [],
 * };
 * assert.deepEqual(renderRunResult(result), {
 *   text: "ok\n[timed out after 1000 ms]\n[exit code: 0]\n" +
 *     "[stopped 1 background process(es) left running by the command; use run_in_background for servers]",
 *   isError: true,
 * });
 * ```
 */
export function renderRunResult(result: BashRunResult, options: RenderRunOptions = {}): ToolResult {
  const lines = [
    ...outputLines(
      {
        stdout: result.stdout.binary === undefined ? result.stdout.text : "",
        stdoutMarkers: streamMarkers(result.stdout, "stdout"),
        stderr: result.stderr.binary === undefined ? result.stderr.text : "",
        stderrMarkers: streamMarkers(result.stderr, "stderr"),
      },
      "(no output)",
      options.secrets ?? scrubbedSecrets(),
    ),
    ...sandboxLines(result.sandbox, options.escalationModes ?? []),
  ];
  if (result.timedOut) lines.push(`[timed out after ${result.timeoutMs} ms]`);
  if (result.idledOut) lines.push("[stopped: no output for too long (idle timeout)]");
  if (result.aborted) {
    lines.push("[aborted: the tool call was cancelled before the command finished]");
  }
  if (result.disposed) lines.push(DISPOSED_MARKER);
  if (result.limitHit) lines.push(limitLine(result.limitHit));
  if (result.signal !== null) lines.push(`[killed by signal: ${result.signal}]`);
  else if (result.exitCode !== null) lines.push(`[exit code: ${result.exitCode}]`);
  if (result.connectionLost) lines.push(CONNECTION_LOST_MARKER);
  if (result.strays.killed > 0) {
    const advice = options.runInBackground === false ? "" : "; use run_in_background for servers";
    lines.push(
      `[stopped ${result.strays.killed} background process(es) left running by the command${advice}]`,
    );
  }
  lines.push(...strayTroubleLines(result.strays));
  const clean = result.exitCode === 0 && !result.timedOut && !result.idledOut &&
    !result.aborted && !result.disposed && !result.limitHit && !result.connectionLost &&
    !result.sandbox?.denied &&
    !result.sandbox?.runnerFailed && (result.sandbox?.violations ?? []).length === 0;
  return { text: lines.join("\n"), isError: !clean };
}
