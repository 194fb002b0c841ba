/**
 * The bubblewrap backend: found on the search path, it wraps each launch
 * (`_wrapper.ts`, over the arguments of `_args.ts`), may run it in a standby
 * (`_standby.ts`), and reads from a failed command's stderr whether bwrap
 * failed or denied it something.
 *
 * @module
 */
import { dirname } from "node:path";
import process from "node:process";
import type { SandboxEnforcement } from "../../../seam/mod.ts";
import type { Launch, LaunchLimits, LaunchOutcome } from "../../../engine/mod.ts";
import { findOnPath, JOIN_FAILURE_PREFIX } from "../../../engine/mod.ts";
import {
  type BackendKind,
  type ConfinedPolicy,
  DENIED,
  deniedByLines,
  firstLine,
  LATE_SOCKETS_GAP,
  type PrepareContext,
  probeFailureReason,
  type ProbeOutcome,
  PROXY_PORTS_GAP,
  type SandboxBackend,
  type SandboxDenial,
  socketRule,
} from "../mod.ts";
import { type BwrapFolders, LOCAL_PATHS } from "./_args.ts";
import { WRAPPER_FAILURE_EXIT, WRAPPER_NAME } from "./_shell.ts";
import { bwrapStandby } from "./_standby.ts";
import { seccompFilterFiles } from "./_filter_files.ts";
import { wrapInBwrap } from "./_wrapper.ts";

/** The stderr text of a write to a read-only bind mount. */
const READ_ONLY_SIGNATURE = "Read-only file system";

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
  const filters = seccompFilterFiles(folders.privateDir, arch);
  const wrap = (
    launch: Launch,
    policy: ConfinedPolicy,
    limits?: LaunchLimits,
    keepStdin = false,
  ): Launch =>
    wrapInBwrap(
      bwrap,
      // Checked (and written when gone or changed) as each launch is made.
      filters?.current(socketRule(policy)).path,
      launch,
      policy,
      folders,
      LOCAL_PATHS,
      limits,
      { keepStdin },
    );
  return {
    name: "bwrap",
    // bwrap sets up every namespace, mount and filter before it runs the
    // command, or fails; its probe only says whether it ran `true`.
    launchesBeforeProbe: true,
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
    enforcement: (policy: ConfinedPolicy) => bwrapEnforcement(filters !== undefined, policy),
    runnerFailed: bwrapRunnerFailed,
    setupRaced: bwrapSetupRaced,
    denied: bwrapDenied,
  };
}

/**
 * What bwrap enforces, `filtered` by a seccomp filter or not (an architecture
 * without one). A namespace without interfaces confines IP networking
 * only: Unix sockets in the filesystem are refused by the seccomp filter, or masked.
 */
export function bwrapEnforcement(filtered: boolean, policy: ConfinedPolicy): SandboxEnforcement {
  return {
    filesystem: "full",
    network: "full",
    gaps: [
      ...(policy.network === "allow"
        ? []
        : !filtered
        ? ["Unix sockets not confined"]
        : policy.network === "deny" && policy.unixSockets
        ? [LATE_SOCKETS_GAP]
        : []),
      ...(policy.network === "proxy" ? [PROXY_PORTS_GAP] : []),
      ...(!filtered
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
 * bwrap's failure when the host's mount table changed while it bound the root:
 * a mount listed, then gone (or come), before bwrap remounted it read-only
 * (bubblewrap issue 650). Nothing of the policy is wrong; a launch again starts.
 */
const MOUNT_TABLE_RACE = "Unable to apply mount flags: remount ";

/**
 * True when bwrap failed its setup at a path that changed under it, so a
 * launch planned again may start. Either:
 * 1. at one of the policy's masks: the path went (or came) between the
 *    wrapper's look and bwrap's mount, and the masks are read again; or
 * 2. at a mount of the host that came or went while bwrap remounted the
 *    bound tree read-only (`MOUNT_TABLE_RACE`).
 *
 * The engine asks only of a launch that ended before its command started
 * (see `LaunchPlan.announcesStart`), so the command's own words never count.
 */
export function bwrapSetupRaced(stderr: string, policy: ConfinedPolicy): boolean {
  const line = firstLine(stderr);
  return line.startsWith("bwrap: ") &&
    (line.includes(MOUNT_TABLE_RACE) || policy.masks.some(({ path }) => line.includes(path)));
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
  return deniedByLines(outcome, policy, cwd, {
    refused: DENIED,
    first: (line) => line.includes(READ_ONLY_SIGNATURE) ? "filesystem" : undefined,
  });
}

/**
 * The bwrap backend as the sandbox finds it: it needs `bwrap` on the search
 * path and the commands' TMPDIR in the executor's private folder.
 */
export const BWRAP_KIND: BackendKind = {
  name: "bwrap",
  platform: "linux",
  async prepare(context: PrepareContext): Promise<SandboxBackend | { reason: string }> {
    const tmpDir = await context.privateFolder("tmp", "TMPDIR");
    if (typeof tmpDir !== "string") return tmpDir;
    return createBwrapBackend(context.searchPath, { privateDir: dirname(tmpDir), tmpDir });
  },
};
