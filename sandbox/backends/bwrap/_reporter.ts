/**
 * The namespace's reporter: the first process of a bwrap launch inside the
 * sandbox, which counts what the pid namespace still holds when the command's
 * shell ends, and what the host reads of its count.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Launch } from "../../../engine/mod.ts";
import { APPLY_LIMITS, BASH_FLAGS, WATCHDOG_VARIABLE } from "../../../engine/mod.ts";
import { PRINT_START } from "../mod.ts";

/** The descriptor on which the namespace's reporter writes its count. */
const STRAY_REPORT_FD = 9;

/** The reporter's `$0`. */
export const REPORTER_NAME = "shellseam-strays";

/** The kernel's PF_EXITING task flag: set when do_exit() starts (see `liveSession`). */
const PF_EXITING = 0x4;

/**
 * The reporter's count, a bash function `live` that reads the /proc given
 * as its `$1` (the namespace's own, or a fake one in a test), pid 1 and the
 * shell itself left out. It sets `n` to the processes with a thread that is
 * not a zombie (what is left to kill), and `m` to those with a thread that
 * is neither a zombie nor inside exit() (its PF_EXITING flag, which the
 * host's census reads too, see `liveSession`): one on its way out when the
 * command's shell ended (a process substitution's, say) was stopped by no one.
 */
export const COUNT_LIVE: string =
  'live() { n=0; m=0; for d in "$1"/[1-9]*; do [ "${d##*/}" = 1 ] || [ "${d##*/}" = $$ ] && continue; ' +
  'a=0; for f in "$d/stat" "$d"/task/*/stat; do l=; { read -r l < "$f"; } 2>/dev/null; ' +
  'set -f; set -- ${l##*) }; set +f; case $1 in ""|Z|X|x) ;; *) a=1; ' +
  `[ $(( \${7:-0} & ${PF_EXITING} )) = 0 ] && { m=$((m + 1)); break; } ;; esac; done; n=$((n + a)); done; }; `;

/**
 * The first process of a bwrap launch inside the sandbox (after the
 * seccomp filter, the namespaces and the capability drop): the pid
 * namespace's pid 1 (bwrap's `--as-pid-1`, see `bwrapArgs`), whose exit
 * ends the namespace. The namespace kills every process left in it the
 * moment its pid 1 exits, before the host can look, so this small bash
 * counts them from inside. As pid 1 it reaps what the command orphaned, and
 * no signal sent from inside the sandbox reaches it but those it traps. In
 * order:
 * 0. It writes `LAUNCH_STARTED` to stdout: bwrap's setup is done, and the
 *    command starts now (a launch that ended before it never ran the command).
 * 1. It runs the launch (`"$@"`) as its child in the foreground, with the
 *    report descriptor closed for it, and waits for it; TERM, INT and HUP
 *    only wait with it (a trap is reset in the child, an ignored signal would not be).
 * 2. It counts the live processes of the namespace but itself and pid 1 (see
 *    `COUNT_LIVE`): a process whose leader is a zombie counts when one of
 *    its threads is live; one already inside exit() does not.
 * 3. It SIGKILLs them (`kill -9 -1`) and counts again, until none is live
 *    but as a zombie (at most 200 rounds): a process killed inside a system call finishes
 *    that call first, and one that was reopening the report through
 *    `/proc/PID/fd` would otherwise truncate or forge the count after it.
 * 4. It writes the first count on its own line to the report descriptor;
 *    a write that fails (the private folder's file system is full) says
 *    nothing on stderr, which is the command's, and the host finds no count.
 * 5. It exits with the launch's status: bwrap turns a death by signal into
 *    128 + its number anyway, so the result is what it was without it.
 * It runs with `-p`: no `BASH_ENV`, no function from the environment (one
 * named `read` or `kill` would run in its place), and the launch gets the
 * environment bwrap set (its `SHLVL` one lower first, as the launch would
 * otherwise count this shell).
 */
export const NAMESPACE_REPORTER: string = PRINT_START +
  "trap : TERM INT HUP; SHLVL=$((SHLVL - 1)); " +
  `"$@" ${STRAY_REPORT_FD}>&-; s=$?; ${COUNT_LIVE}` +
  'live /proc; c=$m; i=0; while kill -9 -1 2>/dev/null; live /proc; [ "$n" -gt 0 ] && [ $i -lt 200 ]; do i=$((i + 1)); done; ' +
  `printf '\\n%s\\n' "$c" >&${STRAY_REPORT_FD} 2>/dev/null; exit "$s"`;

/**
 * The variable in which a standby's bwrap options hand the reporter the
 * command (see `STANDBY_REPORTER`); it never reaches the command.
 */
