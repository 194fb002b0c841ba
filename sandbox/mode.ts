import type { SandboxMode } from "../seam/mod.ts";
import { isSandboxMode } from "../seam/sandbox.ts";

// The mode vocabulary lives on the seam; it stays exported here, where it always was.
export { isSandboxMode, SANDBOX_MODES } from "../seam/sandbox.ts";

/**
 * The session event that switches the sandbox mode for the rest of a session.
 * The session's event log is the store: replaying it restores the override.
 *
 * @example
 * ```ts
 * import type { SandboxModeEvent } from "@shellseam/bash/sandbox";
 * import { sandboxModeEvent } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const event: SandboxModeEvent = { type: "sandbox/mode", mode: "workspace-write" };
 * assert.deepEqual(sandboxModeEvent("workspace-write"), event);
 * ```
 */
export interface SandboxModeEvent {
  /** Always `"sandbox/mode"`. */
  type: "sandbox/mode";
  /** The mode from now on. */
  mode: SandboxMode;
}

/**
 * Builds the event that switches a session to `mode`; append it to the
 * session's event log.
 *
 * @example
 * ```ts
 * import { sandboxModeEvent } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(sandboxModeEvent("read-only"), { type: "sandbox/mode", mode: "read-only" });
 * ```
 */
export function sandboxModeEvent(mode: SandboxMode): SandboxModeEvent {
  return { type: "sandbox/mode", mode };
}

/**
 * Folds a session's event log into its sandbox mode override: the last
 * `sandbox/mode` event wins; `undefined` means "use the executor's default".
 * Other events (any object with a `type`) are ignored, and so is a
 * `sandbox/mode` event whose mode is not a known mode.
 *
 * @example
 * ```ts
 * import { effectiveSandboxMode, sandboxModeEvent } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const events = [
 *   { type: "user/message", text: "hi" },
 *   sandboxModeEvent("workspace-write"),
 *   sandboxModeEvent("read-only"),
 * ];
 * assert.equal(effectiveSandboxMode(events), "read-only");
 * assert.equal(effectiveSandboxMode([]), undefined);
 * ```
 */
export function effectiveSandboxMode(
  events: Iterable<{ readonly type: string }>,
): SandboxMode | undefined {
  let mode: SandboxMode | undefined;
  for (const event of events) {
    if (event.type !== "sandbox/mode") continue;
    const candidate = (event as { mode?: unknown }).mode;
    if (isSandboxMode(candidate)) mode = candidate;
  }
  return mode;
}
