import process from "node:process";
import type { SandboxEnforcement } from "../../seam/mod.ts";
import type { Launch, LaunchOutcome } from "../../local/launch.ts";
import { findOnPath } from "../../local/_session.ts";
import { existingRealpath, isBeneath } from "../_paths.ts";
import {
  type ConfinedPolicy,
  firstLine,
  NETWORK_FAILURE,
  probeFailureReason,
  type ProbeOutcome,
  type SandboxBackend,
  type SandboxDenial,
} from "./_backend.ts";
import { AF_INET, AF_INET6, AF_NETLINK, AF_UNIX, seccompFilter } from "./_seccomp.ts";

/** The stderr text of a write to a read-only bind mount. */
const READ_ONLY_SIGNATURE = "Read-only file system";

/**
 * The bubblewrap arguments that confine a command by `policy`:
 * everything read-only (the kernel's settings in /proc/sys included), a
 * fresh /dev, /proc and private /tmp, pid and IPC namespaces,
 * no capabilities (root included), and under
 * `workspace-write` the workspace and writable roots bound writable with
 * `<root>/.git` re-bound read-only. The entries of /tmp holding the
 * workspace, the writable roots or the working directory are bound back
 * read-only over the private /tmp; binds go parents first.
 */
export function bwrapArgs(
  launch: Launch,
  policy: ConfinedPolicy,
  paths: HostPaths = LOCAL_PATHS,
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  // The new /proc leaves the kernel's settings writable by root (the host's
  // hostname, for one); bind the host's /proc/sys read-only over it.
  args.push("--ro-bind", "/proc/sys", "/proc/sys", "--tmpfs", "/tmp");
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
  const binds = new Map<string, boolean>();
  const cwd = paths.realpath(launch.cwd) ?? launch.cwd;
  const roots = [policy.workspaceRoot, ...policy.writableRoots];
  for (const path of [...roots, cwd]) {
    const top = underTmp(path);
    if (top !== undefined) binds.set(top, false);
  }
  if (writable) { for (const root of roots) binds.set(root, true); }
  const depth = (path: string): number => path.split("/").length;
  for (const [path, rw] of [...binds].sort(([a], [b]) => depth(a) - depth(b))) {
    args.push(rw ? "--bind" : "--ro-bind", path, path);
  }
  if (writable && paths.known) {
    const git = paths.realpath(`${policy.workspaceRoot}/.git`);
    if (git !== undefined) args.push("--ro-bind", git, git);
  } else if (writable) {
    // Unknown here (another host): bound read-only where it exists when bwrap starts.
    const git = `${policy.workspaceRoot}/.git`;
    args.push("--ro-bind-try", git, git);
  }
  args.push("--chdir", cwd, "--", launch.program, ...launch.args);
  return args;
}

/**
 * What the bwrap arguments need to know about the paths of the host that
 * runs bwrap: this machine's, or (for the remote executor) another's, whose
 * paths are taken as given and whose `.git` is bound where it exists.
 */
export interface HostPaths {
  /** The resolved path when it exists (known hosts), else undefined. */
  realpath(path: string): string | undefined;
  /** False for a host whose filesystem cannot be read from here. */
  known: boolean;
}

/** This machine's paths. */
export const LOCAL_PATHS: HostPaths = { realpath: existingRealpath, known: true };

/** Another host's paths: taken as given. */
export const REMOTE_PATHS: HostPaths = { realpath: () => undefined, known: false };

/**
 * The entry of /tmp that holds `path` (`/tmp` itself for `/tmp`), or
 * undefined when `path` is not under /tmp. The private /tmp hides it, so it
 * is bound back read-only: the tree around a workspace under /tmp stays as
 * visible (and as unwritable) as it would be elsewhere.
 */
function underTmp(path: string): string | undefined {
  if (!isBeneath(path, "/tmp")) return undefined;
  return path.split("/").slice(0, 3).join("/");
}

/** The socket families a command may create with the network denied: all namespaced. */
const DENY_FAMILIES: readonly number[] = [AF_UNIX, AF_NETLINK, AF_INET, AF_INET6];

/** How the wrapper shell tells its own failure (exit code, message prefix). */
const WRAPPER_FAILURE_EXIT = 125;
const WRAPPER_NAME = "shellseam-bwrap";

/**
 * Runs outside the sandbox, before bwrap: closes every descriptor above 2
 * (ones the runtime inherited without close-on-exec would reach into the
 * sandbox), then puts the seccomp filter (`$1`, `printf` escapes, when not
 * empty) on fd 3 for bwrap's `--seccomp 3` through a pipe: from memory, never
 * from a file a confined command could rewrite. Then it execs bwrap; a bwrap
 * that cannot be run (gone since the probe) is its failure too (`execfail`).
 * It runs unconfined, so it reads no `BASH_ENV` and imports no function from
 * the environment (`-p`).
 */
