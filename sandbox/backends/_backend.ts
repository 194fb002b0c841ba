import type {
  BashExecRequest,
  BashRunResult,
  BashSandboxInfo,
  SandboxEnforcement,
} from "../../seam/mod.ts";
import type { Launch, LaunchLimits, LaunchOutcome } from "../../engine/mod.ts";
import type { LaunchStandby } from "./_standby.ts";
import { resolve } from "node:path";
import type { Mask } from "./_masks.ts";
import type { SocketRule } from "./_seccomp.ts";
import { canonicalPath, isBeneath } from "../../engine/mod.ts";

/** Which access a command was denied. */
export type SandboxDenial = NonNullable<BashSandboxInfo["denial"]>;

/**
 * The name of a confining backend.
 *
 * @example
 * ```ts
 * import { SANDBOX_BACKENDS, type SandboxBackendName } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const macOS: SandboxBackendName = "seatbelt";
 * assert.ok(SANDBOX_BACKENDS.includes(macOS));
 * ```
 */
export type SandboxBackendName = "bwrap" | "landlock" | "seatbelt";

/**
 * A confined policy, ready to enforce: every path canonical and existing.
 */
export interface ConfinedPolicy {
  /** A confined mode. */
  mode: "read-only" | "workspace-write";
  /** The workspace root. */
  workspaceRoot: string;
  /** The writable roots that exist (outside read-only mode they are writable). */
  writableRoots: string[];
  /**
   * Whether the network is reachable: not at all, the host's, or (`proxy`,
   * an allow-list) only through the executor's proxy: through the bridge, in
   * a network namespace of the command's own that the executor makes around
   * the backend, or, for a backend that limits the network to one port
   * itself, at `proxyPort`.
   */
  network: "deny" | "allow" | "proxy";
  /**
   * Under `proxy`, for a backend that limits the network to the proxy's
   * port itself (see `SandboxBackend.limitsNetworkToProxyPort`): the TCP
   * port of 127.0.0.1 on which the launch's proxy listens.
   */
  proxyPort?: number;
  /** The protected names, relative to each writable root (see `SandboxPolicy.protectedPaths`). */
  protectedPaths: string[];
  /**
   * Existing paths in the writable roots to keep read-only under
   * `workspace-write`: the protected paths found at launch and the targets of
   * their symlinks and git pointers (none beneath another).
   */
  readOnlyPaths: string[];
  /**
   * Under network `deny`: whether a Unix socket may be created at all (only
   * when `allowUnixSockets` lists some; the other sockets are then masked).
   */
  unixSockets: boolean;
  /** The paths covered by an empty mode-000 directory or file: secrets, hidden sockets. */
  masks: Mask[];
  /** The empty mode-000 file that files and sockets are masked with. */
  maskFile: string;
  /**
   * The command runs in a terminal (`BashExecRequest.terminal`): the backend
   * lets it open one of its own, and no other (bwrap's `--dev /dev` does so
   * for every command).
   */
  terminal?: boolean;
  /**
   * Folders a command sees empty, one by one: the private folders of other
   * executors (their spill files are other sessions' output) and other
   * users' folders of them. None holds a root or the working directory.
   */
  hiddenDirs?: string[];
  /**
   * Every user's folder of private folders (`shellseam-u<uid>`), this
   * executor's own included: a backend may hide these whole and bind its own
   * private folder back, which no executor removing its folder can race.
   * None holds a root or the working directory.
   */
  hiddenParents?: string[];
  /**
   * bwrap only: a file in the executor's private folder to which the launch's
   * pid namespace reports how many processes it ended with the command's shell
   * (see `readStrayReport`). Without it, nothing is reported.
   */
  strayReport?: string;
}

