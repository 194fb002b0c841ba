import { closeSync, fstatSync, openSync, readSync, rmSync } from "node:fs";
import process from "node:process";
import type { SandboxEnforcement } from "../../../seam/mod.ts";
import type { Launch, LaunchLimits, LaunchOutcome, LaunchStandby } from "../../../local/launch.ts";
import {
  APPLY_LIMITS,
  BASH_FLAGS,
  findOnPath,
  JOIN_FAILURE_PREFIX,
  LAUNCH_STARTED,
  limitArgs,
} from "../../../local/internal.ts";
import { existingRealpath, isBeneath } from "../../_paths.ts";
import {
  type ConfinedPolicy,
  DENIED,
  deniedPaths,
  firstLine,
  LATE_SOCKETS_GAP,
  networkDenial,
  policyDenial,
  probeFailureReason,
  type ProbeOutcome,
  PROXY_PORTS_GAP,
  type SandboxBackend,
  type SandboxDenial,
  socketRule,
} from "../_backend.ts";
import { commandFilter, type SocketRule } from "../_seccomp.ts";

/** The stderr text of a write to a read-only bind mount. */
const READ_ONLY_SIGNATURE = "Read-only file system";

/** The executor's private folders that bubblewrap shows a command. */
export interface BwrapFolders {
  /** The executor's private folder (its spill files): read-only, even inside a writable root. */
  privateDir: string;
  /** The commands' TMPDIR, inside `privateDir`: writable in every mode. */
  tmpDir: string;
}

/**
 * The bubblewrap arguments that confine a command by `policy`, in the order
 * bwrap applies them:
 * 1. The whole file system read-only, a fresh /dev and /proc, and the host's
 *    /proc/sys and /dev/shm read-only over the new ones.
 * 2. Pid and IPC namespaces, the network's too under `deny`, and no
 *    capabilities, for root as for anyone.
 * 3. The writable folders, parents first: the commands' private `tmpDir`
 *    (their TMPDIR) in every mode; under `workspace-write` the workspace and
 *    the writable roots too. Every user's folder of private folders (the
 *    policy's `hiddenParents`) becomes an empty read-only tmpfs, and the
 *    executor's own private folder is bound back read-only, also where it
 *    lies inside a writable root (a command could otherwise replace TMPDIR
 *    with a symlink, and the next launch would bind its target writable).
 * 4. Under `workspace-write`, the policy's read-only paths (the protected
 *    paths that exist, such as `<root>/.git`, and their targets) bound
 *    read-only again over the writable roots.
 * 5. Last, so that no later mount uncovers them, the masks (secrets and
 *    hidden Unix sockets): an empty mode-000 tmpfs or file over each (left out
 *    with `masks: "apart"`, for the wrapper to add those whose path is still
 *    there: see {@linkcode maskGroups}).
 * 6. The command's environment, set inside (`--clearenv`, then `--setenv`
 *    for each variable): bwrap itself runs with none of it.
 */
export function bwrapArgs(
  launch: Launch,
  policy: ConfinedPolicy,
  { privateDir, tmpDir }: BwrapFolders,
  paths: HostPaths = LOCAL_PATHS,
  masks: "inline" | "apart" = "inline",
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  // The new /proc leaves the kernel's settings writable by root (the host's
  // hostname, for one); bind the host's /proc/sys read-only over it. The new
  // /dev has a writable /dev/shm of its own; show the host's, read-only.
  args.push("--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/dev/shm", "/dev/shm");
  // Without --cap-drop, root keeps its capabilities inside and could remount
  // "/" writable; --unshare-ipc keeps it out of the host's SysV shared memory.
  // No --new-session: the executor already gave the command a session with no
  // controlling terminal (and the sandbox gets no terminal descriptor), and in
  // that session the executor's census finds the namespace's init when bwrap
  // was killed before --die-with-parent took hold (bwrap sets it after the
  // fork, unguarded), which would otherwise run on in a session of its own.
  args.push("--unshare-pid", "--unshare-ipc", "--die-with-parent");
  args.push("--cap-drop", "ALL");
  if (policy.network === "deny") args.push("--unshare-net");
  const writable = policy.mode === "workspace-write";
  const roots = writable ? [policy.workspaceRoot, ...policy.writableRoots] : [];
  type Mount = [string, "bind" | "ro-bind" | "tmpfs"];
  // Each user's folder of private folders is hidden under an empty tmpfs and
  // the executor's own folder bound back: those folders stay while executors
  // come and go, so no launch races one that removes its private folder.
  const hidden = policy.hiddenParents ?? [];
  const mounts: Mount[] = [
    [tmpDir, "bind"],
    ...roots.map((root): Mount => [root, "bind"]),
    ...hidden.map((dir): Mount => [dir, "tmpfs"]),
  ];
  if (
    roots.some((root) => isBeneath(privateDir, root)) ||
    hidden.some((dir) => isBeneath(privateDir, dir))
  ) {
    mounts.push([privateDir, "ro-bind"]);
  }
  const depth = ([path]: Mount): number => path.split("/").length;
  for (const [path, kind] of mounts.sort((a, b) => depth(a) - depth(b))) {
    args.push(`--${kind}`, ...(kind === "tmpfs" ? [path] : [path, path]));
  }
  // Read-only once the folders bound inside them have their mount points.
  for (const dir of hidden) args.push("--remount-ro", dir);
  // "-try": a path gone since the launch was planned is the sweep's to check.
  if (writable) { for (const path of policy.readOnlyPaths) args.push("--ro-bind-try", path, path); }
  // Last, so that no later mount uncovers them.
  if (masks === "inline") args.push(...maskGroups(policy).flat());
  args.push("--clearenv");
  for (const [name, value] of Object.entries({ ...launch.env, TMPDIR: tmpDir })) {
    args.push("--setenv", name, value);
  }
  const cwd = paths.realpath(launch.cwd) ?? launch.cwd;
  args.push("--chdir", cwd, "--", launch.program, ...launch.args);
  return args;
}

