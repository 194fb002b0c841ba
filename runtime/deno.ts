/**
 * The Deno runtime: `Deno.Command(...).spawn()` and `Deno.kill`.
 *
 * @example
 * ```ts
 * import { runtime } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * if (globalThis.Deno) assert.equal(runtime.name, "deno");
 * ```
 *
 * @module
 */
import type { DirectoryEntry, ExitStatus, Runtime, SpawnedChild, SpawnRequest } from "./_types.ts";

function spawn(request: SpawnRequest): Promise<SpawnedChild> {
  try {
    const child = new Deno.Command(request.program, {
      args: request.args,
      cwd: request.cwd,
      env: request.env,
      clearEnv: true,
      stdin: request.stdin,
      stdout: "piped",
      stderr: "piped",
      detached: request.session === "detached",
    }).spawn();
    const exited: Promise<ExitStatus> = child.status.then((status) => ({
      code: status.signal === null ? status.code : null,
      signal: status.signal,
    }));
    return Promise.resolve({
      pid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      stdin: request.stdin === "piped" ? child.stdin : null,
      exited,
      unref: () => child.unref(),
      ref: () => child.ref(),
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

function kill(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): boolean {
  try {
    // Deno's types omit signal 0, which only probes for existence.
    Deno.kill(pid, signal as Deno.Signal);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function deniedPermission(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable;
}

function readDirectory(path: string): DirectoryEntry[] {
  return [...Deno.readDirSync(path)].map(({ name, isDirectory }) => ({ name, isDirectory }));
}

function mayRun(program: string): boolean {
  return Deno.permissions.querySync({ name: "run", command: program }).state === "granted";
}

const PERMISSION_NAMES = ["read", "write", "net", "env", "sys", "run", "ffi", "import"] as const;

function permissions(): Record<string, "granted" | "prompt" | "denied"> {
  return Object.fromEntries(
    PERMISSION_NAMES.map((name) => [name, Deno.permissions.querySync({ name }).state]),
  );
}

function mayWrite(path: string): boolean {
  return Deno.permissions.querySync({ name: "write", path }).state === "granted";
}

/**
 * The runtime operations implemented with Deno APIs.
 *
 * @example
 * ```ts
 * import { runtime } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * assert.equal(runtime.kill(2 ** 22 + 12345, 0), false);
 * ```
 */
export const denoRuntime: Runtime = Object.freeze({
  name: "deno",
  // Without `detached` Deno spawns by posix_spawn (no fork, whatever the heap).
  autoSession: "setsid-binary",
  spawn,
  kill,
  deniedPermission,
  readDirectory,
  mayWrite,
  mayRun,
  permissions,
});