/** How a probe command ended. */
export interface ProbeOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** One way to confine a command; prepared for one executor, probed before use. */
export interface SandboxBackend {
  readonly name: SandboxBackendName;
  /** The kernel's Landlock ABI as the probe found it (the Landlock backend only). */
  readonly landlockAbi?: () => number;
  /** What its self-probe found, when it runs one (see {@linkcode SelfProbeCheck}). */
  readonly selfProbe?: () => SelfProbeCheck[];
  /**
   * True when the backend itself lets a command under network `proxy` reach
   * only the TCP port `ConfinedPolicy.proxyPort` of 127.0.0.1 (Seatbelt's
   * profile names it): such a launch needs no bridge, and its proxy listens
   * on that port. Absent: the bridge carries the command's connections.
   */
  readonly limitsNetworkToProxyPort?: boolean;
  /**
   * True when a launch of it may start before its probe ended: the launch
   * either runs its command confined as the probe would find it, or fails
   * before the command runs, and the probe learns nothing that a launch or
   * its facts depend on (bwrap). An executor whose first possible backend
   * it is then launches its first call before the probe ended, and awaits
   * the probe's verdict before the call's result (see `LaunchPlan.verdict`)
   * unless the launch said its command started, which proves the backend
   * in place of the probe's launch (see `BackendProbes.proven`);
   * with other backends after it, only a launch that says when its command
   * starts, so that one that did not start can be planned again under the
   * next backend when the probe refuses this one.
   */
  readonly launchesBeforeProbe?: boolean;
  /**
   * True when its wrapped launch (by `wrap`) writes `LAUNCH_STARTED` first on
   * stdout once the command starts (its plan then announces its start, and a
   * launch that ended without it is the runner's failure).
   */
  readonly announcesStart?: boolean;
  /**
   * `launch` wrapped so that it runs confined by `policy`, with `limits`
   * applied before it starts (none when absent). The command's environment
   * goes in the wrapped launch's `input`, never on a command line; the
   * command keeps the stdin after it when `keepStdin`, else gets /dev/null.
   */
  wrap(launch: Launch, policy: ConfinedPolicy, limits?: LaunchLimits, keepStdin?: boolean): Launch;
  /** How `launch` confined by `policy` can run in a standby, when it can (see `LaunchStandby`). */
  standby?(launch: Launch, policy: ConfinedPolicy): LaunchStandby | undefined;
  /** The programs that run before the confinement applies, for `launch`. */
  runners(launch: Launch): string[];
  /**
   * The folders those programs read or bind before the confinement applies
   * (the commands' TMPDIR, the Landlock launcher's folder), each with what it is.
   */
  runnerFolders(): { name: string; path: string }[];
  /** `launch` (a trivial command) wrapped to probe this backend under `policy`. */
  probeLaunch(launch: Launch, policy: ConfinedPolicy): Launch;
  /** Why the probe failed, or undefined when it worked (it may record what it learnt). */
  probeFailure(outcome: ProbeOutcome): string | undefined;
  /** What this backend enforces for `policy` on this machine. */
  enforcement(policy: ConfinedPolicy): SandboxEnforcement;
  /** True when the backend itself failed before the command ran. */
  runnerFailed(outcome: LaunchOutcome): boolean;
  /**
   * True when a launch that ended before its command started (see
   * `LaunchPlan.announcesStart`) failed at a path of the policy that changed
   * since the launch was planned (a masked socket gone): planned again, it
   * may start. Absent for a backend whose runner skips such a path itself.
   */
  setupRaced?(stderr: string, policy: ConfinedPolicy): boolean;
  /**
   * Which access a failed command was denied, from the first stderr line that
   * carries this backend's denial signature; undefined when none does.
   */
  denied(
    outcome: LaunchOutcome,
    policy: ConfinedPolicy,
    cwd: string,
  ): SandboxDenial | undefined;
  /**
   * Puts back, before a launch, what the backend wrote at its preparation
   * and an unconfined command may have removed or changed (the Landlock
   * launcher's file); throws `BashSpawnError` when it cannot.
   */
  restore?(): void;
}

/**
 * One check of a backend's self-probe: what a command confined by it tried,
 * and whether the sandbox refused it (it holds when it did).
 */
export interface SelfProbeCheck {
  /** What the command tried, in words ("a write outside the writable roots"). */
  probe: string;
  /** True when the sandbox refused it. */
  refused: boolean;
}

/**
 * Why a backend cannot run here, and what its self-probe found when that
 * is why (see `SandboxBackend.selfProbe`).
 */
export interface PrepareRefusal {
  /** Why, in words. */
  reason: string;
  /** The self-probe's checks, when the backend ran one and it failed. */
  selfProbe?: SelfProbeCheck[];
  /**
   * What to do, for an error that has no other backend to offer, when the
   * reason is not a missing program (see `SandboxBackendStatus.reason`).
   */
  remedy?: string;
}

/** What preparing a backend may use of the executor (see {@linkcode BackendKind}). */
export interface PrepareContext {
  /** Where the backend's programs are looked up (PATH-style). */
  searchPath: string | undefined;
  /** How long one of its probes may take. */
  probeTimeoutMs: number;
  /**
   * A folder `name` of the executor's private folder (0700, made again when
   * an unconfined command removed it), by its canonical path, or why it
   * cannot be made (`purpose` names it in that reason).
   */
  privateFolder(name: string, purpose: string): Promise<string | { reason: string }>;
  /**
   * Why `program` must not run unconfined: it lies where a confined command
   * could have replaced it (the workspace, a writable root; see
   * `sandbox/_exposure.ts`), or the setsid binary or the host's tools in
   * front of every run do. Undefined when it may run; asked before each
   * program a preparation runs (`runDirect` refuses one all the same).
   */
  exposed(program: string): PrepareRefusal | undefined;
  /** Runs `request` unconfined, its bare launch changed by `wrap` (a probe of what the backend needs). */
  runDirect(request: BashExecRequest, wrap: (launch: Launch) => Launch): Promise<BashRunResult>;
}