/**
 * The bwrap options of each of the policy's masks, one group a mask, its
 * path always last: an empty mode-000 tmpfs, read-only, over a folder; the
 * mask file over anything else. bwrap fails the whole launch when a mount's
 * destination is missing (it cannot make one in the read-only root), and a
 * masked path can go at any moment (a socket whose server quit, a temporary
 * folder removed), so the wrapper drops each group whose path is gone the
 * instant before bwrap starts: what is gone needs no mask.
 */
export function maskGroups(policy: ConfinedPolicy): string[][] {
  return policy.masks.map(({ path, directory }) =>
    directory
      ? ["--perms", "0000", "--tmpfs", path, "--remount-ro", path]
      : ["--ro-bind", policy.maskFile, path]
  );
}

/**
 * What the bwrap arguments need to know about the paths of the host that
 * runs bwrap: this machine's, or (for the remote executor) another's, whose
 * paths are taken as given.
 */
export interface HostPaths {
  /** The resolved path when it exists and can be read from here, else undefined. */
  realpath(path: string): string | undefined;
}

/** This machine's paths. */
export const LOCAL_PATHS: HostPaths = { realpath: existingRealpath };

/** Another host's paths: taken as given. */
export const REMOTE_PATHS: HostPaths = { realpath: () => undefined };

/** How the wrapper shell tells its own failure (exit code, message prefix). */
const WRAPPER_FAILURE_EXIT = 125;
const WRAPPER_NAME = "shellseam-bwrap";

/**
 * Closes every descriptor above 2 that the shell inherited: one the runtime
 * left without close-on-exec would reach into the sandbox.
 */
const CLOSE_INHERITED =
  'for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; ';

/** The descriptor on which the namespace's reporter writes its count. */
const STRAY_REPORT_FD = 9;

/** The reporter's `$0`. */
const REPORTER_NAME = "shellseam-strays";

/**
 * The first process of a bwrap launch inside the sandbox (after the
 * seccomp filter, the namespaces and the capability drop), which bwrap's
 * init ends the pid namespace with. The namespace kills every process left
 * in it the moment its first process exits, before the host can look, so
 * this small bash counts them from inside:
 * 0. It writes `LAUNCH_STARTED` to stdout: bwrap's setup is done, and the
 *    command starts now (a launch that ended before it never ran the command).
 * 1. It runs the launch (`"$@"`) as its child in the foreground, with the
 *    report descriptor closed for it, and waits for it; TERM, INT and HUP
 *    only wait with it (a trap is reset in the child, an ignored signal would not be).
 * 2. It counts the live processes of the namespace but itself and pid 1: a
 *    process whose leader is a zombie counts when one of its threads is live.
 * 3. It SIGKILLs them (`kill -9 -1`), so none writes after it, then writes
 *    the count on its own line to the report descriptor.
 * 4. It exits with the launch's status: bwrap turns a death by signal into
 *    128 + its number anyway, so the result is what it was without it.
 * It runs with `-p`: no `BASH_ENV`, no function from the environment (one
 * named `read` or `kill` would run in its place), and the launch gets the
 * environment bwrap set (its `SHLVL` one lower first, as the launch would
 * otherwise count this shell).
 */
