import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import process from "node:process";
import {
  BashConfigError,
  type BashExecSpec,
  type BashSandboxInfo,
  BashSpawnError,
  type ResourceLimits,
  type SandboxEnforcement,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxNetworkAllowList,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "../seam/mod.ts";
import { checkKnownKeys, positiveFinite } from "../seam/_checks.ts";
import {
  type Launch,
  type LaunchLimits,
  type LaunchPlan,
  LocalBashExecutor,
  type LocalBashExecutorConfig,
  runtime,
} from "../local/mod.ts";
import {
  appliedLimits,
  cgroupSupportFor,
  CONFINED_DEFAULT_LIMITS,
  findOnPath,
  findSetsid,
  isOwnDirectory,
  LOCAL_CONFIG_KEYS,
  makeFolder,
  mergeLimits,
  otherPrivateDirs,
  privateParents,
  throwIfDenied,
} from "../local/internal.ts";
import { messageOf } from "../seam/_message.ts";
import { isSandboxMode } from "./mode.ts";
import { canonicalWorkspaceRoot, DEFAULT_PROTECTED_PATHS, resolveSandboxPolicy } from "./policy.ts";
import { ProtectedPaths, protectionGaps } from "./protected/mod.ts";
import { canonicalPath, existingRealpath, isBeneath, resolutionLocations } from "./_paths.ts";
import { DEFAULT_DENY_READ } from "./secrets.ts";
import { makeMaskFile, outermost, secretMasks, socketMasks } from "./_masks.ts";
import {
  type ConfinedPolicy,
  firstLine,
  type SandboxBackend,
  type SandboxBackendName,
} from "./backends/mod.ts";
import { createBwrapBackend, readStrayReport } from "./backends/bwrap/mod.ts";
import {
  createLandlockBackend,
  findDeno,
  landlockLauncherFile,
  USER_NAMESPACE_ARGS,
} from "./backends/landlock/mod.ts";
import {
  bridgeFailed,
  bridgeNamespaceArgs,
  bridgeRunners,
  type BridgeTools,
  findBridgeTools,
  NetworkProxy,
  PROXY_OPTIONS,
  proxyEnv,
  type ProxyLaunch,
  type ProxyOptions,
  type ProxyState,
  wrapInBridge,
} from "./network/mod.ts";

export type { SandboxBackendName } from "./backends/mod.ts";

/**
 * Every sandbox backend, in the default order of preference.
 *
 * @example
 * ```ts
 * import { SANDBOX_BACKENDS } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(SANDBOX_BACKENDS, ["bwrap", "landlock"]);
 * ```
 */
export const SANDBOX_BACKENDS: readonly SandboxBackendName[] = Object.freeze([
  "bwrap",
  "landlock",
]);

/** The keys of a {@linkcode SandboxBashExecutorConfig}: the local ones and the sandbox's own. */
const SANDBOX_CONFIG_KEYS: readonly string[] = [
  ...LOCAL_CONFIG_KEYS,
  "workspaceRoot",
  "defaultMode",
  "network",
  "writableRoots",
  "protectedPaths",
  "denyRead",
  "allowRead",
  "allowUnixSockets",
  "homeDir",
  "backends",
  "searchPath",
  "probeTimeoutMs",
];

/**
 * Options of a {@linkcode SandboxBashExecutor}: those of
 * `LocalBashExecutorConfig` plus the sandbox's own.
 *
 * | field | default | meaning |
 * |---|---|---|
 * | `workspaceRoot` | (required) | the workspace; must exist; symlinks are resolved |
 * | `cwd` | `workspaceRoot` | where commands run by default |
 * | `defaultMode` | `"read-only"` | the mode of a call without its own `sandboxPolicy` |
 * | `network` | `"deny"` | whether confined commands may reach the network |
 * | `writableRoots` | `[]` | more absolute paths writable under `workspace-write` (skipped while missing) |
 * | `protectedPaths` | `DEFAULT_PROTECTED_PATHS` | names, in each writable root and every folder below it, that no confined command may create, replace nor write |
 * | `denyRead` | `DEFAULT_DENY_READ` | paths (absolute or `~/`) no confined command may read or list |
 * | `allowRead` | `[]` | paths beneath a `denyRead` folder that stay readable |
 * | `allowUnixSockets` | `[]` | Unix sockets, or folders of them (every socket below), reachable under network `deny` (none: no Unix socket at all) |
 * | `homeDir` | the home of this process's user | what `~/` means in those lists |
 * | `backends` | `["bwrap", "landlock"]` | which backends to try, in order |
 * | `searchPath` | `PATH` of this process | where `bwrap` and `deno` are looked up |
 * | `probeTimeoutMs` | 15000 | how long a backend's probe may take |
 * | `sessionStrategy` | `"auto"` | as for the local executor, but `"auto"` takes the `setsid` binary under Node too: a runner gone since its probe is then a runner failure in the result |
 *
 * A `spillDir` given here must lie outside the workspace and every writable
 * root (of the default policy and of each call's policy): a confined command
 * could otherwise rewrite the spill files that results name, or fill the
 * budget's folder from inside.
 *
 * @example
 * ```ts
 * import type { SandboxBashExecutorConfig } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const config: SandboxBashExecutorConfig = {
 *   workspaceRoot: "/tmp",
 *   defaultMode: "workspace-write",
 *   backends: ["landlock"],
 * };
 * assert.deepEqual(config.backends, ["landlock"]);
 * ```
 */
export interface SandboxBashExecutorConfig extends LocalBashExecutorConfig {
  /** The workspace: readable always, writable under `workspace-write`. */
  workspaceRoot: string;
  /** The mode of a call that carries no `sandboxPolicy`. */
  defaultMode?: SandboxMode;
  /**
   * Whether confined commands may reach the network: `deny`, `allow`, or an
   * allow-list reached through the executor's proxy.
   */
  network?: SandboxNetwork;
  /** More absolute paths that are writable under `workspace-write`. */
  writableRoots?: string[];
  /** Paths relative to each writable root that stay unwritable (see `SandboxPolicy.protectedPaths`). */
  protectedPaths?: string[];
  /** Paths no confined command may read or list (default: `DEFAULT_DENY_READ`). */
  denyRead?: string[];
  /** Paths beneath a `denyRead` folder that stay readable. */
  allowRead?: string[];
  /** Unix sockets a confined command may connect to under network `deny`; a folder allows every socket below it. */
  allowUnixSockets?: string[];
  /** The absolute directory `~/` stands for in the path lists (default: the user's home). */
  homeDir?: string;
  /** Backends to try, in order; the first whose probe works is used. */
  backends?: SandboxBackendName[];
  /** A PATH-style list of directories where `bwrap` and `deno` are looked up. */
  searchPath?: string;
  /** How long one backend probe may take, in milliseconds. */
  probeTimeoutMs?: number;
}

/**
 * What probing one backend found on this machine.
 *
 * @example
 * ```ts
 * import type { SandboxBackendStatus } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const status: SandboxBackendStatus = {
 *   backend: "bwrap",
 *   works: false,
 *   reason: '"bwrap" was not found on PATH; install bubblewrap',
 * };
 * assert.equal(status.works, false);
 * ```
 */
export interface SandboxBackendStatus {
  /** Which backend. */
  backend: SandboxBackendName;
  /** True when a trivial command ran confined by it. */
  works: boolean;
  /** Why it does not work. */
  reason?: string;
  /** The kernel's Landlock ABI, as the Landlock launcher found it. */
  landlockAbi?: number;
  /**
   * What it would enforce for the executor's default policy (for
   * `workspace-write` when the default mode is `danger-full-access`).
   */
  enforcement?: SandboxEnforcement;
}

interface Probe {
  status: SandboxBackendStatus;
  backend?: SandboxBackend;
}

/**
 * A {@linkcode LocalBashExecutor} that confines every command (foreground
 * and background) by its `sandboxPolicy`: bubblewrap where it works, else a
 * Landlock launcher run by Deno. `resolve()` stamps the default policy on a
 * request without one; `danger-full-access` runs unwrapped. Backends are
 * probed once per executor; when none works, a confined call rejects with
 * `SandboxUnavailableError` and nothing runs. A backend is passed over for a
 * call whose writable roots hold a program it runs before the confinement
 * applies (bwrap, deno, the setsid binary, the wrapping bash, or a symlink on
 * the way to one), or the Landlock launcher's folder that deno reads then: a confined command
 * could replace it. Those programs run with none of the command's environment
 * (no `LD_PRELOAD`, `LD_LIBRARY_PATH`, ... that could make them load a planted
 * library); the command gets its own inside. Each result and settled
 * background process carries its own `sandbox` facts: mode, backend,
 * `denied` (only a failure with the backend's denial signature) and
 * `denial` (whether the filesystem or the network was refused),
 * `runnerFailed` (the backend itself broke) and what was enforced.
 *
 * Both backends confine root too (no capabilities, no new privileges, no
 * descriptors but stdin, stdout and stderr, and a seccomp filter that refuses
 * the kernel keyrings, io_uring, System V IPC and message queues and, with the
 * network denied, sockets other than netlink, and Unix sockets unless
 * `allowUnixSockets` lists some, when every other socket bound at launch is
 * masked), and show a command one view of the machine: everything readable
 * (the host's /tmp and /dev/shm included) but the `denyRead` paths (less
 * `allowRead`; a read there is a `secret` denial) and the private folders of
 * other executors, which look empty; its
 * own executor's spill files readable; writes only in the writable roots
 * (under `workspace-write`) and in a private temporary directory that `TMPDIR`
 * names, kept for the executor's life:
 * - `bwrap`: a pid namespace, so disposal and kills reach every process,
 *   even one that left the session.
 * - `landlock`: writable roots cannot be narrowed by Landlock, so the
 *   launcher mounts a read-only view (root itself; another user in a user
 *   namespace that util-linux `unshare` makes, as the command's own uid and
 *   gid); without one, the protected paths, and other executors' private
 *   folders, are named gaps.
 *
 * Protected paths (`protectedPaths`, default `DEFAULT_PROTECTED_PATHS`:
 * `.git`, shell start-up files, editor and agent configuration, ... and the
 * folder a repository's `core.hooksPath` names) in every writable root and
 * every folder below it stay unwritable under `workspace-write` whatever
 * their shape: at each
 * launch a walk of each root (breadth first, no symlinks followed, not into
 * `node_modules` and other dependency and cache trees, at most 6 directories
 * deep and 20000 entries) finds them, nested repositories and submodules
 * included, and both backends bind the existing ones read-only, with the
 * targets of their symlinks, `gitdir:` files and worktree `commondir`s that
 * lie in a writable root. A missing one cannot be refused without leaving a
 * mount point on the host: whatever a command creates there (or puts in
 * place of a protected symlink, which is put back) is renamed into a
 * quarantine in the executor's private directory when the call ends, and at
 * each read of a running background command; the result lists it in
 * `sandbox.violations`, and `enforcement.gaps` names the window while the
 * command runs.
 *
 * A policy whose network is an allow-list (`{ allow, deny? }`) runs the
 * command, under either backend, in a network namespace of its own whose
 * only way out is a bridge (util-linux `unshare`, `ip`, `socat`) to the
 * executor's proxy, started with the first such command and stopped at
 * disposal; each launch gets a proxy socket of its own and credentials
 * valid only there and only while it runs (handed to the command on a pipe,
 * never on a command line), and the result names what the proxy refused
 * (`sandbox.refusedDestinations`).
 * Where the bridge cannot run, such a call fails closed with
 * `SandboxUnavailableError`.
 *
 * A writable root that does not exist when a command starts is skipped for
 * that command (nothing is created), and so is one that now resolves
 * elsewhere (a symlink appeared in its path); a workspace root that does is
 * a `BashSpawnError`.
 *
 * @example A write outside the workspace is denied, on Deno and Node 24 (`await using`)
 * ```ts
 * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
 * import { SandboxUnavailableError } from "@shellseam/bash/seam";
 * import { mkdtempSync, readFileSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const workspace = mkdtempSync(join(tmpdir(), "example-"));
 * await using executor = new SandboxBashExecutor({
 *   workspaceRoot: workspace,
 *   defaultMode: "workspace-write",
 * });
 * try {
 *   const result = await executor.run(
 *     { command: "echo hi > inside.txt && echo no > /etc/shellseam-example" },
 *   );
 *   assert.equal(readFileSync(join(workspace, "inside.txt"), "utf8"), "hi\n");
 *   assert.equal(result.sandbox?.denied, true);
 *   assert.equal(result.sandbox?.denial, "filesystem");
 *   assert.equal(result.sandbox?.mode, "workspace-write");
 * } catch (error) {
 *   // A machine with neither bubblewrap nor Landlock fails closed.
 *   assert.ok(error instanceof SandboxUnavailableError);
 * } finally {
 *   rmSync(workspace, { recursive: true });
 * }
 * ```
 */
export class SandboxBashExecutor extends LocalBashExecutor {
  /** The default policy of a call without its own (workspace root canonical). */
  readonly defaultPolicy: Readonly<SandboxPolicy>;
  /** The backends tried, in order. */
  readonly backends: readonly SandboxBackendName[];
  readonly #searchPath: string | undefined;
  readonly #probeTimeoutMs: number;
  readonly #probes = new Map<SandboxBackendName, Promise<Probe>>();
  /** The canonical `spillDir` the caller chose, which no writable root may hold. */
  readonly #chosenSpillDir: string | undefined;
  readonly #home: string;
  #maskFile: string | undefined;
  /** The backends' folders in the private folder, once made (canonical). */
  readonly #folders = new Set<string>();
  /** Where the Landlock launcher is written (deno's HOME), once that backend is prepared. */
  #launcherDir: string | undefined;
  /** The network proxy, made on the first launch with an allow-list. */
  #proxy: NetworkProxy | undefined;
  /** Proxies whose socket an unconfined command removed: closed at disposal. */
  readonly #retiredProxies: NetworkProxy[] = [];
  /** The bridge's programs once probed, or why it cannot run here. */
  #bridgeProbe: Promise<BridgeTools | { reason: string }> | undefined;
  readonly #proxyOptions: ProxyOptions;

  /** Validates the config; throws `BashConfigError` naming what is wrong. */
  constructor(config: SandboxBashExecutorConfig) {
    if (config !== null && typeof config === "object") {
      checkKnownKeys("The sandbox executor config", config, SANDBOX_CONFIG_KEYS);
    }
    const {
      workspaceRoot,
      defaultMode = "read-only",
      network = "deny",
      writableRoots,
      protectedPaths,
      denyRead,
      allowRead,
      allowUnixSockets,
      homeDir = agentHome(),
      backends = [...SANDBOX_BACKENDS],
      searchPath = process.env.PATH,
      probeTimeoutMs = 15_000,
      [PROXY_OPTIONS]: proxyOptions = {},
      ...local
    } = (config ?? {}) as SandboxBashExecutorConfig & { [PROXY_OPTIONS]?: ProxyOptions };
    if (workspaceRoot === undefined) {
      throw new BashConfigError(`"workspaceRoot" is required; pass the workspace directory`);
    }
    const root = canonicalWorkspaceRoot(workspaceRoot);
    // A runner gone since its probe must be a runner failure in the result on
    // every runtime: the setsid binary in front reports it (exit 127) where
    // the runtime's own spawn would throw. So "auto" takes the setsid binary
    // here under Node too, where a local executor takes "detached".
    const auto = (local.sessionStrategy ?? "auto") === "auto" && findSetsid() !== null;
    super({ cwd: root, ...local, ...(auto ? { sessionStrategy: "setsid-binary" } : {}) });
    if (!isSandboxMode(defaultMode)) {
      throw new BashConfigError(
        `"defaultMode" must be "read-only", "workspace-write" or "danger-full-access"; got ${
          JSON.stringify(defaultMode)
        }; pass one of them, or omit it for "read-only"`,
      );
    }
    this.defaultPolicy = Object.freeze(resolveSandboxPolicy({
      mode: defaultMode,
      workspaceRoot: root,
      network,
      ...(writableRoots === undefined ? {} : { writableRoots }),
      ...(protectedPaths === undefined ? {} : { protectedPaths }),
      ...(denyRead === undefined ? {} : { denyRead }),
      ...(allowRead === undefined ? {} : { allowRead }),
      ...(allowUnixSockets === undefined ? {} : { allowUnixSockets }),
    }));
    if (typeof homeDir !== "string" || !isAbsolute(homeDir)) {
      throw new BashConfigError(
        `"homeDir" must be an absolute path; got ${
          JSON.stringify(homeDir)
        }; omit it for the home of the user running the agent`,
      );
    }
    this.#home = homeDir;
    if (
      !Array.isArray(backends) || backends.length === 0 ||
      backends.some((name) => !SANDBOX_BACKENDS.includes(name)) ||
      new Set(backends).size !== backends.length
    ) {
      throw new BashConfigError(
        `"backends" must list "bwrap" and/or "landlock" once each; got ${
          JSON.stringify(backends)
        }; omit it to try both, bwrap first`,
      );
    }
    this.backends = Object.freeze([...backends]);
    if (searchPath !== undefined && typeof searchPath !== "string") {
      throw new BashConfigError(
        `"searchPath" must be a PATH-style string of directories; got ${
          JSON.stringify(searchPath)
        }; omit it to use PATH`,
      );
    }
    this.#searchPath = searchPath;
    this.#probeTimeoutMs = positiveFinite("probeTimeoutMs", probeTimeoutMs);
    this.#proxyOptions = proxyOptions;
    this.#chosenSpillDir = local.spillDir === undefined
      ? undefined
      : existingRealpath(this.config.spillDir) ?? this.config.spillDir;
    this.#checkSpillDir(this.defaultPolicy);
  }

  /**
   * The executor's default mode; the tool layer offers escalation fields
   * because it is defined.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
   * import { tmpdir } from "node:os";
   * import assert from "node:assert/strict";
   *
   * await using executor = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
   * assert.equal(executor.sandboxMode, "read-only");
   * ```
   */
  override get sandboxMode(): SandboxMode {
    return this.defaultPolicy.mode;
  }

  /**
   * The default policy, which a call without its own gets; the tool layer
   * runs a call in another mode by passing it with that mode.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
   * import { tmpdir } from "node:os";
   * import assert from "node:assert/strict";
   *
   * await using executor = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
   * assert.equal(executor.defaultSandboxPolicy, executor.defaultPolicy);
   * ```
   */
  override get defaultSandboxPolicy(): Readonly<SandboxPolicy> {
    return this.defaultPolicy;
  }

  /**
   * Stamps the default policy on a request without one (absent or `null`),
   * or checks the request's policy and canonicalises its paths, so
   * `resolve()` returns a spec with a policy; a request policy without
   * `denyRead`, `allowRead` or `allowUnixSockets` takes the executor's.
   * Throws `BashConfigError` for an invalid policy.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
   * import { realpathSync } from "node:fs";
   * import { tmpdir } from "node:os";
   * import assert from "node:assert/strict";
   *
   * await using executor = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
   * const spec = executor.resolve({ command: "ls" });
   * assert.deepEqual(spec.sandboxPolicy, {
   *   mode: "read-only",
   *   workspaceRoot: realpathSync(tmpdir()),
   *   network: "deny",
   * });
   * ```
   */
  protected override resolvePolicy(policy: SandboxPolicy | null | undefined): SandboxPolicy {
    // resolve() copies and freezes what it gets.
    if (policy === undefined || policy === null) return this.defaultPolicy;
    const resolved = resolveSandboxPolicy(policy);
    // What to hide is the executor's unless the request says otherwise.
    for (const field of ["denyRead", "allowRead", "allowUnixSockets"] as const) {
      const list = this.defaultPolicy[field];
      if (resolved[field] === undefined && list !== undefined) resolved[field] = [...list];
    }
    this.#checkSpillDir(resolved);
    return resolved;
  }

  /** Throws `BashConfigError` when a root the policy may make writable holds the chosen spillDir. */
  #checkSpillDir(policy: Readonly<SandboxPolicy>): void {
    const spillDir = this.#chosenSpillDir;
    if (spillDir === undefined) return;
    const root = [policy.workspaceRoot, ...(policy.writableRoots ?? [])].find((root) =>
      isBeneath(spillDir, root)
    );
    if (root !== undefined) {
      throw new BashConfigError(
        `"spillDir" "${spillDir}" lies in "${root}", which confined commands may write to; put the spill folder outside the workspace and every writable root`,
      );
    }
  }

  /**
   * Probes every configured backend (once per executor; later calls return
   * the cached findings): whether it works here, why not, the Landlock ABI,
   * and what it would enforce.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
   * import { tmpdir } from "node:os";
   * import assert from "node:assert/strict";
   *
   * await using executor = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
   * const statuses = await executor.probeBackends();
   * assert.deepEqual(statuses.map((s) => s.backend), ["bwrap", "landlock"]);
   * for (const status of statuses) assert.ok(status.works || status.reason);
   * ```
   */
  async probeBackends(): Promise<SandboxBackendStatus[]> {
    const probes = await Promise.all(this.backends.map((name) => this.#probe(name)));
    return probes.map((probe) => ({ ...probe.status }));
  }

  /**
   * A confined call's default resource limits: 4096 processes, 8 GiB of
   * memory and 16 GiB per file written, with the config's `limits` over them;
   * an unconfined (`danger-full-access`) call gets the config's alone.
   */
  protected override defaultLimits(spec: BashExecSpec): ResourceLimits {
    const mode = (spec.sandboxPolicy ?? this.defaultPolicy).mode;
    return mode === "danger-full-access" ? this.config.limits : this.#confinedLimits();
  }

  #confinedLimits(): ResourceLimits {
    return mergeLimits(CONFINED_DEFAULT_LIMITS, this.config.limits);
  }

  /** Wraps the launch in the selected backend (see the class documentation). */
  protected override async planLaunch(
    spec: BashExecSpec,
    launch: Launch,
    limits?: LaunchLimits,
  ): Promise<LaunchPlan> {
    // A spec without a policy gets the default: never unconfined by accident.
    const policy = spec.sandboxPolicy ?? this.defaultPolicy;
    const { mode } = policy;
    if (mode === "danger-full-access") {
      return { launch, describe: () => ({ mode, backend: "none", denied: false }) };
    }
    const confined = await this.#confine(policy);
    const own = await this.privateDir();
    const roots = [confined.workspaceRoot, ...confined.writableRoots, launch.cwd];
    const ownReal = existingRealpath(own) ?? own;
    const parents = privateParents(dirname(dirname(ownReal)));
    const holdsNoRoot = (dir: string) => !roots.some((root) => isBeneath(canonicalPath(root), dir));
    confined.hiddenDirs = [
      ...otherPrivateDirs(ownReal),
      ...parents.filter((parent) => parent !== dirname(ownReal)),
    ].filter(holdsNoRoot);
    confined.hiddenParents = parents.filter(holdsNoRoot);
    // What lies in a hidden folder needs no mask of its own, and a mask there
    // would fail the launch (its mount point is gone under the hiding tmpfs).
    const hiddenAway = (path: string) =>
      (confined.hiddenDirs ?? []).some((dir) => isBeneath(path, dir)) ||
      ((confined.hiddenParents ?? []).some((dir) => isBeneath(path, dir)) &&
        !isBeneath(path, ownReal));
    // Each command's proxy socket is its bridge's alone: no command connects
    // to one directly (one listed one by one could go before it is masked).
    // Made now, so that a socket a later call makes there is masked too.
    const proxyDir = join(ownReal, "proxy");
    // Not recursive: the private folder itself is privateDir()'s to make again.
    makeFolder(proxyDir);
    confined.masks = [
      ...confined.masks.filter((mask) => !hiddenAway(mask.path) && !isBeneath(mask.path, proxyDir)),
      { path: proxyDir, directory: true, kind: "socket" },
    ];
    const allowList = typeof policy.network === "object" ? policy.network : undefined;
    const tools = allowList === undefined ? undefined : await this.#bridge();
    const bash = launch.program;
    const backend = await this.#select(
      confined,
      launch,
      tools === undefined ? [] : bridgeRunners(tools, bash),
    );
    await this.#restoreFolders();
    if (backend.name === "landlock") this.#restoreLauncher();
    const guard = await this.#guard(confined, [
      existingRealpath(own) ?? own,
      ...(confined.hiddenDirs ?? []),
    ]);
    confined.readOnlyPaths = guard?.plan.readOnly ?? [];
    guard?.watch();
    const enforcement = enforcementOf(backend, confined, guard);
    // The launch's own proxy socket and credentials, dropped when it settles (see describe).
    const network = tools === undefined || allowList === undefined
      ? undefined
      : { tools, proxy: await this.#openProxy(allowList) };
    // bwrap's pid namespace ends what the shell left running, before the host
    // can look: what it ended is reported from inside, to a file of this call.
    const strayReport = backend.name === "bwrap" && network === undefined
      ? join(own, `strays-${crypto.randomUUID()}`)
      : undefined;
    if (strayReport !== undefined) confined.strayReport = strayReport;
    const wrapped = backend.wrap(
      network === undefined
        ? launch
        : { ...launch, env: { ...launch.env, ...proxyEnv(network.proxy.token) } },
      confined,
      limits,
      spec.stdin !== undefined || spec.keepStdinOpen === true,
    );
    const standby = network === undefined ? backend.standby?.(launch, confined) : undefined;
    return {
      // Planned without them (a subclass's planLaunch that does not pass them on), the executor applies them.
      limitsApplied: limits !== undefined,
      ...(standby === undefined ? {} : { standby }),
      ...(strayReport === undefined ? {} : {
        pidNamespace: true,
        namespaceStrays: () => readStrayReport(strayReport),
        // The namespace's reporter says when the command starts (bwrap's setup done).
        announcesStart: { retry: (stderr) => backend.setupRaced?.(stderr, confined) ?? false },
      }),
      launch: network === undefined ? wrapped : wrapInBridge(
        wrapped,
        network.tools,
        bash,
        network.proxy.socketPath,
        limits?.cgroupProcs ?? [],
      ),
      describe: (outcome): BashSandboxInfo => {
        const violations = guard?.settle() ?? [];
        // The sweeps may have met a bound that the launch did not.
        const { gaps } = guard === undefined
          ? enforcement
          : enforcementOf(backend, confined, guard);
        const runnerFailed = backend.runnerFailed(outcome) ||
          (network !== undefined && bridgeFailed(outcome.exitCode, firstLine(outcome.stderrText)));
        const refused = network?.proxy.refused() ?? [];
        // Settled: what it left running (a process that left the session) gets no way out.
        // A close that fails (a listener that never listened, a socket file that cannot be
        // removed) must not reject unhandled and end the agent: the call's token is already
        // void (no request passes with it), and the file is in the private folder, which
        // goes with the executor.
        network?.proxy.close().catch(() => {});
        const failed = outcome.exitCode !== 0;
        const denial = runnerFailed
          ? undefined
          : refused.length > 0 && failed
          ? "network"
          : backend.denied(outcome, confined, launch.cwd);
        return {
          mode,
          backend: backend.name,
          denied: denial !== undefined,
          ...(denial === undefined ? {} : { denial }),
          ...(refused.length === 0 ? {} : { refusedDestinations: refused }),
          enforcement: { ...enforcement, gaps: [...gaps] },
          runnerFailed,
          ...(violations.length === 0 ? {} : { violations }),
        };
      },
      ...(guard === undefined ? {} : {
        beforeRead: () => {
          const before = guard.violationCount;
          return guard.sweep().slice(before);
        },
      }),
    };
  }

  /**
   * The network proxy's state: `undefined` until a command with a network
   * allow-list first ran (it starts then, and stops at disposal).
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
   * import { tmpdir } from "node:os";
   * import assert from "node:assert/strict";
   *
   * await using executor = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
   * assert.equal(await executor.networkProxyState(), undefined);
   * ```
   */
  async networkProxyState(): Promise<ProxyState | undefined> {
    return await this.#proxy?.state();
  }

  /** Stops the network proxy after what `LocalBashExecutor` disposes of. */
  override async [Symbol.asyncDispose](): Promise<void> {
    try {
      await super[Symbol.asyncDispose]();
    } finally {
      await Promise.all([this.#proxy, ...this.#retiredProxies].map((proxy) => proxy?.close()));
    }
  }

  /**
   * The bridge's programs, probed once (a network namespace with its
   * loopback up); `SandboxUnavailableError` naming why not (fail closed).
   */
  async #bridge(): Promise<BridgeTools> {
    this.#bridgeProbe ??= this.#probeBridge();
    const tools = await this.#bridgeProbe;
    if ("reason" in tools) {
      throw new SandboxUnavailableError(
        "A network allow-list needs a bridge from the command's own network namespace to the " +
          "executor's proxy, and it cannot run here, so the command was not run; install what " +
          'is named, or use network "deny" or "allow"',
        this.backends.map((backend) => ({ backend, reason: tools.reason })),
      );
    }
    return tools;
  }

  async #probeBridge(): Promise<BridgeTools | { reason: string }> {
    const tools = findBridgeTools(this.#searchPath ?? "", process.getuid?.() === 0);
    if ("reason" in tools) return tools;
    const args = [...bridgeNamespaceArgs(tools), "--", tools.ip, "link", "set", "lo", "up"];
    try {
      // The direct path, unconfined like every program before the sandbox:
      // with none of the command's environment.
      const result = await this.runWrapped(
        { command: "true", timeoutMs: this.#probeTimeoutMs },
        (launch) => ({ ...launch, program: tools.unshare, args, env: {} }),
      );
      if (result.exitCode === 0) return tools;
      const said = result.stderr.text.trim().split("\n", 1)[0];
      return {
        reason: `a network namespace for the bridge cannot be made here: "${tools.unshare} ${
          args.join(" ")
        }" failed: ${said || `exit ${result.exitCode}`}`,
      };
    } catch (error) {
      return { reason: `"${tools.unshare}" could not start: ${messageOf(error)}` };
    }
  }

  /**
   * A launch's own socket and token from the proxy, whose sockets live in
   * the private folder (made on first use; a new one when the private
   * folder was made again under another name).
   */
  async #openProxy(list: SandboxNetworkAllowList): Promise<ProxyLaunch> {
    const dir = join(await this.privateDir(), "proxy");
    const current = this.#proxy;
    if (current !== undefined && current.socketDir !== dir) {
      // Running launches keep their sockets until they settle.
      this.#retiredProxies.push(current);
      this.#proxy = undefined;
    }
    this.#proxy ??= new NetworkProxy(dir, this.#proxyOptions);
    try {
      return await this.#proxy.open(list);
    } catch (error) {
      throwIfDenied(error, "listen on the network proxy's Unix socket");
      throw new BashSpawnError(
        `The network proxy cannot listen in "${dir}" (${
          messageOf(error)
        }), so the command was not run; check that the private folder is writable`,
        { cause: error },
      );
    }
  }

  /**
   * The protected paths of a `workspace-write` call, walked for at launch
   * (read-only calls write nowhere, so nothing can appear); what a command
   * plants goes to the quarantine in the executor's private directory, which
   * no confined command may write.
   */
  async #guard(
    policy: ConfinedPolicy,
    privateDirs: readonly string[],
  ): Promise<ProtectedPaths | undefined> {
    if (policy.mode !== "workspace-write" || policy.protectedPaths.length === 0) return undefined;
    const roots = [policy.workspaceRoot, ...policy.writableRoots];
    const refused = roots.find((root) => !runtime.mayWrite(root));
    if (refused !== undefined) {
      throw new BashSpawnError(
        `What a command plants at a protected path in "${refused}" is moved away by a rename, ` +
          `which needs write permission there, so the "workspace-write" command was not run; ` +
          `grant it (Deno: --allow-write for "${refused}"), or pass protectedPaths: [] to give up ` +
          "that protection",
      );
    }
    const quarantine = join(await this.privateDir(), "quarantine");
    return new ProtectedPaths(roots, policy.protectedPaths, () => quarantine, privateDirs);
  }

  /**
   * The first backend that works here and whose programs, run before the
   * confinement applies, the policy's writable roots cannot replace (a
   * command could otherwise swap one, and the next launch would run it
   * unconfined).
   */
  async #select(
    policy: ConfinedPolicy,
    launch: Launch,
    bridge: string[],
  ): Promise<SandboxBackend> {
    const attempts: { backend: string; reason: string }[] = [];
    const writable = policy.mode === "workspace-write"
      ? [policy.workspaceRoot, ...policy.writableRoots]
      : [];
    const setsid = this.config.setsidPath;
    for (const name of this.backends) {
      const { backend, status } = await this.#probe(name);
      if (backend === undefined) {
        attempts.push({ backend: name, reason: status.reason ?? "unknown" });
        continue;
      }
      // Read-only calls write nowhere, so no runner can be replaced by one.
      if (writable.length === 0) return backend;
      const exposedAt = (path: string): string | undefined =>
        resolutionLocations(path).find((location) =>
          writable.some((root) => isBeneath(location, root))
        );
      const runners = [
        ...(setsid === null ? [] : [setsid]),
        ...bridge,
        ...backend.runners(launch),
      ];
      const program = runners.flatMap((runner) => {
        const location = exposedAt(runner);
        return location === undefined ? [] : [{ runner, location }];
      })[0];
      if (program !== undefined) {
        attempts.push({
          backend: name,
          reason:
            `"${program.runner}" runs before the sandbox applies, and "${program.location}" ` +
            "lies in a writable root, where a confined command could replace it; install it " +
            "elsewhere or narrow the writable roots",
        });
        continue;
      }
      const folder = backend.runnerFolders().flatMap((folder) => {
        const location = exposedAt(folder.path);
        return location === undefined ? [] : [{ ...folder, location }];
      })[0];
      if (folder === undefined) return backend;
      attempts.push({
        backend: name,
        reason: `${folder.name} "${folder.path}" is read before the sandbox applies, and ` +
          `"${folder.location}" lies in a writable root, where a confined command could plant ` +
          "what is read there; set TMPDIR of this process to a folder outside the writable " +
          "roots (the executor's private folder is made there) or narrow the writable roots",
      });
    }
    throw new SandboxUnavailableError(
      `No sandbox backend can confine this command here, so the "${policy.mode}" command was ` +
        `not run; install bubblewrap or Deno (with a Landlock kernel), or run it as ` +
        `"danger-full-access"`,
      attempts,
    );
  }

  #probe(name: SandboxBackendName): Promise<Probe> {
    let probe = this.#probes.get(name);
    if (probe === undefined) {
      probe = this.#runProbe(name);
      this.#probes.set(name, probe);
    }
    return probe;
  }

  async #runProbe(name: SandboxBackendName): Promise<Probe> {
    const prepared = name === "bwrap" ? await this.#prepareBwrap() : await this.#prepareLandlock();
    if ("reason" in prepared) return { status: { backend: name, works: false, ...prepared } };
    const backend = prepared;
    let reason: string | undefined;
    try {
      // No socket masks: a socket that goes while the probe starts would fail
      // it, and a failed probe rules the backend out for the executor's life.
      const policy = await this.#confine({
        ...this.defaultPolicy,
        mode: "read-only",
        network: "deny",
        allowUnixSockets: [],
      });
      // The direct path: the backend's probe launch of `bash -c true`, not planLaunch.
      const result = await this.runWrapped(
        { command: "true", workdir: policy.workspaceRoot, timeoutMs: this.#probeTimeoutMs },
        (launch) => backend.probeLaunch({ ...launch, args: ["-c", "true"] }, policy),
      );
      reason = result.timedOut
        ? `probe timed out after ${this.#probeTimeoutMs} ms`
        : backend.probeFailure({
          exitCode: result.exitCode,
          stdout: result.stdout.text,
          stderr: result.stderr.text,
        });
    } catch (error) {
      reason = `probe could not start: ${messageOf(error)}`;
    }
    const status: SandboxBackendStatus = { backend: name, works: reason === undefined };
    if (reason !== undefined) return { status: { ...status, reason } };
    const factsPolicy = this.defaultPolicy.mode === "danger-full-access"
      ? { ...this.defaultPolicy, mode: "workspace-write" as const }
      : this.defaultPolicy;
    // As a command reports it: with what the default limits cannot enforce.
    const enforcement = enforcementOf(backend, await this.#confine(factsPolicy), undefined);
    const confinedLimits = this.#confinedLimits();
    const limits = appliedLimits(
      confinedLimits,
      true,
      cgroupSupportFor(this.config.useCgroups, confinedLimits),
    );
    status.enforcement = {
      ...enforcement,
      gaps: [...enforcement.gaps, ...(limits?.gaps ?? [])],
    };
    if (backend.landlockAbi) status.landlockAbi = backend.landlockAbi();
    return { status, backend };
  }

  async #prepareBwrap(): Promise<SandboxBackend | { reason: string }> {
    const tmpDir = await this.#privateFolder("tmp", "TMPDIR");
    if (typeof tmpDir !== "string") return tmpDir;
    return createBwrapBackend(this.#searchPath, { privateDir: dirname(tmpDir), tmpDir });
  }

  /**
   * `policy` ready to enforce: its paths canonical and existing (see
   * {@linkcode confinedRoots}), and what it hides: the `denyRead` paths
   * (less `allowRead`, the workspace and the writable roots) and, under
   * network `deny` with an `allowUnixSockets` list, every other Unix socket.
   */
  async #confine(policy: SandboxPolicy): Promise<ConfinedPolicy> {
    const roots = confinedRoots(policy);
    const network = roots.network;
    const allowSockets = policy.allowUnixSockets ?? [];
    const secrets = secretMasks(
      policy.denyRead ?? DEFAULT_DENY_READ,
      policy.allowRead ?? [],
      this.#home,
      [roots.workspaceRoot, ...roots.writableRoots],
    );
    const sockets = network === "deny" && allowSockets.length > 0
      ? socketMasks(allowSockets, this.#home)
      : [];
    // Made again when an unconfined command removed the private folder.
    const maskFile = this.#maskFile !== undefined && existsSync(this.#maskFile)
      ? this.#maskFile
      : makeMaskFile(await this.privateDir());
    this.#maskFile = maskFile;
    return {
      ...roots,
      // Under an allow-list, Unix sockets stay closed as under deny.
      unixSockets: network === "allow" || (network === "deny" && allowSockets.length > 0),
      masks: outermost([...secrets, ...sockets]),
      maskFile,
    };
  }

  /**
   * Makes the backends' private folders (TMPDIR, the launcher's folder)
   * again when an unconfined command removed them (with the private folder
   * around them): only under the private folder's own name, never in a folder
   * that now belongs to someone else.
   */
  async #restoreFolders(): Promise<void> {
    const missing = [...this.#folders].filter((path) => !existsSync(path));
    if (missing.length === 0) return;
    const dir = await this.privateDir();
    for (const path of missing) {
      if ((existingRealpath(dir) ?? dir) !== dirname(path)) {
        throw new BashSpawnError(
          `The private folder "${dirname(path)}" was removed and its name is taken, so the ` +
            "sandbox has no TMPDIR and nothing was run; create a new executor",
        );
      }
      try {
        mkdirSync(path, { mode: 0o700 });
      } catch (error) {
        // Made meanwhile (the private folder's own restoring, or another launch's).
        if ((error as { code?: string }).code !== "EEXIST" || !isOwnDirectory(path)) throw error;
      }
    }
  }

  /** Writes the Landlock launcher again when an unconfined command removed or changed it. */
  #restoreLauncher(): void {
    const dir = this.#launcherDir;
    if (dir === undefined) return;
    try {
      landlockLauncherFile(dir);
    } catch (error) {
      throw new BashSpawnError(
        `Cannot write the Landlock launcher into "${dir}" (${
          messageOf(error)
        }), so nothing was run; create a new executor`,
        { cause: error },
      );
    }
  }

  async #prepareLandlock(): Promise<SandboxBackend | { reason: string }> {
    const deno = findDeno(this.#searchPath);
    if ("reason" in deno) return deno;
    const tmpDir = await this.#privateFolder("tmp", "TMPDIR");
    if (typeof tmpDir !== "string") return tmpDir;
    const launcherDir = await this.#privateFolder("deno", "launcher folder");
    if (typeof launcherDir !== "string") return launcherDir;
    let launcher: string;
    try {
      launcher = landlockLauncherFile(launcherDir);
    } catch (error) {
      return { reason: `cannot write its launcher into "${launcherDir}": ${messageOf(error)}` };
    }
    this.#launcherDir = launcherDir;
    const root = process.getuid?.() === 0;
    return createLandlockBackend({
      deno: deno.path,
      launcher,
      tmpDir,
      launcherDir,
      root,
      ...(root ? {} : { userNamespace: await this.#userNamespace() }),
    });
  }

  /**
   * A folder `name` in the executor's private folder (made once, 0700), by
   * its canonical path, or why it cannot be made: the commands' TMPDIR (both
   * backends probe at once, so it may exist already) and the Landlock launcher's folder.
   */
  async #privateFolder(name: string, purpose: string): Promise<string | { reason: string }> {
    try {
      const path = join(await this.privateDir(), name);
      mkdirSync(path, { mode: 0o700, recursive: true });
      const real = existingRealpath(path) ?? path;
      this.#folders.add(real);
      return real;
    } catch (error) {
      return { reason: `cannot make its private ${purpose}: ${messageOf(error)}` };
    }
  }

  /**
   * Whether util-linux `unshare` gives a user and mount namespace here (for
   * the Landlock launcher of a user who is not root), or why not.
   */
  async #userNamespace(): Promise<{ unshare: string } | { reason: string }> {
    const unshare = findOnPath("unshare", this.#searchPath ?? "");
    if (unshare === null) {
      return { reason: '"unshare" was not found on PATH; install util-linux' };
    }
    try {
      // The direct path, unconfined like every program before the sandbox:
      // with none of the command's environment (LD_PRELOAD into a workspace would load there).
      const result = await this.runWrapped(
        { command: "true", timeoutMs: this.#probeTimeoutMs },
        (launch) => ({
          ...launch,
          program: unshare,
          args: [...USER_NAMESPACE_ARGS, launch.program, "-c", "true"],
          env: {},
        }),
      );
      if (result.exitCode === 0) return { unshare };
      const said = result.stderr.text.trim().split("\n", 1)[0];
      return {
        reason: `"${unshare} ${USER_NAMESPACE_ARGS.join(" ")}" failed: ${
          said || `exit ${result.exitCode}`
        }`,
      };
    } catch (error) {
      return { reason: `"${unshare}" could not start: ${messageOf(error)}` };
    }
  }
}

/**
 * The home of the user running the agent, whose credential stores are denied
 * by default: `HOME` (which `os.homedir()` reads first too), else the user's
 * passwd entry, which Deno lets be read only with `--allow-sys=homedir`.
 */
function agentHome(): string {
  const home = process.env.HOME;
  if (home) return home;
  try {
    return homedir();
  } catch (error) {
    throwIfDenied(error, "find the home folder, since HOME is not set");
    throw error;
  }
}

/**
 * A confined mode's policy but what it hides, every path canonical and
 * existing, checked again at each launch. Each path must still resolve to itself: a path that
 * now leads elsewhere got a symlink since it was resolved (a confined command
 * may plant one where a writable root will appear), and following it would
 * make its target writable. A workspace root that vanished or moved so is a
 * spawn error; such writable roots, and those that do not exist, are skipped.
 */
function confinedRoots(
  policy: SandboxPolicy,
): Omit<ConfinedPolicy, "unixSockets" | "masks" | "maskFile"> {
  let workspaceRoot: string;
  try {
    workspaceRoot = canonicalWorkspaceRoot(policy.workspaceRoot);
  } catch (error) {
    throw new BashSpawnError((error as Error).message, { cause: error });
  }
  if (workspaceRoot !== policy.workspaceRoot) {
    throw new BashSpawnError(
      `Workspace root "${policy.workspaceRoot}" now resolves to "${workspaceRoot}", so nothing ` +
        "was run; remove the symlink in its path, or resolve the request again to confine it there",
    );
  }
  const writableRoots = (policy.writableRoots ?? []).filter((root) =>
    existingRealpath(root) === root
  );
  return {
    mode: policy.mode === "workspace-write" ? "workspace-write" : "read-only",
    workspaceRoot,
    writableRoots,
    network: policy.network === "allow"
      ? "allow"
      : typeof policy.network === "object"
      ? "proxy"
      : "deny",
    protectedPaths: [...(policy.protectedPaths ?? DEFAULT_PROTECTED_PATHS)],
    readOnlyPaths: [],
  };
}

/** What `backend` enforces for `policy`, with what protecting its paths leaves open. */
function enforcementOf(
  backend: SandboxBackend,
  policy: ConfinedPolicy,
  guard: ProtectedPaths | undefined,
): SandboxEnforcement {
  const enforcement = backend.enforcement(policy);
  if (policy.mode !== "workspace-write") return enforcement;
  const gaps = protectionGaps(policy.protectedPaths, guard?.unwalked);
  return { ...enforcement, gaps: [...enforcement.gaps, ...gaps] };
}
