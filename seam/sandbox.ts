/**
 * How much a sandboxing executor lets a command do:
 * `read-only` (read anywhere, write nowhere but a private `TMPDIR`),
 * `workspace-write` (also write inside the workspace root and the writable roots),
 * `danger-full-access` (unconfined).
 *
 * @example
 * ```ts
 * import type { SandboxMode } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const mode: SandboxMode = "workspace-write";
 * assert.equal(mode, "workspace-write");
 * ```
 */
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

/**
 * The destinations a command may reach through the sandboxing executor's
 * proxy, which is then its only way out: host names (`registry.npmjs.org`),
 * wildcards for the names beneath a domain (`*.example.com`, not
 * `example.com` itself) and IP addresses (`203.0.113.7`, `::1`), on any
 * port. `deny` entries win over `allow` ones, and a denied name covers the
 * names beneath it too (`evil.example.com` denies `a.evil.example.com`). A name that resolves to a
 * loopback, link-local or private address is refused unless that address
 * is listed too.
 *
 * @example
 * ```ts
 * import type { SandboxNetworkAllowList } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const network: SandboxNetworkAllowList = {
 *   allow: ["registry.npmjs.org", "*.pythonhosted.org", "pypi.org"],
 *   deny: ["evil.pythonhosted.org"],
 * };
 * assert.equal(network.allow.length, 3);
 * ```
 */
export interface SandboxNetworkAllowList {
  /** Host names, `*.domain` wildcards and IP addresses a command may reach. */
  allow: string[];
  /** Entries refused even when `allow` matches them; a name also refuses the names beneath it. */
  deny?: string[];
}

/**
 * A sandbox policy's network: `deny`, `allow`, or an allow-list enforced by
 * a proxy (see {@linkcode SandboxNetworkAllowList}).
 *
 * @example
 * ```ts
 * import type { SandboxNetwork } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const networks: SandboxNetwork[] = ["deny", { allow: ["example.com"] }, "allow"];
 * assert.equal(networks.length, 3);
 * ```
 */
export type SandboxNetwork = "deny" | "allow" | SandboxNetworkAllowList;

/**
 * The complete per-call confinement: a mode, the workspace it is about, and
 * whether the network is reachable.
 *
 * @example
 * ```ts
 * import type { SandboxPolicy } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const policy: SandboxPolicy = { mode: "read-only", workspaceRoot: "/tmp", network: "deny" };
 * assert.equal(policy.network, "deny");
 * ```
 */
export interface SandboxPolicy {
  /** What the command may do. */
  mode: SandboxMode;
  /** Absolute path of the workspace; writable under `workspace-write`. */
  workspaceRoot: string;
  /**
   * Whether the command may reach the network: `deny` (not at all),
   * `allow` (the host's network) or an allow-list of destinations reached
   * through the executor's proxy (see {@linkcode SandboxNetworkAllowList}).
   */
  network: SandboxNetwork;
  /** More absolute paths writable under `workspace-write`. */
  writableRoots?: string[];
  /**
   * Paths relative to each writable root (and to every directory below it, for
   * nested repositories and packages) that a confined command may not create,
   * replace, rename nor write, whatever their shape; `DEFAULT_PROTECTED_PATHS`
   * of `@shellseam/bash/sandbox` (`.git`, shell start-up files, editor and
   * agent configuration, ...) when absent. The list replaces the default, so
   * spread the default in and keep `.git`.
   */
  protectedPaths?: string[];
  /**
   * Files and folders (absolute, or `~/` for the home of the user running the
   * agent) whose contents a confined command can neither read nor list;
   * absent means the executor's list (by default the usual credential
   * stores, `DEFAULT_DENY_READ` of `@shellseam/bash/sandbox`); `[]` denies
   * nothing.
   */
  denyRead?: string[];
  /** Paths beneath a `denyRead` folder that stay readable (absolute or `~/`). */
  allowRead?: string[];
  /**
   * Unix sockets in the filesystem (absolute or `~/`) a command may connect
   * to under network `deny`, or folders whose sockets below them it may
   * connect to; every other socket is out of reach. Absent or
   * empty: no Unix socket can be created at all (`socketpair` still works).
   */
  allowUnixSockets?: string[];
}

/**
 * A protected path that appeared or changed during a confined call, and where
 * the executor moved it (its quarantine, out of the workspace when the file
 * system allows; `null` when it could not be moved, and it is still there).
 *
 * @example
 * ```ts
 * import type { SandboxViolation } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const violation: SandboxViolation = {
 *   path: "/work/project/.git",
 *   quarantinedTo: "/tmp/shellseam-abc123/quarantine/1-.git",
 * };
 * assert.ok(violation.quarantinedTo?.endsWith(".git"));
 * ```
 */