const WRAPPER =
  'for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; ' +
  'done; if [ -n "$1" ]; then exec 3< <(printf "$1"); fi; shift; ' +
  `shopt -s execfail; exec "$@"; echo "${WRAPPER_NAME}: cannot run $1" >&2; ` +
  `exit ${WRAPPER_FAILURE_EXIT}`;

/** `bytes` as a `printf` format that prints exactly them. */
function printfEscaped(bytes: Uint8Array): string {
  return [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
}

/**
 * The bubblewrap backend, or why it cannot be used (no `bwrap` on
 * `searchPath`). Its seccomp filters are built for `arch`; on an
 * architecture with none, the kernel keyrings are a named gap.
 */
export function createBwrapBackend(
  searchPath: string | undefined,
  arch: string = process.arch,
): SandboxBackend | { reason: string } {
  const bwrap = findOnPath("bwrap", searchPath ?? "");
  if (bwrap === null) {
    return { reason: '"bwrap" was not found on PATH; install bubblewrap' };
  }
  const filters = bwrapFilters(arch);
  const wrap = (launch: Launch, policy: ConfinedPolicy): Launch =>
    wrapInBwrap(bwrap, filters, launch, policy);
  return {
    name: "bwrap",
    wrap,
    runners: (launch: Launch) => [launch.program, bwrap],
    probeLaunch: wrap,
    probeFailure: (outcome: ProbeOutcome) =>
      outcome.exitCode === 0 ? undefined : probeFailureReason(outcome),
    // Sockets bound in the host's filesystem stay reachable: a namespace without
    // interfaces confines IP networking only.
    enforcement: (policy: ConfinedPolicy) => bwrapEnforcement(filters, policy),
    runnerFailed: bwrapRunnerFailed,
    denied: bwrapDenied,
  };
}

/** The seccomp filters for `arch` as `printf` formats, or undefined where there are none. */
export function bwrapFilters(arch: string): BwrapFilters | undefined {
  const deny = seccompFilter({ socketFamilies: DENY_FAMILIES }, arch);
  const allow = seccompFilter({}, arch);
  return deny === undefined || allow === undefined
    ? undefined
    : { deny: printfEscaped(deny), allow: printfEscaped(allow) };
}

/** Seccomp filters by the policy's network, as `printf` formats. */
export interface BwrapFilters {
  deny: string;
  allow: string;
}

/**
 * `launch` confined by `policy` under the bwrap at `bwrap` (a path on the
 * host that runs it), through the wrapper that feeds it the seccomp filter.
 */
export function wrapInBwrap(
  bwrap: string,
  filters: BwrapFilters | undefined,
  launch: Launch,
  policy: ConfinedPolicy,
  paths: HostPaths = LOCAL_PATHS,
): Launch {
  const filter = filters?.[policy.network];
  const args = bwrapArgs(launch, policy, paths);
  if (filter !== undefined) args.unshift("--seccomp", "3");
  return {
    program: launch.program,
    args: ["-p", "-c", WRAPPER, WRAPPER_NAME, filter ?? "", bwrap, ...args],
    cwd: launch.cwd,
    env: { ...launch.env, TMPDIR: "/tmp" },
  };
}

/** What bwrap enforces; sockets bound in the filesystem stay reachable (no interfaces confine IP only). */
export function bwrapEnforcement(
  filters: BwrapFilters | undefined,
  policy: ConfinedPolicy,
): SandboxEnforcement {
  return {
    filesystem: "full",
    network: "full",
    gaps: [
      ...(policy.network === "deny" ? ["Unix sockets not confined"] : []),
      ...(filters === undefined ? ["kernel keyrings not confined (no seccomp filter here)"] : []),
    ],
  };
}

/** Whether bwrap or its wrapper failed (not the command). */
export function bwrapRunnerFailed(outcome: LaunchOutcome): boolean {
  return (outcome.exitCode === 1 && firstLine(outcome.stderrText).startsWith("bwrap: ")) ||
    (outcome.exitCode === WRAPPER_FAILURE_EXIT &&
      firstLine(outcome.stderrText).startsWith(`${WRAPPER_NAME}: `));
}

/**
 * The denial a failed command met, from bwrap's signatures in its stderr;
 * the first line with a signature decides, so a command that hit both
 * reports the denial it met first.
 */
export function bwrapDenied(
  outcome: LaunchOutcome,
  policy: ConfinedPolicy,
): SandboxDenial | undefined {
  if (outcome.exitCode === null || outcome.exitCode === 0) return undefined;
  for (const line of outcome.stderrText.split("\n")) {
    if (line.includes(READ_ONLY_SIGNATURE)) return "filesystem";
    if (policy.network === "deny" && NETWORK_FAILURE.test(line)) return "network";
  }
  return undefined;
}