export const STANDBY_COMMAND_VARIABLE = "SHELLSEAM_STANDBY_COMMAND";

/**
 * The variable in which a standby's bwrap options hand the reporter the
 * command's rlimits, as `limitArgs` gives them (see `STANDBY_REPORTER`); it
 * never reaches the command.
 */
export const STANDBY_LIMITS_VARIABLE = "SHELLSEAM_STANDBY_LIMITS";

/**
 * The namespace's reporter of a standby (see `bwrap/_standby.ts`), which was
 * started before its command was known: bwrap's options (the call's input)
 * set the command and its rlimits in `STANDBY_COMMAND_VARIABLE` and
 * `STANDBY_LIMITS_VARIABLE`. It appends `-c <command>` to its launch (`"$@"`,
 * a bash), unsets both variables, applies the rlimits (`APPLY_LIMITS`, as the
 * wrapper does outside; without any, none), then is `NAMESPACE_REPORTER`.
 */
export const STANDBY_REPORTER: string = `set -f; set -- \${${STANDBY_LIMITS_VARIABLE}:---} ` +
  `"$@" -c "$${STANDBY_COMMAND_VARIABLE}"; set +f; ` +
  `unset ${STANDBY_COMMAND_VARIABLE} ${STANDBY_LIMITS_VARIABLE}; ${APPLY_LIMITS}` +
  NAMESPACE_REPORTER;

/**
 * The namespace's reporter of a standby set up ahead (see `bwrap/_standby.ts`):
 * bwrap made the call's setup before the call came, the environment and the
 * working folder among it, and this waits in it for what differs from call
 * to call, each NUL-terminated, on its stdin: the command's rlimits (as
 * `limitArgs` gives them), its marker (`WATCHDOG_VARIABLE`, set when not
 * empty) and the command. `read -d ''` reads a pipe a byte at a time, never
 * past the message. It then gives stdin up for /dev/null, appends
 * `-c <command>` to its launch (`"$@"`, a bash), applies the rlimits
 * (`APPLY_LIMITS`) and is `NAMESPACE_REPORTER`. A stdin that ends before
 * the message ends it, and nothing ran.
 */
export const SET_UP_REPORTER: string = "IFS= read -r -d '' l && IFS= read -r -d '' w && " +
  "IFS= read -r -d '' c || exit 1; exec 0</dev/null; " +
  `[ -z "$w" ] || export ${WATCHDOG_VARIABLE}="$w"; ` +
  'set -f; set -- $l "$@" -c "$c"; set +f; unset l w c; ' + APPLY_LIMITS + NAMESPACE_REPORTER;

/** The name of a standby's report file before its pid (see `standbyStrayReport`). */
export const STANDBY_REPORT_PREFIX = "strays-standby-";

/** Where the standby with pid `pid` opens its report file, in the private folder `dir`. */
export function standbyStrayReport(dir: string, pid: number): string {
  return join(dir, `${STANDBY_REPORT_PREFIX}${pid}`);
}

/** `launch` run by the namespace's reporter (see `NAMESPACE_REPORTER`). */
export function reported(launch: Launch): Launch {
  return {
    ...launch,
    args: [
      ...BASH_FLAGS,
      "-p",
      "-c",
      NAMESPACE_REPORTER,
      REPORTER_NAME,
      launch.program,
      ...launch.args,
    ],
  };
}

/**
 * What the namespace's reporter wrote in the file at `path`: the count of
 * processes the pid namespace ended, or undefined when it wrote none (it
 * was killed, or the file could not be opened or read), which the result
 * reports as an unknown count, never as none. Only the last line counts,
 * read from the file's last bytes. The file is removed, read or not.
 */
export function readStrayReport(path: string): number | undefined {
  let text = "";
  try {
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      const bytes = new Uint8Array(Math.min(size, 32));
      readSync(fd, bytes, 0, bytes.length, size - bytes.length);
      text = new TextDecoder().decode(bytes);
    } finally {
      closeSync(fd);
    }
  } catch {
    // No file (the wrapper never opened it) or none to read: no report.
  } finally {
    // Recursive: whatever took the name is gone too (the path is the executor's own).
    rmSync(path, { force: true, recursive: true });
  }
  const count = /\n(\d{1,9})\n$/.exec(text)?.[1];
  return count === undefined ? undefined : Number(count);
}

/**
 * Opens the file named by `$1` (when not empty) for appending on the report
 * descriptor; one that cannot be opened means no report, which the host reads as unknown.
 */
export const OPEN_REPORT: string =
  `if [ -n "$1" ]; then { exec ${STRAY_REPORT_FD}>>"$1"; } 2>/dev/null; fi; `;
