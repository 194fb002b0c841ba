/**
 * The exec(2) step of a launch: how a command becomes bash arguments, the
 * kernel's size limits on arguments and environment, and what a failed spawn
 * says.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { BashConfigError, BashError, BashSpawnError } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import { BASH_FLAGS } from "./_env.ts";
import type { Launch } from "./_launch.ts";
import { runtime } from "../runtime/mod.ts";

/**
 * The kernel's limit on one argument or one `NAME=value` environment string,
 * terminating NUL included, with the smallest page size Linux has (its
 * MAX_ARG_STRLEN is 32 pages: 128 KiB with 4 KiB pages). A command longer
 * than this is split into pieces, which fits every page size.
 */
export const MAX_ARG_BYTES: number = 128 * 1024;

/** The smallest page size of Linux, assumed when the real one cannot be read. */
const SMALLEST_PAGE = 4096;

/**
 * The page size of this machine from a `/proc/<pid>/smaps` text: the
 * smallest `KernelPageSize` of its mappings (a huge-page mapping has a larger
 * one), or null when it names none.
 */
export function pageSizeFromSmaps(smaps: string): number | null {
  let smallest: number | null = null;
  for (const match of smaps.matchAll(/^KernelPageSize:\s+(\d+) kB$/gm)) {
    const bytes = Number(match[1]) * 1024;
    if (bytes > 0 && (smallest === null || bytes < smallest)) smallest = bytes;
  }
  return smallest;
}

let pageSize: { bytes: number; unknown?: string } | undefined;

/**
 * The page size, read once from `/proc/self/smaps`, or the smallest Linux has
 * (4 KiB) with the reason it could not be read (Deno refuses `/proc` without
 * `--allow-all`). Read only when an environment string is over 128 KiB.
 */
function machinePageSize(): { bytes: number; unknown?: string } {
  if (pageSize !== undefined) return pageSize;
  try {
    const bytes = pageSizeFromSmaps(readFileSync("/proc/self/smaps", "latin1"));
    pageSize = bytes === null
      ? { bytes: SMALLEST_PAGE, unknown: "/proc/self/smaps names none" }
      : { bytes };
  } catch (error) {
    pageSize = { bytes: SMALLEST_PAGE, unknown: messageOf(error) };
  }
  return pageSize;
}

/**
 * UTF-16 code units per piece of a long command: at most 3 UTF-8 bytes each
 * (a surrogate pair is 2 units for 4 bytes), so a piece stays well under
 * {@linkcode MAX_ARG_BYTES}.
 */
const PIECE_UNITS = 32 * 1024;

/**
 * Joins the pieces (`$1`, `$2`, ...) into one variable without touching
 * trailing newlines (`printf -v`, not `$(...)`), clears the positional
 * parameters, and evals the command, which unsets the variable first. `$0`
 * stays what it is under `-c`; LINENO counts from 1 as under `-c`.
 */
export const JOIN_AND_EVAL: string = 'printf -v __shellseam_command %s "$@"; set --; ' +
  'eval "unset -v __shellseam_command; $__shellseam_command"';

/**
 * The arguments that run `command` in bash: `--norc --noprofile -c <command>`,
 * or, for a command too long for one argument (a large heredoc), the command
 * in pieces after a short script that joins and evals them.
 */
export function bashArgs(program: string, command: string): string[] {
  if (utf8Length(command) + 1 <= MAX_ARG_BYTES) return [...BASH_FLAGS, "-c", command];
  const pieces: string[] = [];
  for (let start = 0; start < command.length;) {
    let end = Math.min(start + PIECE_UNITS, command.length);
    // Never split a surrogate pair.
    const last = command.charCodeAt(end - 1);
    if (end < command.length && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(command.slice(start, end));
    start = end;
  }
  return [...BASH_FLAGS, "-c", JOIN_AND_EVAL, program, ...pieces];
}

const encoder = new TextEncoder();

/** Bytes of `text` in UTF-8 (counted only when it could matter: 3 bytes a code unit at most). */
function utf8Length(text: string): number {
  return text.length * 3 < MAX_ARG_BYTES ? text.length : encoder.encode(text).length;
}

/**
 * Throws `BashConfigError` for an environment string the kernel refuses
 * (`NAME=value` over 32 pages, the kernel's MAX_ARG_STRLEN), naming the field,
 * the variable and the limit. The page size is read only for a string over
 * 128 KiB (32 pages of the smallest size); `page` replaces the machine's.
 */
export function checkEnvSizes(
  field: string,
  env: Record<string, string> | undefined,
  page?: { bytes: number; unknown?: string },
): void {
  for (const [name, value] of Object.entries(env ?? {})) {
    const bytes = utf8Length(`${name}=${value}`) + 1;
    if (bytes <= MAX_ARG_BYTES) continue;
    const { bytes: pageBytes, unknown } = page ?? machinePageSize();
    const limit = 32 * pageBytes;
    if (bytes > limit) {
      throw new BashConfigError(
        `"${field}" value of "${name}" is ${bytes} bytes, over the kernel's limit of ${limit} bytes for one environment variable${
          unknown === undefined
            ? ""
            : ` (32 pages, assuming 4 KiB pages: the page size could not be read: ${unknown})`
        }; pass large data through "stdin" or a file instead`,
      );
    }
  }
}

/** The error code of a failed spawn, on either runtime (Deno names some only in the message). */
function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  const message = error instanceof Error ? error.message : "";
  if (/argument list too long/i.test(message)) return "E2BIG";
  if (/too many open files/i.test(message)) return "EMFILE";
  if (/resource temporarily unavailable/i.test(message)) return "EAGAIN";
  return undefined;
}

