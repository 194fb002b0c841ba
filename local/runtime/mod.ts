/**
 * The one place that picks the runtime: Deno when `globalThis.Deno` exists,
 * Node otherwise. Everything else in shellseam goes through {@linkcode runtime}.
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

export type {
  DirectoryEntry,
  ExitStatus,
  Runtime,
  SessionStrategy,
  SpawnedChild,
  SpawnRequest,
} from "./_types.ts";

async function select(): Promise<Runtime> {
  if ("Deno" in globalThis) return (await import("./deno.ts")).denoRuntime;
  return (await import("./node.ts")).nodeRuntime;
}

/**
 * The runtime this process runs on, selected once at load.
 *
 * @example
 * ```ts
 * import { runtime } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof runtime.spawn, "function");
 * ```
 */
export const runtime: Runtime = await select();
