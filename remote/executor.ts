import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashExecutorLimits,
  type BashProcess,
  type BashRunResult,
  BashSpawnError,
} from "../seam/mod.ts";
import { checkTerminalSize } from "../seam/checks.ts";
import {
  appliedLimits,
  backgroundProcess,
  BASH_FLAGS,
  callDefaultLimits,
  type CgroupSupport,
  checkBackground,
  checkForeground,
  clocks,
  confines,
  disposedError,
  ENV_OVERRIDES,
  ExecutorLifecycle,
  executorLimits,
  fillRequest,
  finishRun,
  hasLimits,
  helperSetsid,
  HOST_SIGNALS,
  type HostSignal,
  type Launched,
  limitedLaunch,
  makePrivateDir,
  mergeLimits,
  OutputCollector,
  RunningCommand,
  TERMINAL_ENV_OVERRIDES,
  terminalCommand,
  throwIfDenied,
} from "../engine/mod.ts";
import { type ChannelRequest, RemoteChannel } from "./_channel.ts";
import { type ProbeResult, type RemotePlan, RemoteSandbox } from "./_sandbox.ts";
import {
  type ResolvedSshBashExecutorConfig,
  resolveSshConfig,
  type SshBashExecutorConfig,
} from "./_config.ts";
import { ChannelSlots } from "./_slots.ts";
import { parseTools, type RemoteTools, toolsProbe } from "./_tools.ts";
import { type RemoteTransport, SshTransport } from "./transport.ts";

/**
 * The remote side of a resize, for `bash -c` with the remote shell's pid,
 * the rows and the columns: the first process below it (breadth first)
 * whose stdin is a terminal gets the size by `stty -F`, as locally (see
 * engine/_terminal.ts).
 */
const REMOTE_RESIZE = 'q=("$1"); while [ "${#q[@]}" -gt 0 ]; do p=${q[0]}; q=("${q[@]:1}"); ' +
  'if [ "$p" != "$1" ]; then case $(readlink "/proc/$p/fd/0" 2>/dev/null) in /dev/pts/*) ' +
  'exec stty -F "/proc/$p/fd/0" rows "$2" cols "$3" ;; esac; fi; ' +
  'for t in /proc/"$p"/task/*/children; do c=(); { read -r -a c < "$t"; } 2>/dev/null; ' +
  'q+=("${c[@]}"); done; done; echo "no process of the command holds a terminal" >&2; exit 3';

const encoder = new TextEncoder();

/**
 * Runs bash commands on a remote host through the system OpenSSH client,
 * with the contract of the local executor: each command in a session and
 * process group of its own (`setsid` on the remote), the environment
 * overrides and the call's `env`/`managedEnv` set explicitly (the local
 * environment is never sent), SIGTERM then SIGKILL to the remote group,
 * the drain grace, a census of strays by session id in the remote /proc,
 * wall and idle clocks, abort, and output collected here with the same
 * head + tail + spill as the local executor.
 *
 * One multiplexed connection per executor (a master started on first use,
 * stopped at disposal), so a command costs a channel, not a handshake; at
 * most `maxChannels` (default 10, sshd's `MaxSessions`) run at once, the
 * rest wait. A background process holds its channel for its whole life, so
 * background processes may hold at most `maxChannels - 1`: one channel is
 * kept for foreground runs (which end on their own), and a `start()` that
 * would take it rejects at once with `BashSpawnError`. A small bash bootstrap, sent as the remote command with each
 * command, does the remote half; stdin is framed, so the end of stdin means
 * the connection was lost and the bootstrap kills the command. A run whose
 * connection was lost says `connectionLost: true`; a connection that cannot
 * be opened rejects with `BashSpawnError`.
 *
 * The wall and idle clocks count, as the local executor's do, from the
 * moment the command started: here when the remote side says so, after the
 * wait for a channel and its opening, so a command queued behind others
 * runs for its whole `timeoutMs`.
 *
 * Differences from the local executor: the drain grace waits for the
 * session's processes rather than for the pipes; `scrubbedEnv` is
 * empty (the remote session's own environment, from sshd, is the base:
 * ambient `SHELLSEAM_*`, `BASH_ENV`, `ENV`, `SHELLOPTS`, `BASHOPTS` and
 * exported functions are dropped there). Confined sandbox modes fail closed
 * with `SandboxUnavailableError`.
 *
 * @example A host that cannot be reached: the call rejects, nothing runs, on Deno and Node 24 (`await using`)
 * ```ts
 * import { SshBashExecutor } from "@shellseam/bash/remote";
 * import { BashSpawnError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * await using executor = new SshBashExecutor({ host: "127.0.0.1", port: 1, cwd: "/srv/app" });
 * const spec = executor.resolve({ command: "make", workdir: "build" });
 * assert.equal(spec.workdir, "/srv/app/build");
 * await assert.rejects(executor.run({ command: "make", workdir: "build" }), BashSpawnError);
 * ```
 *
 * @example Run a command over SSH (needs a host), on Deno and Node 24 (`await using`)
 * ```ts ignore
 * import { SshBashExecutor } from "@shellseam/bash/remote";
 *
 * await using executor = new SshBashExecutor({
 *   host: "build-1.internal",
 *   user: "agent",
 *   identityFile: "/home/me/.ssh/agent_ed25519",
 *   knownHostsFile: "/home/me/.ssh/known_hosts",
 *   cwd: "/srv/app",
 * });
 * const result = await executor.run({ command: "git status --short" });
 * console.log(result.stdout.text);
 * ```
 */
