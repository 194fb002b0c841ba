/**
 * The Landlock backend: a launcher written in TypeScript, run by Deno with
 * FFI alone, that restricts itself with Landlock (and, as root or in a user
 * namespace of its own, a read-only mount view) and then `execve`s the
 * command, so the whole child tree inherits the restriction.
 *
 * - `_landlock.ts`: the backend (how a launch is wrapped, probed, and what
 *   it enforces and denied).
 * - `_launcher.ts`: the launcher itself, a numbered sequence of steps;
 *   `_launcher_protocol.ts`: what it is told and how it answers;
 *   `_launcher_file.ts`: the file in the executor's private launcher folder
 *   that `deno run` is given.
 * - `_deno.ts`: where the `deno` that runs the launcher is found.
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public.
 *
 * @module
 */
export { findDeno } from "./_deno.ts";
export { createLandlockBackend, USER_NAMESPACE_ARGS } from "./_landlock.ts";
export { landlockLauncherFile } from "./_launcher_file.ts";
export { LANDLOCK_KIND } from "./_kind.ts";
