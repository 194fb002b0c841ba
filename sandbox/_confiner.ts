import { dirname, join } from "node:path";
import {
  BashConfigError,
  type BashExecSpec,
  type BashSandboxInfo,
  BashSpawnError,
  type ResourceLimits,
  type SandboxPolicy,
} from "../seam/mod.ts";
import { runtime } from "../runtime/mod.ts";
import {
  callDefaultLimits,
  canonicalPath,
  type Confiner,
  type ConfinerHost,
  confines,
  existingRealpath,
  isBeneath,
  type Launch,
  type LaunchLimits,
  type LaunchPlan,
  makeFolder,
  otherPrivateDirs,
} from "../engine/mod.ts";
import { resolveSandboxPolicy } from "./policy.ts";
import {
  FolderListings,
  FolderWatch,
  OutsideRoots,
  ProtectedPaths,
  WalkMemory,
} from "./protected/mod.ts";
import type {
  ConfinedPolicy,
  LaunchStandby,
  SandboxBackend,
  SandboxBackendName,
} from "./backends/mod.ts";
import { firstLine } from "./backends/mod.ts";
import { readStrayReport } from "./backends/bwrap/mod.ts";
import { BRIDGE_PORT, bridgeFailed, bridgeRunners, proxyEnv, wrapInBridge } from "./network/mod.ts";
import type { ProxyOptions, ProxyState } from "./network/mod.ts";
import { confinedRoots, Confinement, enforcementOf } from "./_confinement.ts";
import { BackendProbes, type SandboxBackendStatus } from "./_backend_probes.ts";
import { ExposureChecks, GrantedRoots, toolFoldersOf } from "./_exposure.ts";
import { NetworkLaunches } from "./_network_launch.ts";
import { chooseBackend } from "./_select_backend.ts";
import { Standbys } from "./_standby.ts";
import { WatchedPrivateParents } from "./_private_parents.ts";

/** The sandbox executor's config, validated: what its confiner works from. */
export interface ConfinerOptions {
  /** The default policy of a call without its own (workspace root canonical). */
  defaultPolicy: Readonly<SandboxPolicy>;
  /** The backends tried, in order. */
  backends: readonly SandboxBackendName[];
  /** What `~/` stands for. */
  home: string;
  /** Where `bwrap`, `perl`, `deno` and the bridge's programs are looked up. */
  searchPath: string | undefined;
  /** How long one probe may take. */
  probeTimeoutMs: number;
  /** The proxy's options (tests shorten its timeouts). */
  proxyOptions: ProxyOptions;
  /** Whether the caller chose the `spillDir`, which no writable root may then hold. */
  spillDirChosen: boolean;
}

/**
 * The sandbox's confiner: it turns a call's spec and policy into a launch
 * plan (the backend's command line, what to check after, what the result
 * says), and owns what confined calls share (the probes, the proxy).
 */
