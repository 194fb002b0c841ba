/**
 * The bwrap standby: a wrapper started ahead of a call (see `LaunchStandby`),
 * which has done its slow part (the cgroups, the seccomp filters on pipes)
 * before the call comes, and then execs bwrap on the call's input.
 *
 * @module
 */
import type { Launch } from "../../../engine/mod.ts";
import { pathState } from "../../../runtime/mod.ts";
import { APPLY_LIMITS, BASH_FLAGS, joinedBytes, limitArgs } from "../../../engine/mod.ts";
import { type ConfinedPolicy, type LaunchStandby, socketRule } from "../mod.ts";
import { bwrapArgs, type BwrapFolders, LOCAL_PATHS, maskGroups } from "./_args.ts";
import { NAMESPACE_REPORTER, OPEN_REPORT, REPORTER_NAME } from "./_reporter.ts";
import {
  CLOSE_INHERITED,
  encoder,
  nulTerminated,
  WRAPPER_FAILURE_EXIT,
  WRAPPER_NAME,
} from "./_shell.ts";
import type { BwrapFilters } from "./_wrapper.ts";

/**
 * A bwrap wrapper started ahead (see `LaunchStandby`). In order:
 * 1. While nothing waits for it, it joins the cgroups named in its
 *    arguments (`APPLY_LIMITS`), closes the descriptors it inherited as the
 *    wrapper does (`CLOSE_INHERITED`), and puts its seccomp filter (`$1`,
 *    when not empty) on a pipe, as fd 3. It holds the one filter its
 *    launches need (their socket rule is part of its key): each filter on a
 *    pipe costs a fork of bash.
 * 2. It waits for its input: the report file's path (or nothing) and a NUL;
 *    a line `<command bytes> <rlimit entries> --`; the command; then
 *    bwrap's options, NUL-separated, to the end, the masks whose path was
 *    still there when the input was made last (so they mount last).
 * 3. It sets the rlimits.
 * 4. It gives the command /dev/null for stdin, and bwrap its options on fd
 *    4 (which bwrap reads to the end with `--args`): no command line shows
 *    them, and no fork of bash puts them on a pipe of their own.
 * 5. It opens the report file as the wrapper does (`OPEN_REPORT`), and the
 *    command then runs under the namespace's reporter (`$4`).
 * 6. It execs bwrap.
 *
 * The reporter inside writes `LAUNCH_STARTED` once bwrap's setup is done:
 * the executor takes the launch for started only then (one whose setup
 * failed, at a mask whose path went since the input was made for one, is
 * started as usual), so a standby needs a report file. It runs with no
 * environment, so bash reads in the C locale: `read -N` counts bytes, and
 * reads exactly them.
 */
const STANDBY = APPLY_LIMITS + "b=$2; s=$3; t=$4; " + CLOSE_INHERITED +
  'if [ -n "$1" ]; then exec 3< <(printf "$1"); fi; ' +
  'IFS= read -r -d "" p && IFS=" " read -r n l && ' +
  'IFS= read -r -N "$n" c && ' +
  `[ "\${#c}" = "$n" ] || { echo "${WRAPPER_NAME}: the standby got no command" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}; }; ` +
  "set -f; set -- $l; set +f; " + APPLY_LIMITS +
  `exec 4<&0 0</dev/null; set -- "$p"; ${OPEN_REPORT}set --; [ -z "$p" ] || set -- "$s" ${
    BASH_FLAGS.join(" ")
  } ` +
  `-p -c "$t" ${REPORTER_NAME}; ` +
  `shopt -s execfail; exec "$b" --args 4 -- "$@" "$s" ${BASH_FLAGS.join(" ")} -c "$c"; ` +
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
  const filter = filters?.[socketRule(policy)];
  return {
    key: `bwrap ${bwrap} ${bash} ${filter === undefined ? "-" : socketRule(policy)}`,
    prepare: (cgroupProcs) => ({
      program: bash,
      args: [
        ...BASH_FLAGS,
        "-p",
        "-c",
        STANDBY,
        WRAPPER_NAME,
        ...limitArgs({}, cgroupProcs),
        filter ?? "",
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
      if (filter !== undefined) options.unshift("--seccomp", "3");
      const commandBytes = encoder.encode(command);
      // Each mask whose path is still there (see maskGroups), its path last. The runtime's own
      // lstat: Node's, under Deno, costs twice as much (measured: 15 against 7 µs a path).
      const masks = maskGroups(policy).filter((group) =>
        pathState(group[group.length - 1] ?? "") !== undefined
      );
      const head = `${commandBytes.length} ${limitArgs(rlimits).join(" ")}\n`;
      return joinedBytes([
        encoder.encode(`${policy.strayReport ?? ""}\0${head}`),
        commandBytes,
        encoder.encode(nulTerminated([...options, ...masks.flat()])),
      ]);
    },
  };
}