export interface SandboxViolation {
  /** The protected path (absolute) that a command created or replaced. */
  path: string;
  /** Where it is now, or null when it could not be moved away. */
  quarantinedTo: string | null;
  /**
   * True when `path` is no protected path but a directory the command made
   * and left unreadable, which could hide one from the check: it was moved
   * away whole.
   */
  unlisted?: boolean;
  /**
   * Set when `path` is no protected path but a writable root that the
   * command filled past a bound of the walk that finds protected paths
   * (`entries`: more entries than it reads; `depth`: folders nested deeper
   * than it goes): below it nothing was bound read-only. What appeared
   * there during the call was moved away all the same (each listed too).
   */
  walkBound?: "depth" | "entries";
}

/**
 * What a backend actually enforced on this machine. `gaps` says in words what
 * it could not enforce, so nobody reads "sandboxed" as more than it was.
 *
 * @example
 * ```ts
 * import type { SandboxEnforcement } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const facts: SandboxEnforcement = {
 *   filesystem: "full",
 *   network: "partial",
 *   gaps: ["UDP not confined"],
 * };
 * assert.deepEqual(facts.gaps, ["UDP not confined"]);
 * ```
 */
export interface SandboxEnforcement {
  /** Whether filesystem writes are confined as the mode says. */
  filesystem: "full" | "partial";
  /** Whether network access is confined as the policy says. */
  network: "full" | "partial" | "none";
  /** What was not enforced, in words. */
  gaps: string[];
  /**
   * The Landlock backend's only: which runtime ran its launcher, the program
   * that restricts itself and then runs the command (`perl` where a perl
   * passed the launcher's self-check, else `deno`).
   */
  launcher?: "perl" | "deno";
}

/**
 * The sandbox facts of one command, stamped by a sandboxing executor on a
 * foreground result and on a settled background process.
 *
 * @example
 * ```ts
 * import type { BashSandboxInfo } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const info: BashSandboxInfo = { mode: "danger-full-access", backend: "none", denied: false };
 * assert.equal(info.denied, false);
 * ```
 *
 * @example A network connection the sandbox refused
 * ```ts
 * import type { BashSandboxInfo } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const info: BashSandboxInfo = {
 *   mode: "workspace-write",
 *   backend: "bwrap",
 *   denied: true,
 *   denial: "network",
 * };
 * assert.equal(info.denied, info.denial !== undefined);
 * ```
 */
export interface BashSandboxInfo {
  /** The mode the command ran under. */
  mode: SandboxMode;
  /** The backend that confined it (`none` for `danger-full-access`). */
  backend: "bwrap" | "landlock" | "seatbelt" | "none";
  /** True only when the command failed and its stderr carries the backend's denial signature. */
  denied: boolean;
  /**
   * Which access was denied: `filesystem` (a write, or a read under Landlock,
   * outside what the mode allows), `network` (a connection, or a Unix socket,
   * refused by the network policy, which is separate from the mode) or
   * `secret` (a read of a path the policy's `denyRead` withholds, whatever
   * the mode). Present exactly when `denied` is true.
   */
  denial?: "filesystem" | "network" | "secret";
  /**
   * Destinations (`host:port`) the network allow-list refused to this
   * command, in the order first asked for; absent when none was.
   */
  refusedDestinations?: string[];
  /** What the backend enforced; absent when nothing was confined. */
  enforcement?: SandboxEnforcement;
  /** True when the backend itself broke (it then wins over `denied`). */
  runnerFailed?: boolean;
  /**
   * Protected paths (see `SandboxPolicy.protectedPaths`) that the command
   * created or replaced, moved out of the workspace when the call ended (for a
   * background process: when it settled, and at each read before); absent
   * when there were none. A missing `.git` cannot be refused without leaving a
   * mount point on the host, so it is undone afterwards instead.
   */
  violations?: SandboxViolation[];
}

/**
 * Every sandbox mode, narrowest first.
 *
 * @example
 * ```ts
 * import { SANDBOX_MODES } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(SANDBOX_MODES, ["read-only", "workspace-write", "danger-full-access"]);
 * ```
 */
export const SANDBOX_MODES: readonly SandboxMode[] = Object.freeze([
  "read-only",
  "workspace-write",
  "danger-full-access",
]);

/**
 * True when `value` is one of {@linkcode SANDBOX_MODES}.
 *
 * @example
 * ```ts
 * import { isSandboxMode } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isSandboxMode("workspace-write"), true);
 * assert.equal(isSandboxMode("full"), false);
 * ```
 */
export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}

/**
 * The sandbox modes that allow more than `mode`, narrowest first (in the
 * order of {@linkcode SANDBOX_MODES}): what a call may escalate to.
 *
 * @example
 * ```ts
 * import { widerSandboxModes } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(widerSandboxModes("read-only"), ["workspace-write", "danger-full-access"]);
 * assert.deepEqual(widerSandboxModes("danger-full-access"), []);
 * ```
 */
export function widerSandboxModes(mode: SandboxMode): SandboxMode[] {
  return SANDBOX_MODES.slice(SANDBOX_MODES.indexOf(mode) + 1);
}