const NAMESPACE_REPORTER = `printf '\\${LAUNCH_STARTED.toString(8).padStart(3, "0")}'; ` +
  "trap : TERM INT HUP; SHLVL=$((SHLVL - 1)); " +
  `"$@" ${STRAY_REPORT_FD}>&-; s=$?; n=0; ` +
  'for d in /proc/[1-9]*; do [ "${d#/proc/}" = 1 ] || [ "${d#/proc/}" = $$ ] && continue; ' +
  'for f in "$d/stat" "$d"/task/*/stat; do l=; { read -r l < "$f"; } 2>/dev/null; l=${l##*) }; ' +
  'case ${l%% *} in ""|Z|X|x) ;; *) n=$((n + 1)); break ;; esac; done; done; ' +
  `kill -9 -1 2>/dev/null; printf '\\n%s\\n' "$n" >&${STRAY_REPORT_FD}; exit "$s"`;

/** `launch` run by the namespace's reporter (see `NAMESPACE_REPORTER`). */
function reported(launch: Launch): Launch {
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
const OPEN_REPORT = `if [ -n "$1" ]; then { exec ${STRAY_REPORT_FD}>>"$1"; } 2>/dev/null; fi; `;

/**
 * Reads `$m` mask groups (see {@linkcode maskGroups}) from stdin, each its
 * option count then its options, NUL-terminated, and keeps in `v` those
 * whose path (the group's last option) is still there, a dangling symlink
 * included; any other input is the wrapper's failure.
 */
const READ_MASKS = 'v=(); while [ "$m" -gt 0 ] && IFS= read -r -d "" x && q=() && ' +
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
const MASKS_ON_FD5 = 'if [ "${#v[@]}" -gt 0 ]; then exec 5< <(printf "%s\\0" "${v[@]}"); ' +
  "v=(--args 5); fi; ";

/**
 * Runs outside the sandbox, before bwrap: applies the command's limits
 * (`APPLY_LIMITS`: joins its cgroups and sets its rlimits, which bwrap and
 * everything in the sandbox inherit), closes every descriptor above 2
 * (ones the runtime inherited without close-on-exec would reach into the
 * sandbox), then puts the seccomp filter (`$1`, `printf` escapes, when not
 * empty) on fd 3 for bwrap's `--seccomp 3` through a pipe: from memory, never
 * from a file a confined command could rewrite. When `$2` is a path, it
 * opens that file for appending on the report descriptor, which the
 * namespace's reporter writes its count to. With `--input` next, it reads
 * bwrap's options (the command's environment among them) from its stdin,
 * exactly those bytes (see `bwrapInput`), and puts them on fd 4 for bwrap's
 * `--args 4`, so that no command line shows them, and the masks whose path
 * is still there (`READ_MASKS`) on fd 5 (`MASKS_ON_FD5`); the command keeps the rest
 * of that stdin, or gets /dev/null. Then it execs bwrap; a bwrap
 * that cannot be run (gone since the probe) is its failure too (`execfail`).
 * It runs unconfined, so it reads no `BASH_ENV` and imports no function from
 * the environment (`-p`), and no rc file (`--norc --noprofile`: a bash
 * whose stdin is a socket, as Node gives a piped stdin, reads `~/.bashrc`).
 */
const WRAPPER = APPLY_LIMITS + CLOSE_INHERITED +
  'if [ -n "$1" ]; then exec 3< <(printf "$1"); fi; shift; ' + OPEN_REPORT + "shift; " +
  // With --input: bwrap's options come on stdin (see bwrapInput), for fd 4 and `--args 4`.
  'if [ "$1" = --input ]; then shift; IFS=" " read -r k n m && o=() && ' +
  'while [ "${#o[@]}" -lt "$n" ] && IFS= read -r -d "" e; do o+=("$e"); done; ' +
  `[ "\${#o[@]}" = "$n" ] || { echo "${WRAPPER_NAME}: no options on stdin" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}; }; ` + READ_MASKS +
  'exec 4< <(printf "%s\\0" "${o[@]}"); unset o; [ "$k" = 1 ] || exec 0</dev/null; ' +
  MASKS_ON_FD5 + 'set -- "$1" --args 4 "${v[@]}" "${@:2}"; fi; ' +
  `shopt -s execfail; exec "$@"; echo "${WRAPPER_NAME}: cannot run $1" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}`;

/**
 * What the wrapper reads on its stdin with `--input`: whether the command
 * keeps that stdin after it (`1`, else it gets /dev/null), how many options
 * follow and how many mask groups after them, on a line, then each option
 * NUL-terminated, then the mask groups (see {@linkcode maskInput}).
 */
function bwrapInput(options: string[], masks: string[][], keepStdin: boolean): Uint8Array {
  return encoder.encode(
    `${keepStdin ? 1 : 0} ${options.length} ${masks.length}\n` + nulTerminated(options) +
      maskInput(masks),
  );
}

/** Each mask group as `READ_MASKS` reads it: its option count, then its options, NUL-terminated. */
function maskInput(masks: string[][]): string {
  return masks.map((group) => nulTerminated([String(group.length), ...group])).join("");
}

/** `items`, each followed by a NUL. */
function nulTerminated(items: string[]): string {
  return items.map((item) => `${item}\0`).join("");
}

/** The filters a standby holds, in the order its input names them by index. */
const STANDBY_RULES: readonly SocketRule[] = ["none", "unix", "inet", "any"];

/**
 * A bwrap wrapper started ahead (see `LaunchStandby`): it joins the
 * cgroups named in its arguments (`APPLY_LIMITS`), closes the descriptors
 * it inherited as the wrapper does, and puts each of the four seccomp
 * filters on a pipe of its own (fds 5 to 8), all while nothing waits for
 * it. Then it waits for its input: the report file's path (or nothing) and
 * a NUL, a line `<filter index or -> <command bytes> <mask groups> <rlimit
 * entries> --`, the command, the mask groups (it keeps those whose path is
 * still there, `READ_MASKS`, for fd 5: `MASKS_ON_FD5`), then
 * bwrap's options, NUL-separated, to the end. It sets the
 * rlimits, keeps the filter named (as fd 3), opens the report file as the
 * wrapper does (then the command runs under the namespace's reporter, `$7`),
 * gives the command /dev/null for stdin and the options on fd 4
 * (which bwrap reads to the end with `--args`), and execs bwrap. The
 * reporter inside writes `LAUNCH_STARTED` once bwrap's setup is done: the
 * executor takes the launch for started only then (one whose setup failed
 * is started as usual), so a standby needs a report file. It runs with no
 * environment, so bash reads in the C locale: `read -N` counts bytes, and
 * reads exactly them.
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

const encoder = new TextEncoder();

/**
 * How a launch confined by bwrap runs in a standby (see `LaunchStandby`):
 * one for `bash [--norc --noprofile] -c <command>` (a command in pieces
 * starts as usual), with the same options and filter as
 * {@linkcode wrapInBwrap}.
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

/** `bytes` as a `printf` format that prints exactly them. */
export function printfEscaped(bytes: Uint8Array): string {
  return [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
}

/**
 * The bubblewrap backend, or why it cannot be used (no `bwrap` on
 * `searchPath`). Its seccomp filters are built for `arch`; on an
 * architecture with none, the kernel keyrings are a named gap.
 */
export function createBwrapBackend(
  searchPath: string | undefined,
  folders: BwrapFolders,
  arch: string = process.arch,
): SandboxBackend | { reason: string } {
  const bwrap = findOnPath("bwrap", searchPath ?? "");
  if (bwrap === null) {
    return { reason: '"bwrap" was not found on PATH; install bubblewrap' };
  }
  const filters = bwrapFilters(arch);
  const wrap = (
    launch: Launch,
    policy: ConfinedPolicy,
    limits?: LaunchLimits,
    keepStdin = false,
  ): Launch =>
    wrapInBwrap(bwrap, filters, launch, policy, folders, LOCAL_PATHS, limits, { keepStdin });
  return {
    name: "bwrap",
    wrap,
    standby: (launch: Launch, policy: ConfinedPolicy) =>
      bwrapStandby(bwrap, filters, launch, policy, folders),
    runners: (launch: Launch) => [launch.program, bwrap],
    // Its private folder is read-only to every command (see bwrapArgs).
    runnerFolders: () => [],
    // Its options on stdin like a call's: the probe's environment is the
    // executor's (the agent's, scrubbed), no one else's to read.
    probeLaunch: (launch: Launch, policy: ConfinedPolicy) => wrap(launch, policy),
    probeFailure: (outcome: ProbeOutcome) =>
      outcome.exitCode === 0 ? undefined : probeFailureReason(outcome),
    enforcement: (policy: ConfinedPolicy) => bwrapEnforcement(filters, policy),
    runnerFailed: bwrapRunnerFailed,
    setupRaced: bwrapSetupRaced,
    denied: bwrapDenied,
  };
}

/** Seccomp filters by the policy's socket rule, as `printf` formats. */
export interface BwrapFilters {
  none: string;
  unix: string;
  inet: string;
  any: string;
}

/** The seccomp filters for `arch` as `printf` formats, or undefined where there are none. */
export function bwrapFilters(arch: string): BwrapFilters | undefined {
  const none = commandFilter("none", arch);
  const unix = commandFilter("unix", arch);
  const inet = commandFilter("inet", arch);
  const any = commandFilter("any", arch);
  return none === undefined || unix === undefined || inet === undefined || any === undefined
    ? undefined
    : {
      none: printfEscaped(none),
      unix: printfEscaped(unix),
      inet: printfEscaped(inet),
      any: printfEscaped(any),
    };
}

/**
 * `launch` confined by `policy` under the bwrap at `bwrap` (a path on the
 * host that runs it), through the wrapper that applies `limits` and feeds
 * bwrap the seccomp filter. With the policy's `strayReport`, the launch runs
 * under the namespace's reporter, which writes to that file how many
 * processes the namespace ended (see {@linkcode readStrayReport}). With
 * `handed`, bwrap's options (the command's environment among them) go in the
 * launch's `input`, never on a command line, and the command keeps the stdin
 * after them when `keepStdin`, and the wrapper drops each mask whose path is
 * gone by then; without (a trial run with no environment of a call), they
 * are arguments.
 */
export function wrapInBwrap(
  bwrap: string,
  filters: BwrapFilters | undefined,
  launch: Launch,
  policy: ConfinedPolicy,
  folders: BwrapFolders,
  paths: HostPaths = LOCAL_PATHS,
  limits?: LaunchLimits,
  handed?: { keepStdin: boolean },
): Launch {
  const filter = filters?.[socketRule(policy)];
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

/**
 * What bwrap enforces. A namespace without interfaces confines IP networking
 * only: Unix sockets in the filesystem are refused by the seccomp filter, or masked.
 */
export function bwrapEnforcement(
  filters: BwrapFilters | undefined,
  policy: ConfinedPolicy,
): SandboxEnforcement {
  return {
    filesystem: "full",
    network: "full",
    gaps: [
      ...(policy.network === "allow"
        ? []
        : filters === undefined
        ? ["Unix sockets not confined"]
        : policy.network === "deny" && policy.unixSockets
        ? [LATE_SOCKETS_GAP]
        : []),
      ...(policy.network === "proxy" ? [PROXY_PORTS_GAP] : []),
      ...(filters === undefined
        ? [
          "kernel keyrings not confined (no seccomp filter here)",
          // Namespaced, so no way out; but the other backend refuses them.
          "System V IPC, message queues and a private loopback allowed (no seccomp filter here)",
        ]
        : []),
    ],
  };
}

/**
 * Whether bwrap or its wrapper failed (not the command), from their own
 * failure line: the wrapper's, or that of its limits (a cgroup it could not join).
 */
export function bwrapRunnerFailed(outcome: LaunchOutcome): boolean {
  const line = firstLine(outcome.stderrText);
  return (outcome.exitCode === 1 && line.startsWith("bwrap: ")) ||
    (outcome.exitCode === WRAPPER_FAILURE_EXIT &&
      (line.startsWith(`${WRAPPER_NAME}: `) || line.startsWith(JOIN_FAILURE_PREFIX)));
}

/**
 * True when bwrap failed its setup at one of the policy's masks: the path
 * went (or came) between the wrapper's look and bwrap's mount, so a launch
 * planned again, with the masks read again, may start.
 */
export function bwrapSetupRaced(stderr: string, policy: ConfinedPolicy): boolean {
  const line = firstLine(stderr);
  return line.startsWith("bwrap: ") && policy.masks.some(({ path }) => line.includes(path));
}

/**
 * The denial a failed command met, from bwrap's signatures in its stderr.
 * The first line with a signature decides, so a command that hit both
 * reports the denial it met first. A "Permission denied" naming a file is
 * the sandbox's only at a mask.
 */
export function bwrapDenied(
  outcome: LaunchOutcome,
  policy: ConfinedPolicy,
  cwd: string,
): SandboxDenial | undefined {
  if (outcome.exitCode === null || outcome.exitCode === 0) return undefined;
  const lines = outcome.stderrText.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.includes(READ_ONLY_SIGNATURE)) return "filesystem";
    if (networkDenial(line, policy)) return "network";
    if (!DENIED.test(line)) continue;
    const masked = policyDenial(lines, index, deniedPaths(line, cwd), policy);
    if (masked !== undefined) return masked;
  }
  return undefined;
}
