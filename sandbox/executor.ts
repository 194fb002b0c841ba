import { isAbsolute } from "node:path";
import { homedir } from "node:os";
import process from "node:process";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxPolicy,
} from "../seam/mod.ts";
import { checkKnownKeys, positiveFinite } from "../seam/checks.ts";
import {
  buildEngine,
  EngineBashExecutor,
  findSetsid,
  LOCAL_CONFIG_KEYS,
  type LocalBashExecutorConfig,
  throwIfDenied,
} from "../engine/mod.ts";
import { isSandboxMode } from "./mode.ts";
import { canonicalWorkspaceRoot, resolveSandboxPolicy } from "./policy.ts";
import type { SandboxBackendName } from "./backends/mod.ts";
import { PROXY_OPTIONS, type ProxyOptions, type ProxyState } from "./network/mod.ts";
import type { SandboxBackendStatus } from "./_backend_probes.ts";
import { SandboxConfiner } from "./_confiner.ts";
import { BACKEND_KINDS, defaultBackends } from "./_backend_kinds.ts";
import { platformOf, runtime } from "../runtime/mod.ts";

export type { SandboxBackendName } from "./backends/mod.ts";
export type { SandboxBackendStatus } from "./_backend_probes.ts";

/**
 * Every sandbox backend, in the order of preference on its platform: on
 * Linux `bwrap`, then `landlock`; on macOS `seatbelt`. An executor tries
 * its platform's by default; one asked for on another platform is refused
 * with a reason that names the platform, and its commands fail closed.
 *
 * @example
 * ```ts
 * import { SANDBOX_BACKENDS } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(SANDBOX_BACKENDS, ["bwrap", "landlock", "seatbelt"]);
 * ```
 */
export const SANDBOX_BACKENDS: readonly SandboxBackendName[] = Object.freeze(
  Object.keys(BACKEND_KINDS) as SandboxBackendName[],
);

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
 * | `backends` | Linux: `["bwrap", "landlock"]`; macOS: `["seatbelt"]` | which backends to try, in order |
 * | `searchPath` | `PATH` of this process | where `bwrap`, `perl`, `deno` and `sandbox-exec` are looked up |
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
  /** A PATH-style list of directories where `bwrap`, `perl`, `deno` and `sandbox-exec` are looked up. */
  searchPath?: string;
  /** How long one backend probe may take, in milliseconds. */
  probeTimeoutMs?: number;
}

/**
 * A {@linkcode LocalBashExecutor} that confines every command (foreground
 * and background) by its `sandboxPolicy`: on Linux bubblewrap where it
 * works, else a Landlock launcher run by Deno; on macOS Seatbelt
 * (`sandbox-exec`), which proves itself before its first command (a write
 * outside the roots, a read of a denied path, a write to a protected name
 * and a connection out must each be refused, or every confined command
 * fails closed naming the one that was not). `resolve()` stamps the default policy on a
 * request without one; `danger-full-access` runs unwrapped. Backends are
 * probed once per executor; when none works, a confined call rejects with
 * `SandboxUnavailableError` and nothing runs. A backend is passed over for a
 * call whose writable roots hold a program it runs before the confinement
 * applies (bwrap, perl or deno, the setsid binary, the wrapping bash, or a symlink on
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
 * A confined call's default resource limits are 4096 processes, 8 GiB of
 * memory and 16 GiB per file written, with the config's `limits` over them;
 * an unconfined (`danger-full-access`) call gets the config's alone. Its
 * methods are {@linkcode EngineBashExecutor}'s, as `LocalBashExecutor`'s
 * are; a background process's `sandbox` facts come when it settles.
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
export class SandboxBashExecutor extends EngineBashExecutor {
  /** The default policy of a call without its own (workspace root canonical). */
  readonly defaultPolicy: Readonly<SandboxPolicy>;
  /** The backends tried, in order. */
  readonly backends: readonly SandboxBackendName[];
  /** What turns each call into a confined launch plan (see `sandbox/_confiner.ts`). */
  readonly #confiner: SandboxConfiner;

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
      backends = defaultBackends(platformOf(config?.runtime ?? runtime).os),
      searchPath = process.env.PATH,
      probeTimeoutMs = 15_000,
      [PROXY_OPTIONS]: proxyOptions = {},
      ...local
    } = (config ?? {}) as SandboxBashExecutorConfig & { [PROXY_OPTIONS]?: ProxyOptions };
    if (workspaceRoot === undefined) {
      throw new BashConfigError(`"workspaceRoot" is required; pass the workspace directory`);
    }
    const root = canonicalWorkspaceRoot(workspaceRoot);
    if (!isSandboxMode(defaultMode)) {
      throw new BashConfigError(
        `"defaultMode" must be "read-only", "workspace-write" or "danger-full-access"; got ${
          JSON.stringify(defaultMode)
        }; pass one of them, or omit it for "read-only"`,
      );
    }
    const defaultPolicy = Object.freeze(resolveSandboxPolicy({
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
    if (
      !Array.isArray(backends) || backends.length === 0 ||
      backends.some((name) => !SANDBOX_BACKENDS.includes(name)) ||
      new Set(backends).size !== backends.length
    ) {
      throw new BashConfigError(
        `"backends" must list some of "bwrap", "landlock" and "seatbelt", once each; got ${
          JSON.stringify(backends)
        }; omit it to try this platform's (bwrap, then landlock on Linux; seatbelt on macOS)`,
      );
    }
    if (searchPath !== undefined && typeof searchPath !== "string") {
      throw new BashConfigError(
        `"searchPath" must be a PATH-style string of directories; got ${
          JSON.stringify(searchPath)
        }; omit it to use PATH`,
      );
    }
    const options = {
      defaultPolicy,
      backends: Object.freeze([...backends]),
      home: homeDir,
      searchPath,
      probeTimeoutMs: positiveFinite("probeTimeoutMs", probeTimeoutMs),
      proxyOptions,
      spillDirChosen: local.spillDir !== undefined,
    };
    super();
    this.defaultPolicy = defaultPolicy;
    this.backends = options.backends;
    // A runner gone since its probe must be a runner failure in the result on
    // every runtime: the setsid binary in front reports it (exit 127) where
    // the runtime's own spawn would throw. So "auto" takes the setsid binary
    // here under Node too, where a local executor takes "detached".
    const auto = (local.sessionStrategy ?? "auto") === "auto" && findSetsid() !== null;
    let confiner: SandboxConfiner | undefined;
    buildEngine(
      this,
      { cwd: root, ...local, ...(auto ? { sessionStrategy: "setsid-binary" } : {}) },
      (host) => (confiner = new SandboxConfiner(options, host)),
    );
    this.#confiner = confiner as SandboxConfiner;
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
   * Fills a request as `LocalBashExecutor.resolve` does, and stamps the
   * default policy on a request without one (absent or `null`), or checks
   * the request's policy and canonicalises its paths, so the spec carries a
   * policy; a request policy without
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
  override resolve(request: BashExecRequest): BashExecSpec {
    return super.resolve(request);
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
    return await this.#confiner.probeBackends();
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
    return await this.#confiner.networkProxyState();
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
