/**
 * The Landlock backend: a launcher that restricts itself with Landlock
 * (and, as root or in a user namespace of its own, a read-only mount view)
 * and then `execve`s the command, so the whole child tree inherits the
 * restriction. It is written twice, step for step: in Perl, run by a perl
 * that passes its self-check (a fraction of Deno's start-up), else in
 * TypeScript, run by Deno with FFI alone.
 *
 * - `_kind.ts`: how the backend is found (which runtime runs the launcher).
 * - `_landlock.ts`: the backend (how a launch is wrapped, probed, and what
 *   it enforces and denied).
 * - `_launcher.ts`: the Deno launcher, a numbered sequence of steps;
 *   `_launcher_file.ts`: the file in the executor's private launcher folder
 *   that `deno run` is given.
 * - `_perl_launcher.ts`: the Perl launcher, the same steps;
 *   `_launcher_record.ts`: the form it reads its input in (no JSON in perl-base).
 * - `_launcher_protocol.ts`: what a launcher is told and how it answers.
 * - `_deno.ts`: where the `deno` that runs the Deno launcher is found.
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public.
 *
 * @module
 */
export { findDeno } from "./_deno.ts";
export { createLandlockBackend, USER_NAMESPACE_ARGS } from "./_landlock.ts";
export { landlockLauncherFile } from "./_launcher_file.ts";
export { LANDLOCK_KIND } from "./_kind.ts";
