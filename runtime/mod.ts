/**
 * The only runtime-specific code, and the surface the folders above it
 * (`engine/`, `local/`, `sandbox/`, `remote/`, `git/`) import: the one place
 * that picks the runtime (Deno when `globalThis.Deno` exists, Node
 * otherwise), and the sockets the sandbox's network proxy uses, which one
 * implementation serves on both. Everything else in shellseam spawns, lists
 * folders and signals through {@linkcode runtime}. Not an entry point of the
 * package: `@shellseam/bash/local` re-exports {@linkcode runtime} and its types.
 *
 * @example
 * ```ts
 * import { runtime } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * assert.equal(runtime.name, globalThis.Deno ? "deno" : "node");
 * ```
 *
 * @module
 */
import type { Runtime } from "./_types.ts";
export {
  type FileState,
  fileState,
  type FolderState,
  folderState,
  type PathState,
  pathState,
} from "./_folder_state.ts";
export {
  connectTcp,
  type ListenHandlers,
  listenLoopback,
  listenUnix,
  type LoopbackListener,
  type NetListener,
  type NetSocket,
  resolveHost,
  splice,
} from "./_net.ts";
import { denoRuntime } from "./deno.ts";
import { nodeRuntime } from "./node.ts";
import { hostPlatform, type PlatformFacts } from "./_platform.ts";
export { hostPlatform, type PlatformFacts, platformFacts, type PsFlavour } from "./_platform.ts";

export type {
  DirectoryEntry,
  ExitStatus,
  Runtime,
  SessionStrategy,
  SpawnedChild,
  SpawnRequest,
} from "./_types.ts";

// Both are imported statically (neither touches its runtime's API at load)
// and chosen synchronously: a top-level `await` would stop Node's
// `require()` of the package (require(esm) refuses an async module graph).
/**
 * The runtime this process runs on, selected once at load (synchronously).
 *
 * @example
 * ```ts
 * import { runtime } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof runtime.spawn, "function");
 * ```
 */
export const runtime: Runtime = "Deno" in globalThis ? denoRuntime : nodeRuntime;

/**
 * The platform facts of `chosen` (a runtime a test injected may say "macOS"
 * on Linux), else of this process.
 */
export function platformOf(chosen: Runtime): PlatformFacts {
  return chosen.platform ?? hostPlatform;
}