/**
 * The error for a spawn that failed: what the kernel refused, in words, and
 * what to do. E2BIG (the arguments and environment together are too large)
 * is a `BashConfigError` naming their sizes; EMFILE/ENFILE say that this
 * process ran out of file descriptors, EAGAIN that the user ran out of
 * processes; anything else is a `BashSpawnError`.
 */
export function spawnFailure(cause: unknown, launch: Launch): BashError {
  const code = errnoOf(cause);
  if (code === "E2BIG") {
    const argBytes = launch.args.reduce((sum, arg) => sum + utf8Length(arg) + 1, 0);
    const envBytes = Object.entries(launch.env).reduce(
      (sum, [name, value]) => sum + utf8Length(`${name}=${value}`) + 1,
      0,
    );
    return new BashConfigError(
      `The command (${argBytes} bytes of arguments) and its environment (${envBytes} bytes in ${
        Object.keys(launch.env).length
      } variables) are too large together for the kernel to start a program (E2BIG; the limit is a quarter of the stack size limit, usually 2 MiB); shorten "command" or "env", or pass large data through "stdin" or a file`,
      { cause },
    );
  }
  const exhausted = outOf(`Could not start "${launch.program}"`, code, cause);
  if (exhausted !== undefined) return exhausted;
  return new BashSpawnError(
    `Could not start "${launch.program}" in "${launch.cwd}": ${messageOf(cause)}; ${
      runtime.deniedPermission(cause)
        ? `grant that permission (the README's "Deno permissions" lists them)`
        : "check that the program and the directory exist"
    }`,
    { cause },
  );
}

/** What an error for file descriptors that ran out advises. */
const DESCRIPTOR_ADVICE =
  "close descriptors this process no longer needs (finished background processes, files, sockets), or raise the limit (ulimit -n)";

/** What an error for processes that ran out advises. */
const PROCESS_ADVICE =
  "end processes this user no longer needs (finished background processes), or raise the limit";

/** The errors {@linkcode outOf} made: they say what ran out already. */
const ranOut = new WeakSet<BashSpawnError>();

/**
 * The error for `what` failing because file descriptors (`code` EMFILE or
 * ENFILE) or processes (EAGAIN) ran out, else undefined.
 */
function outOf(what: string, code: string | undefined, cause: unknown): BashSpawnError | undefined {
  const made = code === "EMFILE" || code === "ENFILE"
    ? new BashSpawnError(
      `${what}: too many open files (${code}): ${
        code === "EMFILE" ? "this process" : "the system"
      } has run out of file descriptors; ${DESCRIPTOR_ADVICE}`,
      { cause },
    )
    : code === "EAGAIN"
    ? new BashSpawnError(
      `${what}: the kernel refused a new process (EAGAIN): this user has as many processes as its limit allows (ulimit -u, counting every thread), or the system has run out of them; ${PROCESS_ADVICE}`,
      { cause },
    )
    : undefined;
  if (made !== undefined) ranOut.add(made);
  return made;
}

/**
 * `error` as a call that failed before its command ran rejects with it:
 * when it, or the cause of a `BashSpawnError`, is this process or the
 * system out of file descriptors, or a spawn refused for want of processes
 * (the watchdog's, a process started ahead), a `BashSpawnError` that says so and what to
 * do. Preparing a launch opens files too (the sandbox lists folders and
 * writes its options, a cgroup's limits are written), and there a bare
 * EMFILE, or advice about the watchdog or the cgroup, says neither.
 */
export function launchFailure(error: unknown): unknown {
  if (error instanceof BashError && !(error instanceof BashSpawnError)) return error;
  if (error instanceof BashSpawnError && ranOut.has(error)) return error;
  const cause = error instanceof BashSpawnError ? error.cause : error;
  const code = errnoOf(cause);
  // EAGAIN is a refused process only from a spawn: elsewhere it means "try again".
  const refused = code !== "EAGAIN" || /spawn/i.test(messageOf(cause));
  return (refused ? outOf("Could not prepare the command", code, error) : undefined) ?? error;
}