export class SshBashExecutor extends BashExecutor {
  /** The validated config, defaults filled in. */
  readonly config: ResolvedSshBashExecutorConfig;
  readonly #slots: ChannelSlots;
  readonly #lifecycle = new ExecutorLifecycle(() => this[Symbol.asyncDispose]());
  #transport: RemoteTransport | null = null;
  #sandbox: RemoteSandbox | null = null;
  #dir: string | null = null;
  /**
   * Where the remote side finds its own programs (see `_tools.ts`): learned
   * before the first confined command, and kept once known.
   */
  #tools: Promise<RemoteTools> | null = null;
  #knownTools: RemoteTools | null = null;
  /** Whether the remote host has util-linux script (see #checkScript). */
  #scriptCheck: Promise<void> | undefined;
  /** The util-linux `setsid` each command's `ssh` starts through (see `helperSetsid`), or null. */
  readonly #setsid: string | null;

  /** Validates the config (throws `BashConfigError` naming the field); connects on first use. */
  constructor(config: SshBashExecutorConfig) {
    super();
    try {
      this.config = resolveSshConfig(config);
      this.#setsid = helperSetsid();
    } catch (error) {
      // PATH, to find ssh: read here, and refusable.
      throwIfDenied(error, "read the environment and find ssh");
      throw error;
    }
    this.#slots = new ChannelSlots(this.config.maxChannels);
  }

