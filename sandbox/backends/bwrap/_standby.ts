/**
 * The bwrap standby: bwrap itself, started ahead of a call (see
 * `LaunchStandby`) and waiting for its options, which are the call's input.
 * Its wrapper has done the slow part (the cgroups, the seccomp filter's
 * file, the report file) and exec'd bwrap before the call came, so the call
 * waits for neither: bwrap's load and start (3.3 to 3.7 ms of the way to the
 * command's start, measured on 2 busy cores against a wrapper that execs
 * bwrap once the input came) are off its path.
 *
 * @module
 */
import { closeSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Launch } from "../../../engine/mod.ts";
import { pathState } from "../../../runtime/mod.ts";
import {
  APPLY_LIMITS,
  BASH_FLAGS,
  isBeneath,
  limitArgs,
  WATCHDOG_VARIABLE,
} from "../../../engine/mod.ts";
import { type ConfinedPolicy, type LaunchStandby, socketRule } from "../mod.ts";
import { bwrapArgs, type BwrapFolders, LOCAL_PATHS, maskGroups } from "./_args.ts";
import {
  OPEN_REPORT,
  REPORTER_NAME,
  SET_UP_REPORTER,
  STANDBY_COMMAND_VARIABLE,
  STANDBY_LIMITS_VARIABLE,
  STANDBY_REPORT_PREFIX,
  STANDBY_REPORTER,
  standbyStrayReport,
} from "./_reporter.ts";
import {
  CLOSE_INHERITED,
  encoder,
  nulTerminated,
  OPEN_FILTER,
  WRAPPER_FAILURE_EXIT,
  WRAPPER_NAME,
} from "./_shell.ts";
import type { SeccompFilterFiles } from "./_filter_files.ts";

/**
 * A bwrap standby (see `LaunchStandby`). In order, while nothing waits for it:
 * 1. It joins the cgroups named in its arguments (`APPLY_LIMITS`), closes
 *    the descriptors it inherited as the wrapper does (`CLOSE_INHERITED`),
 *    and opens its seccomp filter's file (`$1`, see `OPEN_FILTER`) as fd 3.
 *    It holds the one filter its launches need (their socket rule and the
 *    file's generation are part of its key).
 * 2. It gives bwrap its stdin as fd 4, for `--args` (no command line shows
 *    the options, and no fork of bash puts them on a pipe of their own), and
 *    the command /dev/null for stdin.
 * 3. It opens its report file (`standbyStrayReport`, named after its pid, in
 *    the private folder `$5`), emptied first, as the wrapper opens a call's
 *    (`OPEN_REPORT`).
 * 4. It execs bwrap, which reads its options from fd 4 to the end: they
 *    wait there for the call. Its command is the standby's reporter
 *    (`STANDBY_REPORTER`, `$4`) running bash (`$3`), which takes the
 *    command and its rlimits from the variables bwrap's options set.
 *
 * The call's input is bwrap's options, NUL-terminated: the call's, then
 * the two variables, then the masks whose path was still there when the
 * input was made (so they mount last). The reporter inside writes
 * `LAUNCH_STARTED` once bwrap's setup is done: the executor takes the launch
 * for started only then (one whose setup failed, at a mask whose path went
 * since the input was made, is started as usual).
 *
 * Set up ahead (`$6` not empty, see `SetUpLaunch`), it opens the file `$6`
 * as fd 4 instead, which holds bwrap's options (see `OPTIONS_FILE_PREFIX`),
 * and fails when it cannot; stdin stays the reporter's (`SET_UP_REPORTER`),
 * which waits in the sandbox bwrap made for the command and its rlimits.
 */
const STANDBY = APPLY_LIMITS + "b=$2; s=$3; t=$4; r=$5; u=$6; " + CLOSE_INHERITED +
  OPEN_FILTER +
  'if [ -n "$u" ]; then { exec 4<"$u"; } 2>/dev/null || ' +
  `{ echo "${WRAPPER_NAME}: cannot open the options $u" >&2; exit ${WRAPPER_FAILURE_EXIT}; }; ` +
  "else exec 4<&0 0</dev/null; fi; " +
  `set -- "$r/${STANDBY_REPORT_PREFIX}$$"; { : >"$1"; } 2>/dev/null; ` +
  OPEN_REPORT +
  `shopt -s execfail; exec "$b" --args 4 -- "$s" ${
    BASH_FLAGS.join(" ")
  } -p -c "$t" ${REPORTER_NAME} ` +
  `"$s" ${BASH_FLAGS.join(" ")}; ` +
  `echo "${WRAPPER_NAME}: cannot run $b" >&2; exit ${WRAPPER_FAILURE_EXIT}`;

/**
 * How a launch confined by bwrap runs in a standby (see `LaunchStandby`):
 * one for `bash [--norc --noprofile] -c <command>` (a command in pieces
 * starts as usual), with the same options and filter as
 * `wrapInBwrap` (`_wrapper.ts`).
 */
