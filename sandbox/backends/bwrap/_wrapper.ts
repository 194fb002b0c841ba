/**
 * The wrapper: the bash that runs outside the sandbox right before bwrap,
 * applying the command's limits and handing bwrap its seccomp filter, its
 * options and its masks on descriptors, never on a command line.
 *
 * @module
 */
import type { Launch, LaunchLimits } from "../../../engine/mod.ts";
import { APPLY_LIMITS, BASH_FLAGS, joinedBytes, limitArgs } from "../../../engine/mod.ts";
import { commandFilters, type ConfinedPolicy, execOrFail, STDIN_UNLESS_KEPT } from "../mod.ts";
import { bwrapArgs, type BwrapFolders, type HostPaths, LOCAL_PATHS, maskGroups } from "./_args.ts";
import { OPEN_REPORT, reported } from "./_reporter.ts";
import {
  CLOSE_INHERITED,
  encoder,
  maskEntries,
  OPEN_FILTER,
  READ_MASKS,
  READ_OPTIONS,
  READ_SIZES,
  sizedEntries,
  WRAPPER_NAME,
} from "./_shell.ts";

/**
 * The wrapper's shell, run outside the sandbox right before bwrap. In order:
 * 1. It applies the command's limits (`APPLY_LIMITS`: joins its cgroups and
 *    sets its rlimits, which bwrap and everything in the sandbox inherit).
 * 2. It closes every descriptor above 2 (`CLOSE_INHERITED`): one the runtime
 *    inherited without close-on-exec would reach into the sandbox.
 * 3. It opens the seccomp filter `$1` as fd 3 for bwrap's `--seccomp 3`
 *    (`OPEN_FILTER`): a file of the executor's private folder, which no
 *    confined command can write, or a remote host's `printf` escapes on a pipe.
 * 4. When `$2` is a path, it opens that file for appending on the report
 *    descriptor (`OPEN_REPORT`), which the namespace's reporter writes its count to.
 * 5. With `--input` next, it reads bwrap's options (the command's
 *    environment among them) from its stdin, exactly those bytes, each
 *    entry by its size (see `bwrapInput` and `READ_SIZES`), then the mask
 *    groups, keeping those whose path is still there (`READ_MASKS`), and
 *    puts both on fd 4 for bwrap's `--args 4`, the masks last (so they
 *    mount last), through one pipe (each costs a fork of bash), so that no
 *    command line shows them. The command keeps the rest of that stdin, or
 *    gets /dev/null.
 * 6. It execs bwrap; a bwrap that cannot be run (gone since the probe) is
 *    its failure too (`execfail`).
 *
 * It runs unconfined, so it reads no `BASH_ENV` and imports no function from
 * the environment (`-p`), and no rc file (`--norc --noprofile`: a bash
 * whose stdin is a socket, as Node gives a piped stdin, reads `~/.bashrc`).
 */
const WRAPPER = APPLY_LIMITS + CLOSE_INHERITED + OPEN_FILTER + "shift; " + OPEN_REPORT + "shift; " +
  // With --input: bwrap's options come on stdin (see bwrapInput), for fd 4 and `--args 4`.
  'if [ "$1" = --input ]; then shift; IFS=" " read -r k n m h; ' + READ_SIZES + READ_OPTIONS +
  READ_MASKS + 'exec 4< <(printf "%s\\0" "${o[@]}" "${v[@]}"); unset o v; ' + STDIN_UNLESS_KEPT +
  'set -- "$1" --args 4 "${@:2}"; fi; ' + execOrFail(WRAPPER_NAME);

/**
 * What the wrapper reads on its stdin with `--input`: whether the command
 * keeps that stdin after it (`1`, else it gets /dev/null), how many options
 * follow, how many mask groups after them and how many bytes the sizes take,
 * on a line; then the sizes and the entries (see `sizedEntries`): each
 * option, then the mask groups (see `maskEntries`).
 */
function bwrapInput(options: string[], masks: string[][], keepStdin: boolean): Uint8Array {
  const { sizes, body } = sizedEntries([...options, ...maskEntries(masks)]);
  return joinedBytes([
    encoder.encode(`${keepStdin ? 1 : 0} ${options.length} ${masks.length} ${sizes.length}\n`),
    sizes,
    body,
  ]);
}

/** `bytes` as a `printf` format that prints exactly them. */
export function printfEscaped(bytes: Uint8Array): string {
  return [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
}

/** Seccomp filters by the policy's socket rule, as `printf` formats (a remote host's wrapper's). */
export interface BwrapFilters {
  none: string;
  unix: string;
  inet: string;
  any: string;
}

/** The seccomp filters for `arch` as `printf` formats, or undefined where there are none. */
export function bwrapFilters(arch: string): BwrapFilters | undefined {
  const filters = commandFilters(arch);
  return filters === undefined ? undefined : {
    none: printfEscaped(filters.none),
    unix: printfEscaped(filters.unix),
    inet: printfEscaped(filters.inet),
    any: printfEscaped(filters.any),
  };
}

/**
 * `launch` confined by `policy` under the bwrap at `bwrap` (a path on the
 * host that runs it), through the wrapper that applies `limits` and feeds
 * bwrap the seccomp `filter` (see `OPEN_FILTER`: the path of a file holding
 * it, or its bytes as `printf` escapes; none when undefined). With the
 * policy's `strayReport`, the launch runs under the namespace's reporter,
 * which writes to that file how many processes the namespace ended (see
 * `readStrayReport` in `_reporter.ts`). With `handed`, bwrap's options
 * (the command's environment among them) go in the launch's `input`, never
 * on a command line, and the command keeps the stdin after them when
 * `keepStdin`, and the wrapper drops each mask whose path is gone by then;
 * without (a trial run with no environment of a call), they are arguments.
 */
export function wrapInBwrap(
  bwrap: string,
  filter: string | undefined,
  launch: Launch,
  policy: ConfinedPolicy,
  folders: BwrapFolders,
  paths: HostPaths = LOCAL_PATHS,
  limits?: LaunchLimits,
  handed?: { keepStdin: boolean },
): Launch {
  const report = policy.strayReport;
  const inner = report === undefined ? launch : reported(launch);
  // Handed, the masks go apart, for the wrapper to drop those whose path is gone.
  const args = bwrapArgs(inner, policy, folders, paths, handed === undefined ? "inline" : "apart");
  if (filter !== undefined) args.unshift("--seccomp", "3");
  // Everything before the command's own "--" (the environment among it) goes on stdin.
  const options = handed === undefined ? [] : args.splice(0, args.length - inner.args.length - 2);
  return {
    program: launch.program,
    args: [
      ...BASH_FLAGS,
      "-p",
      "-c",
      WRAPPER,
      WRAPPER_NAME,
      ...limitArgs(limits?.rlimits ?? {}, limits?.cgroupProcs),
      filter ?? "",
      report ?? "",
      ...(handed === undefined ? [] : ["--input"]),
      bwrap,
      ...args,
    ],
    cwd: launch.cwd,
    // The wrapper shell, the setsid binary before it and bwrap run unconfined:
    // none of the command's environment reaches them (LD_PRELOAD or
    // LD_LIBRARY_PATH into a writable root would load a planted library).
    env: {},
    ...(handed === undefined
      ? {}
      : { input: bwrapInput(options, maskGroups(policy), handed.keepStdin) }),
  };
}