export class SandboxConfiner implements Confiner {
  /** The default policy of a call without its own. */
  readonly defaultPolicy: Readonly<SandboxPolicy>;
  /** The backends tried, in order. */
  readonly backends: readonly SandboxBackendName[];
  readonly #host: ConfinerHost;
  /** The canonical `spillDir` the caller chose, which no writable root may hold. */
  readonly #chosenSpillDir: string | undefined;
  readonly #confinement: Confinement;
  readonly #probes: BackendProbes;
  /** Every root this executor's confined commands could have written so far. */
  readonly #granted: GrantedRoots;
  /** Each list of programs found outside every root granted, with how many were granted then. */
  readonly #outside = new OutsideRoots();
  /** The exposure of what runs before each call's backend, kept while it is none. */
  readonly #checks = new ExposureChecks();
  readonly #network: NetworkLaunches;
  /** Confined launches started ahead of the calls that will run in them. */
  readonly #standbys: Standbys;
  /**
   * What the protected-path walks keep from call to call (listings, git
   * configs), with a folder watch (closed at disposal).
   */
  readonly #walkMemory = new WalkMemory(new FolderListings(undefined, new FolderWatch()));
  /** Every user's folder of private folders beside this executor's, watched between calls. */
  readonly #privateParents = new WatchedPrivateParents();
  /**
   * Started at construction, off the first call's path: the standby of a
   * call of the default policy, when the first backend may launch before
   * its probe ends (see `#standbyAhead`); meanwhile under
   * `workspace-write`, unless a call came first, a walk that fills the
   * listings the first call's walk reuses; and the first backend's probe,
   * unless the first call's launch will prove that backend (see
   * `#provedByFirstCall`). The first call awaits the same probe (and gets
   * its error); disposal awaits this.
   */
  readonly #ahead: Promise<void> | undefined;
  /** Set once disposal began: nothing more is started ahead. */
  #stopped = false;
  /** Set once a call was planned: its own walk lists what a walk ahead would. */
  #planned = false;
  /** How many calls were planned so far: their order (see `Standbys.prepare`). */
  #plans = 0;
  /**
   * The standby started at construction (see `#standbyAhead`), until it was
   * spawned or failed to be: a confined call is planned once it was. The
   * first call waits for that standby's start in any case; its plan, made
   * meanwhile, only delayed the spawn (the first call at once after
   * construction against a warm one, interleaved on 2 busy cores: 1.78 ->
   * 1.62, default backends 1.51 -> 1.37).
   */
  #standbyStarting: Promise<void> | undefined;

