/**
 * How a launch runs under Seatbelt: `sandbox-exec` found on the search
 * path, and a launch rewritten to run through it with a profile.
 *
 * @module
 */
import { accessSync, constants } from "node:fs";
import {
  APPLY_LIMITS,
  BASH_FLAGS,
  findOnPath,
  type Launch,
  LAUNCH_STARTED,
  type LaunchLimits,
  limitArgs,
} from "../../../engine/mod.ts";
import { closeInherited, type ConfinedPolicy, execOrFail, RUNNER_FAILURE_EXIT } from "../mod.ts";
import { type SeatbeltFolders, seatbeltProfile } from "./_profile.ts";

/** The exit code of the launch's own runners when they failed themselves (not the command). */
export const SEATBELT_FAILURE_EXIT: number = RUNNER_FAILURE_EXIT;
/** The prefix of those runners' failure lines, and the shell's `$0`. */
export const SEATBELT_RUNNER = "shellseam-seatbelt";

/**
 * `sandbox-exec` on `searchPath` (the process's PATH when undefined), or
 * why it cannot be used. It ships with
 * macOS in `/usr/bin`; elsewhere there is none, and the reason says so. The
 * launch needs `perl` too (`SEATBELT_PERL` unless given), which hands each
 * command its environment: without it the reason names it.
 */
export function findSandboxExec(
  searchPath: string | undefined,
  perl: string = SEATBELT_PERL,
): { path: string } | { reason: string } {
  const path = findOnPath("sandbox-exec", searchPath);
  if (path === null) {
    return {
      reason:
        '"sandbox-exec" was not found on PATH; Seatbelt needs macOS, where it is /usr/bin/sandbox-exec (put /usr/bin on PATH)',
    };
  }
  try {
    accessSync(perl, constants.X_OK);
  } catch {
    return {
      reason:
        `"${perl}" cannot be run, and Seatbelt's launch hands each command its environment through it (so that no command line shows it); restore macOS's own perl there`,
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
 * The perl that hands the command its environment inside the sandbox (see
 * `INSIDE`). macOS ships it; a fixed path, as no search path inside the
 * sandbox is trusted yet.
 */
export const SEATBELT_PERL = "/usr/bin/perl";

/**
 * The perl script inside the sandbox, before the command, with `$ARGV[0]`
 * (keep stdin) and `$ARGV[1]` (announce the start) first, then the command.
 * In order:
 * 1. It reads its stdin's first line, the size in bytes of the entries that
 *    follow, then exactly those entries `NAME=VALUE`, each NUL-terminated:
 *    the command's environment, which so shows on no command line and
 *    reaches none of the programs that run before the sandbox applies
 *    (`sysread` takes no byte past them). Too few bytes is its failure.
 * 2. Unless keep stdin is `1`, the command gets /dev/null as its stdin, else
 *    the rest of that stdin.
 * 3. When announce is `1`, it writes `LAUNCH_STARTED` first on stdout: the
 *    sandbox applied and the environment was read, so what fails from here
 *    on is the command's (see `LaunchOutcome.started`, which the command
 *    cannot forge as it can a line on stderr and an exit code).
 * 4. It replaces its own environment with exactly those entries and execs
 *    the command: no process's command line ever holds them (a shell's
 *    `env -i NAME=VALUE ...` showed them to `ps` while env ran), and every
 *    name passes intact, those a shell could not export too (`a.b`,
 *    `BASH_FUNC_f%%`, `SHELLOPTS`), as bwrap's `--setenv` and Landlock's
 *    `execve` pass them on Linux.
 *
 * Perl, not the shell, because bash (3.2 on macOS) cannot export every
 * name; it uses nothing perl 5.8 lacks.
 */
const INSIDE = String.raw`my ($keep, $announce) = splice @ARGV, 0, 2; ` +
  String
    .raw`sub failed { print STDERR "${SEATBELT_RUNNER}: $_[0]\n"; exit ${SEATBELT_FAILURE_EXIT} } ` +
  String.raw`my ($size, $byte) = ("", ""); ` +
  String.raw`while (sysread(STDIN, $byte, 1) && $byte ne "\n") { $size .= $byte } ` +
  String.raw`$byte eq "\n" && $size =~ /^[0-9]+$/ or failed("no environment on stdin"); ` +
  String.raw`my $entries = ""; ` +
  String
    .raw`while (length($entries) < $size) { sysread(STDIN, $entries, $size - length($entries), ` +
  String.raw`length($entries)) or failed("no environment on stdin") } ` +
  String
    .raw`$keep eq "1" or open(STDIN, "<", "/dev/null") or failed("cannot open /dev/null: $!"); ` +
  `$announce eq "1" and syswrite(STDOUT, chr(${LAUNCH_STARTED})); ` +
  String.raw`%ENV = map { split /=/, $_, 2 } split /\0/, $entries; ` +
  String.raw`exec { $ARGV[0] } @ARGV; failed("cannot run $ARGV[0]: $!");`;

/**
 * `launch` run by `sandbox-exec` under the profile of `policy`. In order:
 * 1. A shell applies `limits`, closes what it inherited (see `BEFORE`) and execs
 *    `sandbox-exec -p PROFILE -DNAME=VALUE... --`, with no environment at
 *    all (nothing the command's environment names, such as a library to
 *    preload, reaches what runs before the sandbox applies).
 * 2. Inside the sandbox, perl (`options.perl`, else `SEATBELT_PERL`) reads the command's
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
  options: {
    limits?: LaunchLimits;
    keepStdin?: boolean;
    announceStart?: boolean;
    perl?: string;
  } = {},
): Launch {
  const { profile, params } = seatbeltProfile(policy, folders, realpath);
  const defines = Object.entries(params).map(([name, value]) => `-D${name}=${value}`);
  const entries = Object.entries({ ...launch.env, TMPDIR: folders.tmpDir })
    .map(([name, value]) => `${name}=${value}\0`).join("");
  // Their size in bytes on a line first: perl reads exactly so many, and leaves the rest of stdin.
  const body = new TextEncoder().encode(entries);
  const head = new TextEncoder().encode(`${body.length}\n`);
  const input = new Uint8Array(head.length + body.length);
  input.set(head);
  input.set(body, head.length);
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
      options.perl ?? SEATBELT_PERL,
      "-e",
      INSIDE,
      "--",
      options.keepStdin === true ? "1" : "0",
      options.announceStart === true ? "1" : "0",
      launch.program,
      ...launch.args,
    ],
    cwd: launch.cwd,
    env: {},
    input,
  };
}