/**
 * A kind of backend, as the sandbox finds it: its name, and how it is made
 * ready on this machine, or why it cannot be. Each backend's folder exports
 * one; `sandbox/_backend_kinds.ts` lists them in the order of preference.
 */
export interface BackendKind {
  /** The backend's name. */
  readonly name: SandboxBackendName;
  /**
   * The platform (`process.platform`) it confines commands on: elsewhere it
   * is refused before it is prepared (see `sandbox/_backend_kinds.ts`).
   */
  readonly platform: "linux" | "darwin";
  /** The backend ready to probe, or why it cannot run here. */
  prepare(context: PrepareContext): Promise<SandboxBackend | PrepareRefusal>;
}

/**
 * What clients print when a connection or a name lookup fails. Under network
 * `deny` both backends leave a command no network at all (IP sockets refused;
 * under bwrap also a network namespace of its own), so such a failure is the
 * sandbox's doing.
 */
export const NETWORK_FAILURE: RegExp =
  /Network is unreachable|Connection refused|Couldn't connect to server|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)/i;

/** What a network allow-list does not narrow. */
export const PROXY_PORTS_GAP =
  "network allow-list: every port of an allowed host is reachable (destinations are checked by name and address, not port)";

/**
 * Without a pid namespace (Landlock, Seatbelt), a process that leaves the
 * session escapes the kill census; a kill still finds it by the marker in
 * its environment, unless it dropped that.
 */
export const SETSID_GAP =
  "processes that call setsid and drop SHELLSEAM_WATCHDOG from their environment outlive kills and disposal";

/** With `allowUnixSockets`, only the sockets bound at launch are masked. */
export const LATE_SOCKETS_GAP =
  "Unix sockets bound after the command started (or by a relative path) not confined";

/** Which socket rule of the seccomp filter `policy` needs (a key to build each filter once). */
export function socketRule(policy: ConfinedPolicy): SocketRule {
  if (policy.network === "allow") return "any";
  if (policy.network === "proxy") return "inet";
  return policy.unixSockets ? "unix" : "none";
}

/**
 * EACCES as C tools ("Permission denied"), Node's fs ("permission denied")
 * and Node's net (the bare code) print it.
 */
