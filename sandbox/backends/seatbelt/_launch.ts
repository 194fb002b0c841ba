/**
 * How a launch runs under Seatbelt: `sandbox-exec` found on the search
 * path, and a launch rewritten to run through it with a profile.
 *
 * @module
 */
import {
  APPLY_LIMITS,
  BASH_FLAGS,
  findOnPath,
  type Launch,
  type LaunchLimits,
  limitArgs,
} from "../../../engine/mod.ts";
import {
  closeInherited,
  type ConfinedPolicy,
  execOrFail,
  PRINT_START,
  readEntries,
  RUNNER_FAILURE_EXIT,
  STDIN_UNLESS_KEPT,
} from "../mod.ts";
import { type SeatbeltFolders, seatbeltProfile } from "./_profile.ts";

/** The exit code of the launch's own shells when they failed themselves (not the command). */
export const SEATBELT_FAILURE_EXIT: number = RUNNER_FAILURE_EXIT;
/** The prefix of those shells' failure lines, and their `$0`. */
export const SEATBELT_RUNNER = "shellseam-seatbelt";

/**
 * `sandbox-exec` on `searchPath` (the process's PATH when undefined), or
 * why it cannot be used. It ships with
 * macOS in `/usr/bin`; elsewhere there is none, and the reason says so.
 */
export function findSandboxExec(searchPath: string | undefined): { path: string } | {
  reason: string;
} {
  const path = findOnPath("sandbox-exec", searchPath);
  if (path === null) {
    return {
      reason:
        '"sandbox-exec" was not found on PATH; Seatbelt needs macOS, where it is /usr/bin/sandbox-exec (put /usr/bin on PATH)',
    };
  }
  return { path };
}

/**
 * The shell before `sandbox-exec`, unconfined. In order:
 * 1. It applies the command's limits (`APPLY_LIMITS`: cgroups where there
 *    are any, then rlimits, which sandbox-exec and the command inherit).
 * 2. It closes every descriptor above 2 it inherited, as `/dev/fd` lists
 *    them (macOS has no `/proc`): one the runtime inherited without
 *    close-on-exec would reach into the sandbox, where Seatbelt checks
 *    paths as they are opened, not descriptors already open.
 * 3. It execs the rest of its arguments; one it cannot run (gone since the
 *    probe) is its failure.
 */
const BEFORE = APPLY_LIMITS + closeInherited("/dev/fd") + execOrFail(SEATBELT_RUNNER);

/**
 * The shell inside the sandbox, before the command. In order:
 * 1. It reads `$1` entries `NAME=VALUE` from its stdin, each NUL-terminated
 *    (the command's environment, which so shows on no command line and
 *    reaches none of the programs that run before the sandbox applies), into
 *    a list, not its own variables: an entry may name a variable the shell
 *    uses, one `export` refuses (`a.b`) or one bash holds read-only; too few
 *    entries is its failure.
 * 2. Unless `$2` is `1`, the command gets /dev/null as its stdin, else the
 *    rest of that stdin (bash reads a pipe byte by byte, so it took nothing more).
 * 3. When `$3` is `1`, it writes `LAUNCH_STARTED` first on stdout: the
 *    sandbox applied and the environment was read, so what fails from here
 *    on is the command's (see `LaunchOutcome.started`, which the command
 *    cannot forge as it can a line on stderr and an exit code).
 * 4. It execs the command, the rest of its arguments, through `env -i` with
 *    exactly those entries.
 *
 * Bash 3.2 (macOS's `/bin/bash`) has all it uses: arrays and `read -d`.
 */
const INSIDE = "n=$1; k=$2; a=$3; shift 3; " + readEntries(SEATBELT_RUNNER, "environment") +
  STDIN_UNLESS_KEPT + `[ "$a" = 1 ] && ${PRINT_START}` + 'exec /usr/bin/env -i "${o[@]}" "$@"';

/**
 * `launch` run by `sandbox-exec` under the profile of `policy`. In order:
 * 1. A shell applies `limits`, closes what it inherited (see `BEFORE`) and execs
 *    `sandbox-exec -p PROFILE -DNAME=VALUE... --`, with no environment at
 *    all (nothing the command's environment names, such as a library to
 *    preload, reaches what runs before the sandbox applies).
 * 2. Inside the sandbox, a shell (the launch's own bash) reads the command's
 *    environment, with the commands' TMPDIR, from the launch's `input` (see
 *    `INSIDE`) and execs the command in the same folder; the command keeps
 *    the stdin after that input when `keepStdin`, else gets /dev/null. With
 *    `announceStart`, it says first on stdout when the command starts (the
 *    plan of such a launch sets `announcesStart`, and the executor takes the
 *    byte out).
 *
 * The profile and its parameters hold paths and a port, never the
 * environment. Throws `BashConfigError` for a policy the profile cannot
 * express (see `seatbeltProfile`).
 */
export function seatbeltLaunch(
  launch: Launch,
  sandboxExec: string,
  policy: ConfinedPolicy,
  folders: SeatbeltFolders,
  realpath: (path: string) => string,
  options: { limits?: LaunchLimits; keepStdin?: boolean; announceStart?: boolean } = {},
): Launch {
  const { profile, params } = seatbeltProfile(policy, folders, realpath);
  const defines = Object.entries(params).map(([name, value]) => `-D${name}=${value}`);
  const environment = Object.entries({ ...launch.env, TMPDIR: folders.tmpDir })
    .map(([name, value]) => `${name}=${value}\0`);
  const { limits } = options;
  return {
    program: launch.program,
    args: [
      ...BASH_FLAGS,
      "-p",
      "-c",
      BEFORE,
      SEATBELT_RUNNER,
      ...limitArgs(limits?.rlimits ?? {}, limits?.cgroupProcs),
      sandboxExec,
      "-p",
      profile,
      ...defines,
      "--",
      launch.program,
      ...BASH_FLAGS,
      "-c",
      INSIDE,
      SEATBELT_RUNNER,
      String(environment.length),
      options.keepStdin === true ? "1" : "0",
      options.announceStart === true ? "1" : "0",
      launch.program,
      ...launch.args,
    ],
    cwd: launch.cwd,
    env: {},
    input: new TextEncoder().encode(environment.join("")),
  };
}
