/**
 * The pieces of shell that every backend's runners share, the shells that
 * run before a command (bwrap's wrapper and standby, Seatbelt's shell
 * before `sandbox-exec`, the network bridge): how they close what they
 * inherited, hand the command their stdin or /dev/null, say that it
 * starts, and exec what follows; each names its
 * own failures by a prefix of its own and {@linkcode RUNNER_FAILURE_EXIT}.
 * They use nothing bash 3.2 (macOS's `/bin/bash`) lacks.
 *
 * @module
 */

import { LAUNCH_STARTED } from "../../engine/mod.ts";

/** The exit code of a runner's shell when it failed itself, not the command. */
export const RUNNER_FAILURE_EXIT = 125;

/**
 * Closes every descriptor above 2 that the shell inherited, as `fdDir`
 * lists them (`/proc/$$/fd` on Linux; `/dev/fd` on macOS, which has no
 * `/proc`): one the runtime left without close-on-exec would reach into the
 * sandbox. A name that is not a number (a glob that matched nothing) is skipped.
 */
export function closeInherited(fdDir: "/proc/$$/fd" | "/dev/fd"): string {
  return `for fd in ${fdDir}/*; do fd=\${fd##*/}; case $fd in ""|*[!0-9]*) continue;; esac; ` +
    '[ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; ';
}

/** Gives what runs next /dev/null as its stdin unless `$k` is `1` (it then keeps the rest). */
export const STDIN_UNLESS_KEPT = '[ "$k" = 1 ] || exec 0</dev/null; ';

/**
 * Writes `LAUNCH_STARTED` to stdout: the runner's setup is done and the
 * command starts (see `LaunchPlan.announcesStart`).
 */
export const PRINT_START: string = `printf '\\${LAUNCH_STARTED.toString(8).padStart(3, "0")}'; `;

/** Execs `"$@"`; a program that cannot be run (gone since the probe) is `runner`'s failure. */
export function execOrFail(runner: string): string {
  return `shopt -s execfail; exec "$@"; echo "${runner}: cannot run $1" >&2; ` +
    `exit ${RUNNER_FAILURE_EXIT}`;
}
