/**
 * What the model reads: a foreground run's result (`_run.ts`), a background
 * task's output and status (`_task_output.ts`, `_task_status.ts`), the
 * marker lines they share (`_markers.ts`), and a running command's output as
 * live updates (`_live_updates.ts`); each with terminal controls removed
 * (`_terminal.ts`) and the values of scrubbed credentials redacted
 * (`_redact.ts`).
 *
 * @example
 * ```ts
 * import { renderTaskList, stripTerminalControls } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(renderTaskList([]), "(no background tasks)");
 * assert.equal(stripTerminalControls("\x1b[1mbold\x1b[0m"), "bold");
 * ```
 *
 * @module
 */
export { LiveUpdates } from "./_live_updates.ts";
export { MIN_REDACTED_LENGTH, redactSecrets, scrubbedSecrets } from "./_redact.ts";
export { type RenderRunOptions, renderRunResult, truncationMarkers } from "./_run.ts";
export {
  type BashTaskOutput,
  renderTaskOutput,
  type RenderTaskOutputOptions,
} from "./_task_output.ts";
export {
  renderBackgroundStart,
  renderTaskKill,
  renderTaskList,
  renderTaskNotice,
  renderTaskStatus,
} from "./_task_status.ts";
export { stripTerminalControls } from "./_terminal.ts";