export function bwrapStandby(
  bwrap: string,
  filters: SeccompFilterFiles | undefined,
  launch: Launch,
  policy: ConfinedPolicy,
  folders: BwrapFolders,
): LaunchStandby | undefined {
  const command = launch.args.length === BASH_FLAGS.length + 2 &&
      BASH_FLAGS.every((flag, index) => launch.args[index] === flag) &&
      launch.args[BASH_FLAGS.length] === "-c"
    ? launch.args[BASH_FLAGS.length + 1] as string
    : undefined;
  // A NUL would end the option that carries it: such a command starts as usual (and fails there).
  if (command === undefined || command.includes("\0")) return undefined;
  // The reporter would take and unset a variable of the caller's by these names: as usual, the
  // command gets it.
  if (STANDBY_COMMAND_VARIABLE in launch.env || STANDBY_LIMITS_VARIABLE in launch.env) {
    return undefined;
  }
  const bash = launch.program;
  const rule = socketRule(policy);
  // Checked now, at each call: a standby that opened an older file runs no launch.
  const filter = filters?.current(rule);
  /**
   * bwrap's options as the call's launch would have them now, its command
   * left out: the call's, then each mask whose path is still there (see
   * maskGroups), its path last. The runtime's own lstat: Node's, under Deno,
   * costs twice as much (measured: 15 against 7 µs a path).
   */
  const optionsNow = (of: Launch): { options: string[]; masks: string[][] } => {
    const args = bwrapArgs(of, policy, folders, LOCAL_PATHS, "apart");
    // Everything before the command's own "--": the standby's bwrap has its command line.
    const options = args.slice(0, args.length - of.args.length - 2);
    if (filter !== undefined) options.unshift("--seccomp", "3");
    const masks = maskGroups(policy).filter((group) =>
      pathState(group[group.length - 1] ?? "") !== undefined
    );
    return { options, masks };
  };
  const standbyLaunch = (cgroupProcs: readonly string[], reporter: string, setUp: string) => ({
    program: bash,
    args: [
      ...BASH_FLAGS,
      "-p",
      "-c",
      STANDBY,
      WRAPPER_NAME,
      ...limitArgs({}, cgroupProcs),
      // Checked again as it starts.
      filters?.current(rule).path ?? "",
      bwrap,
      bash,
      reporter,
      folders.privateDir,
      setUp,
    ],
    cwd: "/",
    env: {},
  });
  return {
    key: `bwrap ${bwrap} ${bash} ${filter === undefined ? "-" : `${rule} ${filter.generation}`}`,
    // Exec'd as the standby starts, before any call's launch is vetted.
    runs: [bwrap],
    prepare: (cgroupProcs) => standbyLaunch(cgroupProcs, STANDBY_REPORTER, ""),
    input: (rlimits) => {
      const { options, masks } = optionsNow(launch);
      return encoder.encode(nulTerminated([
        ...options,
        "--setenv",
        STANDBY_COMMAND_VARIABLE,
        command,
        "--setenv",
        STANDBY_LIMITS_VARIABLE,
        limitArgs(rlimits).join(" "),
        ...masks.flat(),
      ]));
    },
    strayReport: (pid) => standbyStrayReport(folders.privateDir, pid),
    setUp: () => {
      // The command's marker (its number) differs from call to call: the reporter sets it.
      const { [WATCHDOG_VARIABLE]: marker, ...env } = launch.env;
      const { options, masks } = optionsNow({ ...launch, env });
      const all = [...options, ...masks.flat()];
      const bound = policy.mode === "workspace-write"
        ? [policy.workspaceRoot, ...policy.writableRoots, ...policy.readOnlyPaths]
        : [];
      // The executor's own folders (its TMPDIR, its proxy folder) are moved by none of its
      // commands: they are read-only to every one, in a folder hidden from all.
      const masked = masks.map((group) => group[group.length - 1] as string)
        .filter((path) => !isBeneath(path, folders.privateDir));
      // The last option: "--chdir" and the working folder (see bwrapArgs).
      const cwd = options[options.length - 1] as string;
      const text = nulTerminated(all);
      // A name of its own: no other standby opens this file.
      const file = join(folders.privateDir, `${OPTIONS_FILE_PREFIX}${crypto.randomUUID()}`);
      return {
        options: text,
        paths: [...bound, ...masked, cwd],
        file,
        prepare: (cgroupProcs) => {
          // Made last: a launch that cannot be made (no filter file) leaves no options behind.
          const ahead = standbyLaunch(cgroupProcs, SET_UP_REPORTER, file);
          writeOptions(file, text);
          return ahead;
        },
        input: (rlimits) =>
          encoder.encode(nulTerminated([limitArgs(rlimits).join(" "), marker ?? "", command])),
      };
    },
  };
}

/**
 * The name of the file, before a random part, from which a standby set up
 * ahead gives bwrap its options (`--args 4`), in the executor's private
 * folder. Its wrapper opens it. Before, bash read the options sized from
 * its stdin and put them on a pipe through a fork of its own: a start took
 * 1.25 times the CPU (measured on 2 busy cores, alternating both in one
 * process, the whole tree to `true` under `perf stat`: 34.7 against 27.6
 * ms with 417 bytes of options, 92 against 75 ms with 150 protected paths;
 * writing the file costs the host 0.1 to 0.2 ms). The file is safe there:
 * 1. No confined command can write the private folder (see
 *    `SeccompFilterFiles`; a test tries, while the next standby is set up).
 * 2. No other standby opens it: the host makes it exclusively, whole
 *    before the standby starts (so no draft is needed), under a name never
 *    used before.
 * 3. Nothing stays: the host removes it once the standby ran a call or
 *    ended (see `Standbys`), and the folder goes with the executor.
 */
export const OPTIONS_FILE_PREFIX = "standby-options-";

/** Makes the file `path` (none may be there) holding `text`, or throws and leaves none. */
function writeOptions(path: string, text: string): void {
  const fd = openSync(path, "wx", 0o600);
  try {
    writeFileSync(fd, text);
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
}
