/**
 * The pieces of shell that the wrapper (`_wrapper.ts`) and the standby
 * (`_standby.ts`) share besides every backend's (`../_shell.ts`): how they
 * name their own failure, and how they read the mask groups from their
 * stdin and keep those whose path is still there.
 *
 * @module
 */

import { joinedBytes } from "../../../engine/mod.ts";
import { closeInherited, RUNNER_FAILURE_EXIT } from "../mod.ts";

/** The exit code of the wrapper shell (or the standby) when it failed itself. */
export const WRAPPER_FAILURE_EXIT: number = RUNNER_FAILURE_EXIT;
/** The prefix of the wrapper's (or the standby's) own failure lines, and its `$0`. */
export const WRAPPER_NAME = "shellseam-bwrap";

/** Closes every descriptor above 2 that the shell inherited (see `closeInherited`). */
export const CLOSE_INHERITED: string = closeInherited("/proc/$$/fd");

/**
 * Opens the seccomp filter `$1` as fd 3, for bwrap's `--seccomp 3`: a path
 * (it starts with a slash: a file of the executor's private folder, see
 * `SeccompFilterFiles`) is opened, and a launch whose file cannot be opened
 * is the wrapper's failure, never a launch without its filter; anything else
 * (a remote host's wrapper) is `printf` escapes of the filter's bytes, put
 * on a pipe (a fork of bash). Empty: no filter (an architecture without one).
 */
export const OPEN_FILTER: string = 'case $1 in "") ;; /*) { exec 3<"$1"; } 2>/dev/null || ' +
  `{ echo "${WRAPPER_NAME}: cannot open the seccomp filter $1" >&2; exit ${WRAPPER_FAILURE_EXIT}; };; ` +
  '*) exec 3< <(printf "$1");; esac; ';

/**
 * Reads the sizes of the entries that follow on stdin: `$h` bytes of byte
 * counts, space-separated, into the array `z` (`i` indexes the next). Each
 * entry is then read with `read -N` of its size (`readSized`), in a few
 * system calls: `read -d ""` reads a pipe a byte at a time, one system call
 * a byte (about 40 ms of CPU for the 16 KB of options of a workspace with
 * 150 protected paths). Bash reads in the C locale from here on (the
 * runners run with no environment, and set it besides): `read -N` counts
 * bytes, and reads exactly them. Any other input is the wrapper's failure.
 */
export const READ_SIZES: string = 'LC_ALL=C; IFS= read -r -N "$h" z && [ "${#z}" = "$h" ] || ' +
  `{ echo "${WRAPPER_NAME}: no sizes on stdin" >&2; exit ${WRAPPER_FAILURE_EXIT}; }; ` +
  "set -f; z=($z); set +f; i=0; ";

/**
 * Reads the next entry (see `READ_SIZES`) into `name`, and fails (status
 * not 0) when stdin ends first.
 */
function readSized(name: string): string {
  return `IFS= read -r -N "\${z[i]}" ${name} && [ "\${#${name}}" = "\${z[i++]}" ]`;
}

/** Reads `$n` entries (see `READ_SIZES`) into `o`; fewer are the wrapper's failure. */
export const READ_OPTIONS: string = 'o=(); while [ "${#o[@]}" -lt "$n" ] && ' + readSized("e") +
  '; do o+=("$e"); done; [ "${#o[@]}" = "$n" ] || ' +
  `{ echo "${WRAPPER_NAME}: no options on stdin" >&2; exit ${WRAPPER_FAILURE_EXIT}; }; `;

/**
 * Reads `$m` mask groups (see `maskGroups` in `_args.ts`), each its option
 * count then its options, entries as `READ_SIZES` reads them, and keeps in
 * `v` those whose path (the group's last option) is still there, a
 * dangling symlink included; any other input is the wrapper's failure.
 */
export const READ_MASKS: string = 'v=(); while [ "$m" -gt 0 ] && ' + readSized("x") +
  ' && q=() && while [ "${#q[@]}" -lt "$x" ] && ' + readSized("e") +
  '; do q+=("$e"); done && [ "${#q[@]}" = "$x" ]; do m=$((m - 1)); ' +
  'if [ -e "${q[$((x - 1))]}" ] || [ -L "${q[$((x - 1))]}" ]; then v+=("${q[@]}"); fi; done; ' +
  `[ "$m" = 0 ] || { echo "${WRAPPER_NAME}: no masks on stdin" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}; }; unset q e x z; `;

/** Each mask group as `READ_MASKS` reads it: its option count, then its options. */
export function maskEntries(masks: string[][]): string[] {
  return masks.flatMap((group) => [String(group.length), ...group]);
}

/**
 * `entries` as `READ_SIZES` and the readers after it take them: `sizes`,
 * their byte counts space-separated, and `body`, the entries back to back.
 */
export function sizedEntries(entries: readonly string[]): { sizes: Uint8Array; body: Uint8Array } {
  const encoded = entries.map((entry) => encoder.encode(entry));
  return {
    sizes: encoder.encode(encoded.map((entry) => entry.length).join(" ")),
    body: joinedBytes(encoded),
  };
}

/** `items`, each followed by a NUL. */
export function nulTerminated(items: string[]): string {
  return items.map((item) => `${item}\0`).join("");
}

export const encoder: TextEncoder = new TextEncoder();
