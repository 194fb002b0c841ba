/**
 * The Seatbelt backend: each launch runs through `sandbox-exec` with a
 * profile of its policy (`_launch.ts`, over `_profile.ts`), and a failed
 * command's stderr says whether sandbox-exec failed or Seatbelt denied it
 * something.
 *
 * @module
 */
import type { SandboxEnforcement } from "../../../seam/mod.ts";
import {
  canonicalPath,
  isBeneath,
  JOIN_FAILURE_PREFIX,
  type Launch,
  type LaunchLimits,
  type LaunchOutcome,
} from "../../../engine/mod.ts";
import {
  type ConfinedPolicy,
  deniedByLines,
  firstLine,
  LATE_SOCKETS_GAP,
  probeFailureReason,
  type ProbeOutcome,
  PROXY_PORTS_GAP,
  type SandboxBackend,
  type SandboxDenial,
  SETSID_GAP,
} from "../mod.ts";
import { SEATBELT_FAILURE_EXIT, SEATBELT_RUNNER, seatbeltLaunch } from "./_launch.ts";
import type { SeatbeltFolders } from "./_profile.ts";
import { protectedNameRegex } from "./_regex.ts";

/**
 * What every Seatbelt result says until a run of the e2e sandbox tests on a
 * Mac is recorded: the profile is built and tested here, on Linux, against
 * the rules it must produce, and against fakes of `sandbox-exec`.
 */
export const SEATBELT_UNVERIFIED_GAP = "Seatbelt: implemented, not yet verified on macOS hardware";

/** EPERM, as C tools ("Operation not permitted") and Node (the bare code) print it: Seatbelt's refusal. */
const REFUSED = /operation not permitted|\bEPERM\b/i;

/** The Seatbelt backend over `sandbox-exec` at `sandboxExec`, with the executor's `folders`. */
export function createSeatbeltBackend(
  sandboxExec: string,
  folders: SeatbeltFolders,
): SandboxBackend {
  const wrap = (
    launch: Launch,
    policy: ConfinedPolicy,
    limits?: LaunchLimits,
    keepStdin = false,
  ): Launch =>
    seatbeltLaunch(launch, sandboxExec, policy, folders, canonicalPath, {
      ...(limits === undefined ? {} : { limits }),
      keepStdin,
      announceStart: true,
    });
  return {
    name: "seatbelt",
    // The profile lets a command under an allow-list reach the proxy's port alone.
    limitsNetworkToProxyPort: true,
    wrap,
    // Its launch says when the command starts: a failure before that is the runner's.
    announcesStart: true,
    runners: (launch: Launch) => [launch.program, sandboxExec],
    // The profile goes on sandbox-exec's command line: nothing is read from a folder first.
    runnerFolders: () => [],
    // Run directly, with no plan to take the start byte out.
    probeLaunch: (launch: Launch, policy: ConfinedPolicy) =>
      seatbeltLaunch(launch, sandboxExec, policy, folders, canonicalPath),
    probeFailure: (outcome: ProbeOutcome) =>
      outcome.exitCode === 0 ? undefined : probeFailureReason(outcome),
    enforcement: seatbeltEnforcement,
    runnerFailed: seatbeltRunnerFailed,
    denied: (outcome: LaunchOutcome, policy: ConfinedPolicy, cwd: string) =>
      seatbeltRunnerFailed(outcome)
        ? undefined
        : seatbeltDenied(outcome, policy, cwd, folders.tmpDir),
  };
}

/**
 * What Seatbelt enforces for `policy`: the whole filesystem policy (a
 * protected name is refused wherever below a root it appears, made before
 * the launch or after) and the network; what the Mac run has not shown yet
 * is a gap of its own ({@linkcode SEATBELT_UNVERIFIED_GAP}), and so is a
 * process that leaves the session (no pid namespace holds it).
 */
export function seatbeltEnforcement(policy: ConfinedPolicy): SandboxEnforcement {
  return {
    filesystem: "full",
    network: "full",
    gaps: [
      SEATBELT_UNVERIFIED_GAP,
      ...(policy.network === "deny" && policy.unixSockets ? [LATE_SOCKETS_GAP] : []),
      ...(policy.network === "proxy" ? [PROXY_PORTS_GAP] : []),
      SETSID_GAP,
    ],
  };
}

/**
 * Whether the launch's own shells (a cgroup not joined, sandbox-exec not
 * run, the environment not read) or sandbox-exec itself (a profile it
 * refused, a sandbox it could not apply: `sandbox-exec: ...`) failed, not
 * the command. The launch says when its command starts (`outcome.started`,
 * which the command cannot forge): a launch that did is never the runner's
 * failure, whatever its command prints and exits with, and one that ended
 * before it always is. Only when the executor stopped waiting for that word
 * (`started` absent) does the stderr's first line decide, with the exit code.
 */
export function seatbeltRunnerFailed(outcome: LaunchOutcome): boolean {
  if (outcome.started !== undefined) return !outcome.started;
  const line = firstLine(outcome.stderrText);
  return (outcome.exitCode === SEATBELT_FAILURE_EXIT &&
    (line.startsWith(`${SEATBELT_RUNNER}: `) || line.startsWith(JOIN_FAILURE_PREFIX))) ||
    (outcome.exitCode !== 0 && line.startsWith("sandbox-exec: "));
}

/**
 * The denial a failed command met, from its stderr. Seatbelt refuses with
 * EPERM ("Operation not permitted"); the first line with a signature
 * decides. A network failure or a refused socket (see `networkDenial`) is
 * the network's when it is denied; a refusal at a mask is the policy's (see
 * `policyDenial`); one naming a path is Seatbelt's unless every path it
 * names is writable under the policy (then it is an ordinary permission
 * problem, such as a `chmod` of another user's file). EACCES ("Permission
 * denied") is the file's mode, never Seatbelt's: reads are allowed but at
 * the masks and hidden folders, which Seatbelt refuses with EPERM.
 */
export function seatbeltDenied(
  outcome: LaunchOutcome,
  policy: ConfinedPolicy,
  cwd: string,
  tmpDir: string,
): SandboxDenial | undefined {
  return deniedByLines(outcome, policy, cwd, {
    refused: REFUSED,
    writable: (path) => seatbeltWritable(path, policy, tmpDir),
  });
}

/**
 * Whether the profile of `policy` lets a command write `path` (canonical),
 * as its rules decide (see `seatbeltProfile`): the commands' TMPDIR always;
 * under `workspace-write` a path in a root, unless it lies in a read-only
 * path, under a protected name or in a hidden folder.
 */
function seatbeltWritable(path: string, policy: ConfinedPolicy, tmpDir: string): boolean {
  if (isBeneath(path, tmpDir)) return true;
  if (policy.mode !== "workspace-write") return false;
  const roots = [policy.workspaceRoot, ...policy.writableRoots];
  const hidden = [...(policy.hiddenParents ?? []), ...(policy.hiddenDirs ?? [])];
  return roots.some((root) => isBeneath(path, root)) &&
    !policy.readOnlyPaths.some((readOnly) => isBeneath(path, readOnly)) &&
    !policy.protectedPaths.some((name) => new RegExp(protectedNameRegex(name)).test(path)) &&
    !hidden.some((dir) => isBeneath(path, dir));
}
