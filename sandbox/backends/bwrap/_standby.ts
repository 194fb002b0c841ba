/**
 * The bwrap standby: a wrapper started ahead of a call (see `LaunchStandby`),
 * which has done its slow part (the cgroups, the seccomp filters on pipes)
 * before the call comes, and then execs bwrap on the call's input.
 *
 * @module
 */
import type { Launch, LaunchStandby } from "../../../engine/mod.ts";
import { APPLY_LIMITS, BASH_FLAGS, limitArgs } from "../../../engine/mod.ts";
import { type ConfinedPolicy, type SocketRule, socketRule } from "../mod.ts";
import { bwrapArgs, type BwrapFolders, LOCAL_PATHS, maskGroups } from "./_args.ts";
import { NAMESPACE_REPORTER, OPEN_REPORT, REPORTER_NAME } from "./_reporter.ts";
import {
  CLOSE_INHERITED,
  encoder,
  maskInput,
  MASKS_ON_FD5,
  nulTerminated,
  READ_MASKS,
  WRAPPER_FAILURE_EXIT,
  WRAPPER_NAME,
} from "./_shell.ts";
import type { BwrapFilters } from "./_wrapper.ts";

/** The filters a standby holds, in the order its input names them by index. */
const STANDBY_RULES: readonly SocketRule[] = ["none", "unix", "inet", "any"];

/**
 * A bwrap wrapper started ahead (see `LaunchStandby`). In order:
 * 1. While nothing waits for it, it joins the cgroups named in its
 *    arguments (`APPLY_LIMITS`), closes the descriptors it inherited as the
 *    wrapper does (`CLOSE_INHERITED`), and puts each of the four seccomp
 *    filters on a pipe of its own (fds 5 to 8).
 * 2. It waits for its input: the report file's path (or nothing) and a NUL;
 *    a line `<filter index or -> <command bytes> <mask groups> <rlimit
 *    entries> --`; the command; the mask groups (it keeps those whose path
 *    is still there, `READ_MASKS`); then bwrap's options, NUL-separated, to
 *    the end.
 * 3. It sets the rlimits and keeps the filter named (as fd 3).
 * 4. It gives the command /dev/null for stdin, bwrap's options on fd 4
 *    (which bwrap reads to the end with `--args`) and the masks kept on fd 5
 *    (`MASKS_ON_FD5`).
 * 5. It opens the report file as the wrapper does (`OPEN_REPORT`), and the
 *    command then runs under the namespace's reporter (`$7`).
 * 6. It execs bwrap.
 *
 * The reporter inside writes `LAUNCH_STARTED` once bwrap's setup is done:
 * the executor takes the launch for started only then (one whose setup
 * failed is started as usual), so a standby needs a report file. It runs
 * with no environment, so bash reads in the C locale: `read -N` counts
 * bytes, and reads exactly them.
 */
const STANDBY = APPLY_LIMITS + "b=$5; s=$6; t=$7; " + CLOSE_INHERITED +
  'exec 5< <(printf "$1") 6< <(printf "$2") 7< <(printf "$3") ' +
  '8< <(printf "$4"); IFS= read -r -d "" p && IFS=" " read -r r n m l && ' +
  'IFS= read -r -N "$n" c && ' +
  `[ "\${#c}" = "$n" ] || { echo "${WRAPPER_NAME}: the standby got no command" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}; }; ` + READ_MASKS +
  "set -f; set -- $l; set +f; " + APPLY_LIMITS +
  'if [ "$r" != - ]; then eval "exec 3<&$((r + 5))"; fi; exec 4<&0 0</dev/null 5<&- 6<&- 7<&- ' +
  `8<&-; ${MASKS_ON_FD5}set -- "$p"; ${OPEN_REPORT}set --; [ -z "$p" ] || set -- "$s" ${
    BASH_FLAGS.join(" ")
  } ` +
  `-p -c "$t" ${REPORTER_NAME}; ` +
  `shopt -s execfail; exec "$b" --args 4 "\${v[@]}" -- "$@" "$s" ${
    BASH_FLAGS.join(" ")
  } -c "$c"; ` +
  `echo "${WRAPPER_NAME}: cannot run $b" >&2; exit ${WRAPPER_FAILURE_EXIT}`;

/**
 * How a launch confined by bwrap runs in a standby (see `LaunchStandby`):
 * one for `bash [--norc --noprofile] -c <command>` (a command in pieces
 * starts as usual), with the same options and filter as
 * `wrapInBwrap` (`_wrapper.ts`).
 */
export function bwrapStandby(
  bwrap: string,
  filters: BwrapFilters | undefined,
  launch: Launch,
  policy: ConfinedPolicy,
  folders: BwrapFolders,
): LaunchStandby | undefined {
  const command = launch.args.length === BASH_FLAGS.length + 2 &&
      BASH_FLAGS.every((flag, index) => launch.args[index] === flag) &&
      launch.args[BASH_FLAGS.length] === "-c"
    ? launch.args[BASH_FLAGS.length + 1] as string
    : undefined;
  if (command === undefined) return undefined;
  const bash = launch.program;
  return {
    key: `bwrap ${bwrap} ${bash}`,
    prepare: (cgroupProcs) => ({
      program: bash,
      args: [
        ...BASH_FLAGS,
        "-p",
        "-c",
        STANDBY,
        WRAPPER_NAME,
        ...limitArgs({}, cgroupProcs),
        ...STANDBY_RULES.map((rule) => filters?.[rule] ?? ""),
        bwrap,
        bash,
        NAMESPACE_REPORTER,
      ],
      cwd: "/",
      env: {},
    }),
    input: (rlimits) => {
      const args = bwrapArgs(launch, policy, folders, LOCAL_PATHS, "apart");
      // Everything before the command's own "--", which the standby puts on bwrap's command line.
      const options = args.slice(0, args.length - launch.args.length - 2);
      if (filters !== undefined) options.unshift("--seccomp", "3");
      const rule = filters === undefined ? "-" : STANDBY_RULES.indexOf(socketRule(policy));
      const commandBytes = encoder.encode(command);
      const masks = maskGroups(policy);
      const head = `${rule} ${commandBytes.length} ${masks.length} ${
        limitArgs(rlimits).join(" ")
      }\n`;
      const parts = [
        encoder.encode(`${policy.strayReport ?? ""}\0`),
        encoder.encode(head),
        commandBytes,
        encoder.encode(maskInput(masks) + nulTerminated(options)),
      ];
      const input = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
      let offset = 0;
      for (const part of parts) {
        input.set(part, offset);
        offset += part.length;
      }
      return input;
    },
  };
}
