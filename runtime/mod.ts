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
  connectTcp,
  listenUnix,
  type NetListener,
  type NetSocket,
  resolveHost,
  splice,
} from "./_net.ts";
import { denoRuntime } from "./deno.ts";
import { nodeRuntime } from "./node.ts";

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
