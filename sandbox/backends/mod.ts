/**
 * What every sandbox backend is and shares: the interface a backend
 * implements (`SandboxBackend`, over a `ConfinedPolicy`), how a refusal in a
 * command's stderr is read as the sandbox's denial (`_backend.ts`), the
 * masks every backend lays over the secrets and sockets a command must not
 * reach (`_masks.ts`), the seccomp filters both Linux backends install
 * (`_seccomp.ts`), and the pieces of shell their runners share
 * (`_shell.ts`). Each backend
 * is a folder beside this file (`bwrap/`, `landlock/`) with a `mod.ts` of
 * its own, which builds on this one and never on another backend:
 * `bwrap/` and `landlock/` on Linux, `seatbelt/` on macOS.
 *
 * This folder's surface for the rest of `sandbox/` and for `remote/`, which
 * confines commands on a remote host with the same policy and masks;
 * nothing here is public but `SandboxBackendName`, which `sandbox/mod.ts`
 * exports.
 *
 * @module
 */
export {
  type BackendKind,
  type ConfinedPolicy,
  DENIED,
  deniedByLines,
  firstLine,
  LATE_SOCKETS_GAP,
  type PrepareContext,
  type PrepareRefusal,
  probeFailureReason,
  type ProbeOutcome,
  PROXY_PORTS_GAP,
  type RefusalSigns,
  type SandboxBackend,
  type SandboxBackendName,
  type SandboxDenial,
  type SelfProbeCheck,
  SETSID_GAP,
  socketRule,
} from "./_backend.ts";
export {
  checkedPolicyPaths,
  expandHome,
  makeMaskFile,
  type Mask,
  type MaskFs,
  outermost,
  secretMasks,
  socketMasks,
} from "./_masks.ts";
export { commandFilter, commandFilters, type SocketRule } from "./_seccomp.ts";
export {
  closeInherited,
  execOrFail,
  PRINT_START,
  RUNNER_FAILURE_EXIT,
  STDIN_UNLESS_KEPT,
} from "./_shell.ts";
export type { LaunchStandby, SetUpLaunch } from "./_standby.ts";