  /**
   * The transport in use: the `ssh` invocation, its control socket and the
   * channel cap. Made on first use.
   */
  get transport(): SshTransport {
    this.#transport ??= new SshTransport({
      ssh: this.config.ssh,
      host: this.config.host,
      ...defined("port", this.config.port),
      ...defined("user", this.config.user),
      ...defined("identityFile", this.config.identityFile),
      ...defined("knownHostsFile", this.config.knownHostsFile),
      hostKeyChecking: this.config.hostKeyChecking,
      configFile: this.config.sshConfigFile,
      options: this.config.sshOptions,
      connectTimeoutSeconds: this.config.connectTimeoutSeconds,
      maxChannels: this.config.maxChannels,
      dir: this.#privateDir(),
      keepDir: this.config.keepSpillFiles,
      setsidPath: this.#setsid,
    });
    return this.#transport as SshTransport;
  }

  /**
   * Fills a request from the defaults like the local executor (the same
   * code): workdir resolved against the remote `cwd`, timeouts defaulted and
   * capped, `stdoutMaxBytes` defaulted, `sandboxPolicy` null when absent.
   * Throws `BashConfigError` naming the field. The spec is frozen and marked,
   * so `run()` and `start()` take it without checking it again.
   */
  resolve(request: BashExecRequest): BashExecSpec {
    return this.markResolved(fillRequest(request, this.config, (policy) => policy ?? null));
  }

  /** The time and output limits of this executor, from its config (as the local executor's). */
  get limits(): BashExecutorLimits {
    return executorLimits(this.config);
  }

  /**
   * Runs a command on the remote host in the foreground. Rejects with
   * `BashSpawnError` when it cannot start (no connection, missing workdir,
   * pre-aborted signal, disposed executor); a non-zero exit, a timeout, an
   * abort or a lost connection (`connectionLost: true`) resolves. Takes a
   * request (resolved first) or a spec from `resolve()`; `onOutput` sees the
   * output as it arrives.
   */
  async run(request: BashExecRequest): Promise<BashRunResult> {
    const spec = this.specOf(request);
    checkForeground(spec);
    const launched = await this.#launch(spec, false);
    // The remote session's environment is the base: nothing is scrubbed here.
    const result = await finishRun(spec, launched, []);
    return { ...result, connectionLost: launched.channel.lost };
  }

  /**
   * Starts a command on the remote host in the background; resolves once the
   * remote shell runs. Takes a request or a spec like {@linkcode run};
   * refuses `onOutput` (read `process.output()` instead).
   */
  async start(request: BashExecRequest): Promise<BashProcess> {
    const spec = this.specOf(request);
    checkBackground(spec);
    if (spec.terminal !== undefined) await this.#checkScript();
    const launched = await this.#launch(spec, true);
    return backgroundProcess(
      spec,
      launched,
      spec.terminal === undefined ? undefined : {
        resize: (rows, cols) => this.#resize(launched.channel.pid, rows, cols),
      },
    );
  }

  /**
   * Makes this process, on SIGTERM, SIGINT or SIGHUP (or the `signals`
   * given), dispose this executor (and every other executor that asked):
   * every remote command gets SIGTERM, then SIGKILL after `killGraceMs`, and
   * the process exits once they ended, with 128 + the signal's number (143,
   * 130, 129). Without it, a host killed by a signal still leaves nothing
   * running (the watchdog stops the connection, and the remote side kills
   * its commands), but nothing awaits their end. Returns what removes the
   * listeners again; disposal removes them too. The same as the local
   * executor's.
   *
   * @example On Deno and Node 24 (`await using` and `using`)
   * ```ts
   * import { SshBashExecutor } from "@shellseam/bash/remote";
   * import assert from "node:assert/strict";
   * import process from "node:process";
   *
   * await using executor = new SshBashExecutor({ host: "build-1.internal" });
   * const before = process.listenerCount("SIGHUP");
   * using _hook = executor.killOnSignals(["SIGHUP"]);
   * assert.equal(process.listenerCount("SIGHUP"), before + 1);
   * ```
   */
  killOnSignals(signals: readonly HostSignal[] = HOST_SIGNALS): Disposable {
    return this.#lifecycle.killOnSignals(signals);
  }

  /**
   * Kills every running command (SIGTERM, then SIGKILL after `killGraceMs`,
   * on the remote host), awaits every end, closes the connection and removes
   * the private folder (control socket, spill files) unless `keepSpillFiles`.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#lifecycle.dispose({
      stop: () => this.#slots.close(disposedError),
      close: async () => {
        const folder = this.#sandbox?.folder ?? null;
        if (folder !== null) {
          // The remote private folder of confined commands; a lost connection leaves it behind.
          await this.#probe(["rm", "-rf", "--", folder], false).catch(() => {});
        }
        await this.#transport?.close();
        if (this.#dir !== null && !this.config.keepSpillFiles) {
          rmSync(this.#dir, { recursive: true, force: true });
          this.#dir = null;
        }
      },
    });
  }

  #privateDir(): string {
    try {
      // Among the local private folders, which a local sandbox hides from its commands: the
      // control socket here runs anything on the remote host, unconfined.
      this.#dir ??= makePrivateDir(tmpdir());
    } catch (error) {
      throwIfDenied(error, "make the private folder for the control socket and spill files");
      throw error;
    }
    return this.#dir;
  }

  #spillDir = (): string => this.#privateDir();

  #launch(
    spec: BashExecSpec,
    background: boolean,
  ): Promise<RemoteLaunched> {
    return this.#lifecycle.launch(this.#spawn(spec, background));
  }

  async #spawn(spec: BashExecSpec, background: boolean): Promise<RemoteLaunched> {
    this.#lifecycle.checkCanSpawn(spec);
    const terminal = spec.terminal;
    const overrides = terminal === undefined ? ENV_OVERRIDES : TERMINAL_ENV_OVERRIDES;
    const env: Record<string, string> = { ...overrides, ...spec.env, ...spec.managedEnv };
    // In a terminal, the remote bash runs util-linux script (see engine/_terminal.ts).
    const command = terminal === undefined
      ? spec.command
      : terminalCommand(spec.command, terminal, "script");
    const keepStdinOpen = background && spec.keepStdinOpen === true;
    const pipedStdin = spec.stdin !== undefined || keepStdinOpen;
    const confining = confines(spec.sandboxPolicy?.mode);
    // As locally: confined commands get the sandbox's default limits; the call's go over them.
    const limits = mergeLimits(
      callDefaultLimits(confining, this.config.limits),
      spec.limits,
    );
    const bashLaunch = {
      program: this.config.shell,
      args: [...BASH_FLAGS, "-c", command],
      cwd: spec.workdir,
      env,
    };
    const launch = hasLimits(limits) ? limitedLaunch(bashLaunch, limits) : bashLaunch;
    let confined: RemotePlan | undefined;
    if (spec.sandboxPolicy !== null) {
      this.#sandbox ??= new RemoteSandbox(
        this.config.host,
        () => this.#learnTools(),
        (argv) => this.#probe(argv),
      );
      confined = await this.#sandbox.confine(spec.sandboxPolicy, launch, pipedStdin);
    }
    // A background process may not take the channel kept for foreground runs (see ChannelSlots).
    const place = background ? this.#backgroundPlace() : undefined;
    const opening = this.#open(spec, {
      command,
      workdir: spec.workdir,
      env: Object.entries(confined?.env ?? env).map(([name, value]) => `${name}=${value}`),
      // The sandbox wrapper (planned in the channel), or the limits' script; else the
      // bootstrap runs bash -c itself.
      ...(confined?.prepare !== undefined
        ? { prepare: confined.prepare }
        : launch === bashLaunch
        ? {}
        : { argv: [launch.program, ...launch.args] }),
      pipedStdin,
      ...this.#remoteSide(),
    });
    let channel: RemoteChannel, release: () => void;
    try {
      // Resolved when the remote side said the command started: its clocks start now.
      ({ channel, release } = await opening);
    } catch (error) {
      place?.();
      throw error;
    }
    const { config } = this;
    const running = new RunningCommand({
      child: channel.child,
      reaper: channel.reaper,
      stdout: this.#collector(spec.stdoutMaxBytes),
      stderr: this.#collector(config.maxOutputBytes),
      killGraceMs: config.killGraceMs,
      drainGraceMs: config.drainGraceMs,
      stdin: typeof spec.stdin === "string" ? encoder.encode(spec.stdin) : spec.stdin,
      keepStdinOpen,
      ...clocks(spec, background),
      ...(spec.onOutput === undefined ? {} : { onOutput: spec.onOutput }),
    });
    channel.onLost = () => running.kill("lost");
    this.#lifecycle.track(running);
    running.settled.then(async () => {
      // Its place goes back at once, so a start() right after its kill() is not refused.
      place?.();
      await channel.release();
      release();
    });
    const describe = confined?.describe;
    return {
      running,
      channel,
      plan: {
        launch,
        ...(describe === undefined
          ? {}
          : { describe: (outcome) => describe(outcome, channel.violations) }),
      },
      limits,
      applied: appliedLimits(limits, confining, NO_REMOTE_CGROUP, channel.uid === 0),
      cgroup: null,
    };
  }

  /** Waits for a channel, opens the connection if needed, and starts the command over it. */
  async #open(
    spec: BashExecSpec | boolean,
    request: ChannelRequest,
  ): Promise<{ channel: RemoteChannel; release: () => void }> {
    const transport = this.transport;
    // Only the clean-up at disposal goes past the closed queue (nothing else runs by then).
    const release = spec === false ? () => {} : await this.#slots.acquire();
    try {
      if (typeof spec === "object") this.#lifecycle.checkCanSpawn(spec);
      await transport.connect();
      if (typeof spec === "object") this.#lifecycle.checkCanSpawn(spec);
      return { channel: await RemoteChannel.open(transport, request), release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * A background process's place (see `ChannelSlots`); throws
   * `BashSpawnError` when it would take the channel kept for foreground runs.
   */
  #backgroundPlace(): () => void {
    const place = this.#slots.reserveBackground();
    if (place !== null) return place;
    const limit = this.#slots.backgroundLimit;
    const name = this.transport.name;
    throw new BashSpawnError(
      limit === 0
        ? `With "maxChannels" 1, the one channel to ${name} is kept for foreground commands, so no background process can start; run it in the foreground, or raise "maxChannels" if the server's MaxSessions allows`
        : `${limit} background processes already hold ${limit} of the ${this.config.maxChannels} channels to ${name}, and one is kept for foreground commands, so nothing was started; end a background process first (task_kill), run this one in the foreground, or raise "maxChannels" if the server's MaxSessions allows`,
    );
  }

  /**
   * Sets the size of the terminal below the remote shell `pid` (see
   * {@linkcode REMOTE_RESIZE}); rejects with `BashConfigError` when it cannot.
   */
  async #resize(pid: number, rows: number, cols: number): Promise<void> {
    const size = checkTerminalSize("size", { rows, cols });
    const probe = await this.#probe([
      this.config.shell,
      ...BASH_FLAGS,
      "-c",
      REMOTE_RESIZE,
      "shellseam-resize",
      `${pid}`,
      `${size.rows}`,
      `${size.cols}`,
    ]);
    if (probe.exitCode !== 0) {
      throw new BashConfigError(
        `Could not resize the terminal of remote process ${pid} (${
          probe.stderr.trim() || `exit ${probe.exitCode}`
        }); it may have just ended`,
      );
    }
  }

  /**
   * Rejects with `BashSpawnError` when the remote host has no util-linux
   * `script` on its PATH (the search path of the remote side's programs once
   * learned), which a terminal needs; asked once per executor.
   */
  #checkScript(): Promise<void> {
    this.#scriptCheck ??= this.#probe([
      this.config.shell,
      "--norc",
      "--noprofile",
      "-c",
      "command -v script",
    ]).then((probe) => {
      if (probe.exitCode !== 0) {
        throw new BashSpawnError(
          `A terminal needs util-linux "script" on the remote host ${this.config.host}, which has none on its PATH; install util-linux there (Debian: bsdutils), or start the command without "terminal"`,
        );
      }
    });
    // A rejection is not kept: the next call asks again (script installed since, a lost connection).
    this.#scriptCheck.catch(() => this.#scriptCheck = undefined);
    return this.#scriptCheck;
  }

  /**
   * Runs a probe of the remote host (`argv`, unconfined, no stdin) and
   * resolves with its exit code and output once it ended.
   */
  async #probe(argv: string[], queued = true): Promise<ProbeResult> {
    if (queued) this.#lifecycle.checkOpen();
    const { channel, release } = await this.#open(queued, {
      command: "",
      workdir: "/",
      // A probe's programs are the remote side's own: found on their search path once known.
      env: Object.entries({
        ...ENV_OVERRIDES,
        ...(this.#knownTools === null ? {} : { PATH: this.#knownTools.path }),
      }).map(([name, value]) => `${name}=${value}`),
      argv,
      pipedStdin: false,
      ...this.#remoteSide(),
    });
    try {
      const { child } = channel;
      const [stdout, stderr, exit] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      await channel.reaper.sweep(false);
      return { exitCode: exit.code, stdout, stderr };
    } finally {
      await channel.release();
      release();
    }
  }

  /**
   * What every channel's bootstrap is run with: the remote bash and the
   * search path of its own programs once learned (else the configured bash
   * and the session's PATH), and the grace periods.
   */
  #remoteSide(): Pick<ChannelRequest, "shell" | "tools" | "killGraceMs" | "drainGraceMs"> {
    return {
      shell: this.#knownTools?.shell ?? this.config.shell,
      tools: this.#knownTools?.path ?? "",
      killGraceMs: this.config.killGraceMs,
      drainGraceMs: this.config.drainGraceMs,
    };
  }

  /**
   * Learns where the remote side finds its own programs, once: a confined
   * command awaits it before it runs, so every program the remote side runs
   * unconfined from then on was found before any confined command could
   * plant one. A failure is not kept (a lost connection is tried again).
   */
  #learnTools(): Promise<RemoteTools> {
    if (this.#tools === null) {
      const { host, shell } = this.config;
      const tools = this.#probe(toolsProbe(shell)).then((probe) => {
        this.#knownTools = parseTools(host, shell, probe.exitCode, probe.stdout);
        return this.#knownTools;
      });
      this.#tools = tools;
      tools.catch(() => {
        if (this.#tools === tools) this.#tools = null;
      });
    }
    return this.#tools;
  }

  #collector(maxBytes: number): OutputCollector {
    const { headBytes, maxSpillBytes } = this.config;
    return new OutputCollector({ maxBytes, headBytes, maxSpillBytes, spillDir: this.#spillDir });
  }
}

/**
 * A launched command as the engine builds every executor's result from it
 * (its plan's `describe` adds the protected paths the channel moved away),
 * with the channel it runs over.
 */
interface RemoteLaunched extends Launched {
  channel: RemoteChannel;
}

/** No cgroup is made on the remote host: every limit is an rlimit there. */
const NO_REMOTE_CGROUP: CgroupSupport = {
  processes: { unavailable: "the SSH executor makes no cgroup on the remote host" },
  memoryBytes: { unavailable: "the SSH executor makes no cgroup on the remote host" },
};

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