  /** Checks the default policy against the spill folder; throws `BashConfigError` if a root holds it. */
  constructor(options: ConfinerOptions, host: ConfinerHost) {
    this.#host = host;
    this.#standbys = new Standbys(host);
    const { spillDir } = host.config;
    this.#chosenSpillDir = options.spillDirChosen
      ? existingRealpath(spillDir) ?? spillDir
      : undefined;
    this.defaultPolicy = options.defaultPolicy;
    this.backends = options.backends;
    this.#confinement = new Confinement(options.home, () => host.privateDir());
    const granted = new GrantedRoots(options.defaultPolicy);
    this.#granted = granted;
    this.#probes = new BackendProbes(
      {
        searchPath: options.searchPath,
        probeTimeoutMs: options.probeTimeoutMs,
        defaultPolicy: options.defaultPolicy,
        confinedLimits: callDefaultLimits(true, host.config.limits),
        writableRoots: () => granted.with(),
      },
      host,
      this.#confinement,
    );
    this.#network = new NetworkLaunches(
      {
        searchPath: options.searchPath,
        probeTimeoutMs: options.probeTimeoutMs,
        exposure: (programs) => this.#probes.exposure({ programs, folders: [] }),
        backends: options.backends,
        proxyOptions: options.proxyOptions,
      },
      host,
    );
    this.#checkSpillDir(this.defaultPolicy);
    if (confines(this.defaultPolicy.mode)) this.#ahead = this.#runAhead();
  }

  /** See `#ahead`. */
  async #runAhead(): Promise<void> {
    // Once the constructor returned and the code that called it ran on.
    await new Promise((done) => setTimeout(done, 0));
    const first = this.backends[0];
    if (first === undefined || this.#stopped) return;
    // Started first: the probe's processes (the watchdog's, then its own)
    // run while this process walks.
    const probe = this.#provedByFirstCall(first).then((proved) => {
      if (!proved) return this.#probes.probe(first);
    }).catch(() => {
      // Nothing is lost: the first call awaits the same probe and gets its error.
    });
    const standby = this.#standbyAhead(first).catch(() => {
      // No standby: the first call starts as usual, and says what fails then.
    });
    this.#standbyStarting = standby;
    try {
      if (this.defaultPolicy.mode === "workspace-write" && !this.#planned) {
        const policy = confinedRoots(this.defaultPolicy);
        this.#walkMemory.prime(
          [policy.workspaceRoot, ...policy.writableRoots],
          policy.protectedPaths,
        );
      }
    } catch {
      // Nothing is lost: the first call's own walk reports what this one met.
    }
    await Promise.all([probe, standby]);
  }

  /**
   * Whether the first call's launch, under backend `first` before its probe
   * ended, will say that its command started (see `#announces`), which
   * proves the backend as its probe's launch would (see
   * `BackendProbes.proven`): no probe runs ahead then, whose processes
   * would take the cores from that first call (measured on 2 busy cores,
   * the first call made at once after construction against a warm one:
   * 2.24 -> 1.44). A call that ends before its command started, or one
   * without that word, starts the probe.
   */
  async #provedByFirstCall(first: SandboxBackendName): Promise<boolean> {
    const backend = await this.#probes.beforeProbe(first);
    return backend !== undefined && this.#announces(backend, this.defaultPolicy);
  }

  /**
   * Whether a launch of `backend` under `policy` says when its command
   * starts: bwrap's namespace reporter says it (but for a call under a
   * network allow-list, which takes another way), or the backend's launch
   * itself does.
   */
  #announces(backend: SandboxBackend, policy: Readonly<SandboxPolicy>): boolean {
    return backend.announcesStart === true || this.#reported(backend, policy);
  }

  /**
   * Whether a launch of `backend` under `policy` runs bwrap's namespace
   * reporter, which ends what the shell left running in the pid namespace
   * before the host can look, says what it ended (see `strayReport`) and
   * when the command starts.
   */
  #reported(backend: SandboxBackend, policy: Readonly<SandboxPolicy>): boolean {
    return backend.name === "bwrap" && typeof policy.network !== "object";
  }

  /**
   * Starts the standby of a call of the default policy (see `#standby`)
   * under backend `first`, while its probe runs, when that backend may
   * launch before its probe ends: the first call takes it (it already
   * joined its cgroups) in place of a cold launch. Taken, its launch
   * proves the backend as a cold one does (the namespace's reporter says
   * the command started); a backend that turns out broken fails that launch
   * before it starts, and the call gets the probe's error. None under a
   * network allow-list (its calls take none), nor without cgroups.
   */
  async #standbyAhead(first: SandboxBackendName): Promise<void> {
    const policy = this.defaultPolicy;
    if (typeof policy.network === "object") return;
    const backend = await this.#probes.beforeProbe(first);
    const launch = this.#host.bareLaunch("true", policy.workspaceRoot);
    if (backend === undefined || launch === undefined || this.#stopped) return;
    const standby = backend.standby?.(launch, await this.#confinement.confine(policy));
    if (standby === undefined) return;
    // Not set up ahead: a call's own plan (its walk, its hidden folders) would differ from it.
    delete standby.setUp;
    const slot = await this.#host.cgroupSlot(callDefaultLimits(true, this.#host.config.limits));
    if (slot !== undefined && !this.#stopped) await this.#standbys.prepare(slot, standby);
  }

  /**
   * The default policy for a request without one (absent or `null`), or the
   * request's policy checked, its paths canonical; a request policy without
   * `denyRead`, `allowRead` or `allowUnixSockets` takes the executor's.
   * Throws `BashConfigError` for an invalid policy.
   */
  resolvePolicy(policy: SandboxPolicy | null | undefined): SandboxPolicy {
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

  /**
   * A call's default resource limits: the confined defaults with the
   * config's `limits` over them; the config's alone for `danger-full-access`.
   */
  defaultLimits(spec: BashExecSpec): ResourceLimits {
    const { mode } = spec.sandboxPolicy ?? this.defaultPolicy;
    return callDefaultLimits(confines(mode), this.#host.config.limits);
  }

  /**
   * Why `programs` (with the setsid binary, and the host's tool folders)
   * must not run outside any sandbox now: one lies in a root granted so
   * far (see `GrantedRoots`); undefined when none does.
   */
  unconfinedExposure(programs: readonly string[]): string | undefined {
    // The check runs at every spawn; a look is taken again once a root was granted.
    return this.#outside.check(
      programs,
      this.#granted.size,
      () => this.#probes.exposure({ programs, folders: [] })?.reason,
    );
  }

  /** Every backend's probe, each run once per executor. */
  async probeBackends(): Promise<SandboxBackendStatus[]> {
    const probes = await Promise.all(this.backends.map((name) => this.#probes.probe(name)));
    return probes.map((probe) => ({ ...probe.status }));
  }

  /** The network proxy's state: `undefined` until a command with an allow-list first ran. */
  async networkProxyState(): Promise<ProxyState | undefined> {
    return await this.#network.state();
  }

  /** Kills the standbys and starts none afterwards; the executor calls it as its disposal starts. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#standbys.dispose();
  }

  /**
   * Stops the network proxy, and awaits what was started ahead; the
   * executor calls it after its commands are gone.
   */
  async dispose(): Promise<void> {
    this.#stopped = true;
    await this.#ahead;
    this.#walkMemory.close();
    this.#privateParents.close();
    await this.#network.close();
  }

  /**
   * The launch plan of a call: `launch` wrapped in the selected backend (and
   * the bridge, under an allow-list), or unwrapped for `danger-full-access`.
   */
  async plan(spec: BashExecSpec, launch: Launch, limits: LaunchLimits): Promise<LaunchPlan> {
    this.#planned = true;
    const order = ++this.#plans;
    this.#standbys.postpone(order);
    // A spec without a policy gets the default: never unconfined by accident.
    const policy = spec.sandboxPolicy ?? this.defaultPolicy;
    const { mode } = policy;
    if (!confines(mode)) {
      // Its bash and setsid are checked as they are spawned (see Confiner.unconfinedExposure).
      return { launch, describe: () => ({ mode, backend: "none", denied: false }) };
    }
    await this.#standbyStarting;
    const confined = await this.#confinement.confine(policy);
    // Granted before its backend is chosen: a probe this call starts, and
    // every later call, counts its roots, whatever roots that call has.
    this.#granted.grant(confined);
    const own = await this.#host.privateDir();
    const roots = [confined.workspaceRoot, ...confined.writableRoots, launch.cwd];
    const ownReal = existingRealpath(own) ?? own;
    const parents = this.#privateParents.of(dirname(dirname(ownReal)));
    // Resolved once for every folder below (each resolve is a system call a path component).
    const canonicalRoots = roots.map(canonicalPath);
    const holdsNoRoot = (dir: string) => !canonicalRoots.some((root) => isBeneath(root, dir));
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
    const bash = launch.program;
    // A backend that limits the network to the proxy's port itself needs no bridge.
    const bridged = (backend: SandboxBackend) =>
      allowList !== undefined && backend.limitsNetworkToProxyPort !== true;
    const reported = (backend: SandboxBackend) => this.#reported(backend, policy);
    const announces = (backend: SandboxBackend) => this.#announces(backend, policy);
    const { backend, verdict, again } = await chooseBackend(
      this.#probes,
      this.backends,
      confined,
      launch,
      {
        setsid: this.#host.config.setsidPath,
        toolFolders: toolFoldersOf(this.#host.config.toolPath),
        writableRoots: this.#granted.with([confined.workspaceRoot, ...confined.writableRoots]),
        checks: this.#checks,
        bridge: async (backend) =>
          bridged(backend) ? bridgeRunners(await this.#network.bridge(), bash) : [],
      },
      announces,
    );
    const tools = bridged(backend) ? await this.#network.bridge() : undefined;
    if (spec.terminal !== undefined) confined.terminal = true;
    await this.#probes.restore(backend);
    const guard = await this.#guard(confined, [
      existingRealpath(own) ?? own,
      ...(confined.hiddenDirs ?? []),
    ]);
    confined.readOnlyPaths = guard?.plan.readOnly ?? [];
    guard?.watch();
    const enforcement = enforcementOf(backend, confined, guard);
    // The launch's own proxy socket (or port) and credentials, dropped when it settles (see
    // describe); the port goes into the backend's policy.
    const network = allowList === undefined
      ? undefined
      : tools === undefined
      ? { proxy: await this.#network.openLoopback(allowList) }
      : { tools, proxy: await this.#network.open(allowList) };
    if (network !== undefined && "port" in network.proxy) confined.proxyPort = network.proxy.port;
    // What the reporter ended goes to a file of this call.
    const strayReport = reported(backend) ? join(own, `strays-${crypto.randomUUID()}`) : undefined;
    if (strayReport !== undefined) confined.strayReport = strayReport;
    const wrapped = () =>
      backend.wrap(
        network === undefined ? launch : {
          ...launch,
          env: {
            ...launch.env,
            ...proxyEnv(
              network.proxy.token,
              "port" in network.proxy ? network.proxy.port : BRIDGE_PORT,
            ),
          },
        },
        confined,
        limits,
        spec.stdin !== undefined || spec.keepStdinOpen === true,
      );
    let made: Launch | undefined;
    const standby = network === undefined ? backend.standby?.(launch, confined) : undefined;
    // A standby that takes the launch writes the count to its own file, opened before the call.
    let report = strayReport;
    return {
      // The backend's launch applies the call's rlimits and joins its cgroups.
      limitsApplied: true,
      ...(verdict === undefined ? {} : { verdict }),
      ...this.#standby(spec, standby, limits, order, (pid) => {
        if (strayReport !== undefined) report = standby?.strayReport?.(pid) ?? strayReport;
      }),
      ...(strayReport === undefined ? {} : {
        pidNamespace: true,
        namespaceStrays: () => readStrayReport(report ?? strayReport),
      }),
      // The namespace's reporter (bwrap's setup done), or the backend's launch, says when the
      // command starts. A launch made before the probe that refused its backend for another
      // is planned again, under that one.
      ...(!announces(backend) ? {} : {
        announcesStart: {
          retry: (stderr) =>
            backend.setupRaced?.(stderr, confined) === true || (again?.() ?? false),
        },
      }),
      // Made when the engine first reads it, to spawn it: a call that a standby takes never
      // does, and its wrapper's options (half a millisecond of CPU a call) go unbuilt.
      get launch(): Launch {
        made ??= network?.tools === undefined ? wrapped() : wrapInBridge(
          wrapped(),
          network.tools,
          bash,
          network.proxy.socketPath,
          limits?.cgroupProcs ?? [],
        );
        return made;
      },
      describe: (outcome): BashSandboxInfo => {
        const violations = guard?.settle() ?? [];
        // The sweeps may have met a bound that the launch did not.
        const { gaps } = guard === undefined
          ? enforcement
          : enforcementOf(backend, confined, guard);
        const runnerFailed = backend.runnerFailed(outcome) ||
          (network?.tools !== undefined &&
            bridgeFailed(outcome.exitCode, firstLine(outcome.stderrText)));
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
   * What a plan says of the call's standby (see `sandbox/_standby.ts`), when
   * its launch can run in one and cgroups hold its limits: it takes the
   * standby waiting when it has no stdin, and the next one starts then,
   * while the command runs (else once it settled). An agent's next call
   * comes as soon as it has a result: a standby started only then was still
   * starting when that call took it. Measured on 2 busy cores, back-to-back
   * `run("echo ok")` calls: Landlock's (a Deno launcher, about 80 ms of CPU
   * to start) took 190 ms against bwrap's 110, and 107 against 101 with 200
   * ms between calls. `order` is the call's (see `Standbys.prepare`); `taken`
   * is told the pid of a standby that took the launch.
   */
  #standby(
    spec: BashExecSpec,
    standby: LaunchStandby | undefined,
    limits: LaunchLimits,
    order: number,
    taken: (pid: number) => void,
  ): Pick<LaunchPlan, "takeAhead" | "afterSettle"> {
    const slot = limits.cgroups;
    if (standby === undefined || slot === undefined) return {};
    const stdinNull = spec.stdin === undefined && spec.keepStdinOpen !== true;
    return {
      ...(stdinNull
        ? {
          takeAhead: async (signal) => {
            const ahead = await this.#standbys.take(slot, standby, limits.rlimits, signal);
            if (ahead !== undefined) taken(ahead.child.pid);
            // Set up once the command settled: bwrap's mounts, made while it runs, would slow it.
            void this.#standbys.prepare(slot, standby, order, "no");
            return ahead;
          },
        }
        : {}),
      afterSettle: () => void this.#standbys.prepare(slot, standby, order, "later"),
    };
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
    const quarantine = join(await this.#host.privateDir(), "quarantine");
    return new ProtectedPaths(
      roots,
      policy.protectedPaths,
      () => quarantine,
      privateDirs,
      this.#walkMemory,
    );
  }
}