export const DENIED: RegExp = /permission denied|\bEACCES\b/i;
/** EACCES or EPERM (a Landlock scope refuses an abstract Unix socket with EPERM). */
const REFUSED = /permission denied|\bEACCES\b|operation not permitted/i;
/** What a refused socket or connection says besides the refusal (a heuristic). */
const NETWORK_WORDS = /socket|connect|network|resolve|host|\/dev\/(?:tcp|udp)\//i;
/** A refused `socket()` or `connect()` as tools name it (socat, Node). */
const SOCKET_CALL = /\bconnect\b|\bsocket\(/i;
/** Addresses, not files: bash's /dev/tcp and /dev/udp, abstract Unix sockets (`\0name`, `@name`). */
const SOCKET_PATH = /^(?:\/dev\/(?:tcp|udp)\/|\\0|@)/;
/** A leading program path (`/usr/bin/bash: `) with more before "Permission denied". */
const PROGRAM_PREFIX = /^\s*\/[^\s:'‘"]+:\s+(?!permission denied)/i;

/**
 * The file paths a refusal line names: quoted ones, absolute ones, and the
 * one before the refusal; not the program path that may lead the line, nor
 * socket addresses.
 */
export function filePaths(text: string): string[] {
  const line = text.replace(PROGRAM_PREFIX, "");
  const paths = [...line.matchAll(/['‘"]([^'’"]+)['’"]/g)].map((match) => match[1] ?? "");
  for (const match of line.matchAll(/(?:^|[\s:(])(\/[^\s:'’"]*)/g)) paths.push(match[1] ?? "");
  const before = line.slice(0, line.search(REFUSED)).replace(/[:\s]+$/, "");
  const last = before.slice(before.lastIndexOf(": ") + 1).trim();
  if (/^[^\s'‘"]*[./][^\s]*$/.test(last)) paths.push(last);
  return paths.filter((path) => path !== "" && !SOCKET_PATH.test(path));
}

/**
 * True when `line` shows the network refused by a `deny` policy, the same way
 * under both backends: a connection or name lookup that failed (both leave a
 * command no network at all), or a socket refused outright (the seccomp
 * filter's EACCES for an IP socket, a Landlock scope's EPERM for an abstract
 * Unix socket): a refusal that names no file and speaks of sockets or
 * connections.
 */
export function networkDenial(line: string, policy: ConfinedPolicy): boolean {
  if (policy.network === "allow") return false;
  if (NETWORK_FAILURE.test(line)) return true;
  return REFUSED.test(line) && NETWORK_WORDS.test(line) && filePaths(line).length === 0;
}

/**
 * The file paths a "Permission denied" `line` names, canonical (relative
 * ones taken from `cwd`).
 */
export function deniedPaths(line: string, cwd: string): string[] {
  return filePaths(line).map((path) => canonicalPath(resolve(cwd, path)));
}

/**
 * The denial the refusal `lines[index]`, naming `paths`, owes to `policy`
 * alone: `secret` for a read beneath a masked secret, `network` for a hidden
 * Unix socket or, when the seccomp filter refuses Unix sockets, for a refused
 * `socket()` or `connect()` (the call named in the line, or a pathless line
 * after one that speaks of sockets: a Python traceback); undefined otherwise.
 */
export function policyDenial(
  lines: string[],
  index: number,
  paths: string[],
  policy: ConfinedPolicy,
): SandboxDenial | undefined {
  for (const path of paths) {
    const mask = policy.masks.find((mask) => isBeneath(path, mask.path));
    if (mask !== undefined) return mask.kind === "socket" ? "network" : "secret";
  }
  if (policy.network === "allow" || policy.unixSockets) return undefined;
  const line = lines[index] ?? "";
  if (SOCKET_CALL.test(line)) return "network";
  const after = paths.length === 0 && NETWORK_WORDS.test(lines[index - 1] ?? "");
  return after ? "network" : undefined;
}

/** How one backend's refusals read in a failed command's stderr (see {@linkcode deniedByLines}). */
export interface RefusalSigns {
  /** A line with this is a refusal, of a path, a socket or the network. */
  refused: RegExp;
  /**
   * What a line says before any other sign: a denial it decides, `"next"`
   * for a line to pass over, undefined to read it on.
   */
  first?: (line: string) => SandboxDenial | "next" | undefined;
  /**
   * Whether the policy lets a command write `path` (canonical): a refusal
   * naming only such paths is an ordinary permission problem, not the
   * backend's. Absent, a refusal is the backend's only at a mask.
   */
  writable?: (path: string) => boolean;
}

/**
 * The denial a failed command met, from its stderr, read the way every
 * backend reads it: the first line with a sign decides, in this order:
 * 1. what `signs.first` decides (bwrap's read-only file system, say);
 * 2. a network failure or refused socket, the network's when it is denied
 *    (see {@linkcode networkDenial});
 * 3. a refusal (`signs.refused`) at a mask, or of a socket, the policy's
 *    (see {@linkcode policyDenial});
 * 4. a refusal naming a path the policy does not let the command write, the
 *    file system's (only with `signs.writable`).
 */
export function deniedByLines(
  outcome: LaunchOutcome,
  policy: ConfinedPolicy,
  cwd: string,
  signs: RefusalSigns,
): SandboxDenial | undefined {
  if (outcome.exitCode === null || outcome.exitCode === 0) return undefined;
  const lines = outcome.stderrText.split("\n");
  for (const [index, line] of lines.entries()) {
    const first = signs.first?.(line);
    if (first === "next") continue;
    if (first !== undefined) return first;
    if (networkDenial(line, policy)) return "network";
    if (!signs.refused.test(line)) continue;
    const paths = deniedPaths(line, cwd);
    const masked = policyDenial(lines, index, paths, policy);
    if (masked !== undefined) return masked;
    const { writable } = signs;
    if (writable === undefined || paths.length === 0) continue;
    if (!paths.every(writable)) return "filesystem";
  }
  return undefined;
}

/** The first line of `text`, trimmed. */
export function firstLine(text: string): string {
  return text.trimStart().split("\n", 1)[0]?.trim() ?? "";
}

/** Why a probe failed, in words, from what it printed and how it exited. */
export function probeFailureReason(outcome: ProbeOutcome): string {
  const line = firstLine(outcome.stderr);
  const exit = outcome.exitCode === null ? "was killed" : `exited ${outcome.exitCode}`;
  return line ? `probe ${exit}: ${line}` : `probe ${exit} without a message`;
}
