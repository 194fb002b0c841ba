/**
 * The sandboxing executor: every command confined by a {@linkcode SandboxPolicy}
 * (bubblewrap, or a Landlock launcher run by Deno), failing closed when no
 * backend works; what it keeps from commands by default ({@linkcode DEFAULT_DENY_READ});
 * the sandbox mode vocabulary and the session mode fold; and
 * {@linkcode shellseamDoctor}, which says what works on this machine.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { effectiveSandboxMode, sandboxModeEvent, SandboxBashExecutor } from "@shellseam/bash/sandbox";
 * import { tmpdir } from "node:os";
 * import assert from "node:assert/strict";
 *
 * const override = effectiveSandboxMode([sandboxModeEvent("workspace-write")]);
 * await using executor = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
 * const spec = executor.resolve({ command: "ls" });
 * assert.equal(spec.sandboxPolicy?.mode, "read-only");
 * assert.equal(override, "workspace-write");
 * ```
 *
 * @module
 */
export type {
  SandboxMode,
  SandboxNetwork,
  SandboxNetworkAllowList,
  SandboxPolicy,
} from "../seam/mod.ts";
export {
  effectiveSandboxMode,
  isSandboxMode,
  SANDBOX_MODES,
  type SandboxModeEvent,
  sandboxModeEvent,
} from "./mode.ts";
export { canonicalWorkspaceRoot, DEFAULT_PROTECTED_PATHS, resolveSandboxPolicy } from "./policy.ts";
export { DEFAULT_DENY_READ } from "./secrets.ts";
export type { ProxyState } from "./network/mod.ts";
export {
  SANDBOX_BACKENDS,
  type SandboxBackendName,
  type SandboxBackendStatus,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
} from "./executor.ts";
export {
  formatDoctorReport,
  type NetworkProxyReport,
  shellseamDoctor,
  type ShellseamDoctorOptions,
  type ShellseamDoctorReport,
  type SpillLocation,
} from "./doctor.ts";
