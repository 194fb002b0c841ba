/**
 * The local executor: runs bash commands on this machine through the
 * `BashExecutor` seam, in the foreground (`run`) or in the
 * background (`start`).
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * const result = await executor.run({ command: "printf %s ok" });
 * assert.equal(result.stdout.text, "ok");
 * ```
 *
 * @module
 */
export {
  EngineBashExecutor,
  ENV_OVERRIDES,
  type HostSignal,
  type LocalBashExecutorConfig,
  type ResolvedLocalBashExecutorConfig,
} from "../engine/mod.ts";
export { LocalBashExecutor } from "./executor.ts";
export { platformFacts, runtime } from "../runtime/mod.ts";
export type {
  DirectoryEntry,
  ExitStatus,
  PlatformFacts,
  PsFlavour,
  Runtime,
  SessionStrategy,
  SpawnedChild,
  SpawnRequest,
} from "../runtime/mod.ts";
