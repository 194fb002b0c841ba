/**
 * The pieces of shell that the wrapper (`_wrapper.ts`) and the standby
 * (`_standby.ts`) share: how they name their own failure, how they close
 * what they inherited, and how they read the mask groups from their stdin
 * and keep those whose path is still there.
 *
 * @module
 */

/** The exit code of the wrapper shell (or the standby) when it failed itself. */
export const WRAPPER_FAILURE_EXIT = 125;
/** The prefix of the wrapper's (or the standby's) own failure lines, and its `$0`. */
export const WRAPPER_NAME = "shellseam-bwrap";

/**
 * Closes every descriptor above 2 that the shell inherited: one the runtime
 * left without close-on-exec would reach into the sandbox.
 */
export const CLOSE_INHERITED: string =
  'for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; ';

/**
 * Reads `$m` mask groups (see `maskGroups` in `_args.ts`) from stdin, each its
 * option count then its options, NUL-terminated, and keeps in `v` those
 * whose path (the group's last option) is still there, a dangling symlink
 * included; any other input is the wrapper's failure.
 */
export const READ_MASKS: string = 'v=(); while [ "$m" -gt 0 ] && IFS= read -r -d "" x && q=() && ' +
  'while [ "${#q[@]}" -lt "$x" ] && IFS= read -r -d "" e; do q+=("$e"); done && ' +
  '[ "${#q[@]}" = "$x" ]; do m=$((m - 1)); ' +
  'if [ -e "${q[$((x - 1))]}" ] || [ -L "${q[$((x - 1))]}" ]; then v+=("${q[@]}"); fi; done; ' +
  `[ "$m" = 0 ] || { echo "${WRAPPER_NAME}: no masks on stdin" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}; }; unset q e; `;

/**
 * Puts the masks kept in `v` (see `READ_MASKS`) on fd 5 for bwrap's
 * `--args 5`, which goes after `--args 4`, so they mount last, and no
 * command line shows them (they name the user's secrets); `v` becomes those
 * two words, or nothing when no mask is left.
 */
export const MASKS_ON_FD5: string =
  'if [ "${#v[@]}" -gt 0 ]; then exec 5< <(printf "%s\\0" "${v[@]}"); ' +
  "v=(--args 5); fi; ";

/** Each mask group as `READ_MASKS` reads it: its option count, then its options, NUL-terminated. */
export function maskInput(masks: string[][]): string {
  return masks.map((group) => nulTerminated([String(group.length), ...group])).join("");
}

/** `items`, each followed by a NUL. */
export function nulTerminated(items: string[]): string {
  return items.map((item) => `${item}\0`).join("");
}

export const encoder: TextEncoder = new TextEncoder();
