/**
 * What every sandbox backend is and shares: the interface a backend
 * implements (`SandboxBackend`, over a `ConfinedPolicy`), how a refusal in a
 * command's stderr is read as the sandbox's denial (`_backend.ts`), and the
 * seccomp filters both Linux backends install (`_seccomp.ts`). Each backend
 * is a folder beside this file (`bwrap/`, `landlock/`) with a `mod.ts` of
 * its own, which builds on this one and never on another backend.
 * `seatbelt/`, for macOS, holds the profile and launch of a backend that is
 * not a backend kind yet (its name is not a `SandboxBackendName`).
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public
 * but `SandboxBackendName`, which `sandbox/mod.ts` exports.
 *
 * @module
 */
export {
  type BackendKind,
  type ConfinedPolicy,
  DENIED,
  deniedPaths,
  firstLine,
  LATE_SOCKETS_GAP,
  networkDenial,
  policyDenial,
  type PrepareContext,
  probeFailureReason,
  type ProbeOutcome,
  PROXY_PORTS_GAP,
  type SandboxBackend,
  type SandboxBackendName,
  type SandboxDenial,
  socketRule,
} from "./_backend.ts";
export { commandFilter, type SocketRule } from "./_seccomp.ts";
