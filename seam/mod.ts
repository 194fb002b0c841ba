/**
 * The bash seam: the abstract {@linkcode BashExecutor}, the vocabulary every
 * backend and consumer shares, the managed-env namespace and the error types.
 *
 * @example
 * ```ts
 * import { BashExecutor, MANAGED_ENV_PREFIX } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof BashExecutor, "function");
 * assert.equal(MANAGED_ENV_PREFIX, "SHELLSEAM_");
 * ```
 *
 * @module
 */
export { BashExecutor, type BashExecutorLimits } from "./executor.ts";
export type { BashExecRequest, BashExecSpec } from "./request.ts";
export type { BashRunResult, BinaryStream, CollectedOutput, StrayReport } from "./result.ts";
export type { BashProcess, BashProcessRead, BashProcessStatus, BashStreamRead } from "./process.ts";
export type {
  BashLiveOutputChunk,
  BashOutputChunk,
  BashOutputEvent,
  BashOutputGap,
  BashOutputStream,
} from "./output.ts";
export type {
  AppliedResourceLimits,
  ResourceLimitHit,
  ResourceLimitMechanism,
  ResourceLimitName,
  ResourceLimits,
} from "./limits.ts";
export {
  type BashSandboxInfo,
  isSandboxMode,
  SANDBOX_MODES,
  type SandboxEnforcement,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxNetworkAllowList,
  type SandboxPolicy,
  type SandboxViolation,
  widerSandboxModes,
} from "./sandbox.ts";
export {
  MANAGED_ENV_PREFIX,
  type ManagedEnv,
  type ManagedEnvKey,
  type ScrubbedEnv,
  scrubbedParentEnv,
} from "./env.ts";
export { shellQuote } from "./shell_quote.ts";
export { type BashTerminalSize, MAX_TERMINAL_CELLS } from "./terminal.ts";
export {
  BashConfigError,
  BashError,
  type BashErrorCode,
  BashSpawnError,
  SandboxUnavailableError,
} from "./errors.ts";
