import { lstatSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { BashSpawnError } from "../seam/mod.ts";
import { runtime, type SessionStrategy, type SpawnedChild } from "../runtime/mod.ts";
import {
  exposedLocation,
  findOnPath,
  inOwnSession,
  throwIfDenied,
  Watchdog,
  WATCHDOG_VARIABLE,
} from "../engine/mod.ts";
import { grantedCount, grantedRoots, OutsideRoots } from "../sandbox/protected/mod.ts";

/**
 * How the remote executor reaches a shell on the other side: the program
 * and arguments whose stdin, stdout and stderr are those of `remoteCommand`,
 * a command line that a POSIX shell on the remote side runs. The executor
 * sends its bootstrap as that command line, so a transport needs nothing on
 * the remote side but `bash`, util-linux `setsid`, coreutils and `/proc`.
 *
 * {@linkcode SshTransport} is the one that ships. Others would be small:
 * `docker exec -i CONTAINER sh -c <remoteCommand>` or
 * `kubectl exec -i POD -- sh -c <remoteCommand>` as `command()`, with
 * `connect()` and `close()` doing nothing and `maxChannels` as high as the
 * daemon allows. What they lose against SSH: no multiplexed connection (each
 * command starts a `docker`/`kubectl` client, tens of milliseconds), and a
 * lost API connection is noticed only when the client exits, which
 * `kubectl exec` may not do for a while; the bootstrap still kills the
 * command when its stdin closes.
 *
 * @example A transport that runs the bootstrap on this machine (for tests)
 * ```ts
 * import type { RemoteTransport } from "@shellseam/bash/remote";
 * import assert from "node:assert/strict";
 *
 * const here: RemoteTransport = {
 *   name: "local sh",
 *   maxChannels: 4,
 *   connect: () => Promise.resolve(),
 *   command: (remoteCommand) => ({ program: "/bin/sh", args: ["-c", remoteCommand] }),
 *   close: () => Promise.resolve(),
 * };
 * assert.deepEqual(here.command("true").args, ["-c", "true"]);
 * ```
 */
export interface RemoteTransport {
  /** Names the remote side in error messages (for example `ssh root@build-1`). */
  readonly name: string;
  /** How many commands one connection carries at once; the executor queues the rest. */
  readonly maxChannels: number;
  /** Opens the shared connection when there is one and it is not open; rejects with `BashSpawnError`. */
  connect(): Promise<void>;
  /**
   * The argv (absolute program) that runs `remoteCommand` on the remote
   * side, and how that program gets a session of its own: `"setsid-binary"`
   * when it is util-linux `setsid`, which execs the rest; absent or
   * `"detached"`, the runtime's own.
   */
  command(remoteCommand: string): { program: string; args: string[]; session?: SessionStrategy };
  /** Closes the shared connection; idempotent. */
  close(): Promise<void>;
  /**
   * Signals a local process that runs `command()`'s program, when the runtime
   * may not do it itself; resolves false when it was gone. Optional: without
   * it the executor signals directly.
   */
  kill?(pid: number, signal: "SIGTERM" | "SIGKILL"): Promise<boolean>;
}

/** The options of one `ssh` connection, as {@linkcode SshTransport} takes them. */
export interface SshTransportOptions {
  /** Absolute path of the `ssh` client. */
  ssh: string;
  /** Host name or address. */
  host: string;
  /** Port, when not ssh's default. */
  port?: number;
  /** Remote user, when not ssh's default. */
  user?: string;
  /** Private key file; only it is offered (`IdentitiesOnly=yes`). */
  identityFile?: string;
  /** The known_hosts file that must hold the host's key. */
  knownHostsFile?: string;
  /** `"strict"`: the key must be known; `"accept-new"`: a host not listed yet is added (never a changed key). */
  hostKeyChecking: "strict" | "accept-new";
  /** An ssh_config file, or null for none (`-F none`): nothing of ~/.ssh/config applies. */
  configFile: string | null;
  /** More `-o Name=value` options, applied after the executor's own. */
  options: readonly string[];
  /** Seconds to wait for the connection to open. */
  connectTimeoutSeconds: number;
  /** Channels per connection (sshd's `MaxSessions`, 10 by default). */
  maxChannels: number;
  /** The executor's private folder, which holds the control socket. */
  dir: string;
  /**
   * The util-linux `setsid` each command's `ssh` starts through (see
   * `helperSetsid`); absent or null: the runtime's `detached`, which under
   * Deno forks the whole process.
   */
  setsidPath?: string | null;
  /**
   * True when `dir` must outlive this process (kept spill files); otherwise
   * the watchdog removes it when this process dies.
   */
  keepDir?: boolean;
}

/** How long the master's readiness is polled for beyond the connect timeout, in milliseconds. */
const READY_SLACK_MS = 2000;

/**
 * The system `ssh` client with one multiplexed connection: a master
 * (`ssh -M -N`, its control socket in the executor's private folder) that
 * the transport starts on first use and stops with `ssh -O exit`; every
 * command is a channel over it (`ControlMaster=no`), so it costs no
 * handshake. `BatchMode=yes` always (nothing prompts), host keys checked
 * against the given known_hosts file, and no local environment variable is
 * sent (no `SendEnv`; `-F none` unless a config file is given).
 *
 * The master runs in a session of its own and is registered with the local
 * executor's watchdog (a bash process holding a pipe from this process, on
 * `bash` from the local PATH): when this process dies, even by SIGKILL, the
 * watchdog kills the master, which ends every channel, and the remote
 * bootstrap then kills its command. No watchdog, no connection: a master
 * that could outlive this process is not started.
 *
 * @example
 * ```ts
 * import { SshTransport } from "@shellseam/bash/remote";
 * import assert from "node:assert/strict";
 *
 * const transport = new SshTransport({
 *   ssh: "/usr/bin/ssh", host: "build-1", port: 2222, user: "agent",
 *   hostKeyChecking: "strict", configFile: null, options: [], connectTimeoutSeconds: 10,
 *   maxChannels: 10, dir: "/tmp/example",
 * });
 * const { args } = transport.command("true");
 * assert.ok(args.includes("ControlPath=/tmp/example/control"));
 * assert.deepEqual(args.slice(-3), ["build-1", "--", "true"]);
 * ```
 */
export class SshTransport implements RemoteTransport {
  readonly name: string;
  readonly maxChannels: number;
  readonly #options: SshTransportOptions;
  readonly #controlPath: string;
  #master: Promise<SpawnedChild> | null = null;
  #watchdog: Watchdog | null = null;
  /** Each list of programs found outside every granted root, with how many roots there were then. */
  readonly #outside = new OutsideRoots();

  /** Takes the connection's options; nothing connects until the first command. */
  constructor(options: SshTransportOptions) {
    this.#options = options;
    this.maxChannels = options.maxChannels;
    this.#controlPath = `${options.dir}/control`;
    this.name = `ssh ${options.user === undefined ? "" : `${options.user}@`}${options.host}${
      options.port === undefined ? "" : `:${options.port}`
    }`;
  }

  /** The control socket's path, for a bare `ssh -o ControlPath=...` over the same connection. */
  get controlPath(): string {
    return this.#controlPath;
  }

  connect(): Promise<void> {
    if (this.#master !== null) return this.#master.then(() => {});
    const master = this.#startMaster();
    this.#master = master;
    // A master that failed or exited (the connection was lost) is dropped, so
    // the next command opens a new connection.
    const drop = (): void => {
      if (this.#master === master) this.#master = null;
    };
    master.then((child) => child.exited.then(drop), drop);
    return master.then(() => {});
  }

  command(
    remoteCommand: string,
  ): { program: string; args: string[]; session: SessionStrategy } {
    const { ssh, setsidPath = null } = this.#options;
    this.#vet(setsidPath === null ? [ssh] : [setsidPath, ssh]);
    const args = [
      ...this.#common(),
      "-o",
      "ControlMaster=no",
      "-T",
      this.#options.host,
      "--",
      remoteCommand,
    ];
    return inOwnSession(setsidPath, ssh, args);
  }

  async close(): Promise<void> {
    const master = this.#master;
    this.#master = null;
    await this.#stopMaster(master);
    const watchdog = this.#watchdog;
    this.#watchdog = null;
    await watchdog?.close();
  }

  async #stopMaster(master: Promise<SpawnedChild> | null): Promise<void> {
    if (master === null) return;
    let child: SpawnedChild;
    try {
      child = await master;
    } catch {
      return;
    }
    // An ssh that may have been replaced meanwhile is not run: the master is signalled instead.
    if (this.#refusal([this.#options.ssh]) === undefined) {
      await quiet(this.#options.ssh, [...this.#common(), "-O", "exit", this.#options.host]);
    } else await this.kill(child.pid, "SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      child.exited.then(() => true),
      new Promise<boolean>((done) => (timer = setTimeout(done, 2000, false))),
    ]);
    clearTimeout(timer);
    if (!exited) {
      await this.kill(child.pid, "SIGKILL");
      await child.exited;
    }
  }

  /**
   * Signals a local `ssh` process of this transport (the master, or a
   * channel's client): directly, or through the watchdog when the runtime
   * may not (Deno refuses `Deno.kill` under a scoped `--allow-run`).
   */
  async kill(pid: number, signal: "SIGTERM" | "SIGKILL"): Promise<boolean> {
    try {
      return runtime.kill(pid, signal);
    } catch (error) {
      if (!runtime.deniedPermission(error)) throw error;
      const [sent] = await (await this.#guard()).signal(signal, [pid]);
      return sent === true;
    }
  }

  /** Options of every invocation: the connection, its checks, and the control socket. */
  #common(): string[] {
    const o = this.#options;
    const args = ["-F", o.configFile ?? "none"];
    const set = (option: string): void => {
      args.push("-o", option);
    };
    set("BatchMode=yes");
    set(`StrictHostKeyChecking=${o.hostKeyChecking === "strict" ? "yes" : "accept-new"}`);
    if (o.knownHostsFile !== undefined) {
      set(`UserKnownHostsFile=${o.knownHostsFile}`);
      set("GlobalKnownHostsFile=/dev/null");
    }
    if (o.identityFile !== undefined) {
      args.push("-i", o.identityFile);
      set("IdentitiesOnly=yes");
    }
    if (o.port !== undefined) args.push("-p", String(o.port));
    if (o.user !== undefined) args.push("-l", o.user);
    set(`ConnectTimeout=${o.connectTimeoutSeconds}`);
    set("LogLevel=ERROR");
    set(`ControlPath=${this.#controlPath}`);
    for (const option of o.options) set(option);
    return args;
  }

  /** The watchdog, running, and told about the private folder; rejects with `BashSpawnError`. */
  async #guard(): Promise<Watchdog> {
    if (this.#watchdog === null) {
      const bash = findOnPath("bash");
      if (bash === null) {
        throw new BashSpawnError(
          `No "bash" was found on the local PATH to run the watchdog that stops the ssh master when this process dies; install bash or fix PATH`,
        );
      }
      const { dir, keepDir } = this.#options;
      this.#watchdog = new Watchdog({
        runtime,
        bash,
        setsidPath: null,
        session: "detached",
        tempRoot: dirname(dir),
        vet: (programs) => this.#vet(programs),
      });
      if (keepDir !== true) this.#watchdog.guard(dir);
    }
    await this.#watchdog.ready();
    return this.#watchdog;
  }

  /**
   * Whether the control socket's path exists; a look that fails otherwise
   * than with ENOENT (a permission: `BashConfigError`; a private folder that
   * is not a folder, ...: `BashSpawnError`) is never taken for "not there".
   */
  #socketExists(): boolean {
    try {
      lstatSync(this.#controlPath);
      return true;
    } catch (error) {
      throwIfDenied(error, "look for the ssh master's control socket in the private folder");
      if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") return false;
      throw new BashSpawnError(
        `Could not look for the ssh master's control socket "${this.#controlPath}" (${
          (error as Error).message
        }); check that the executor's private folder is a folder this process may use`,
        { cause: error },
      );
    }
  }

  /**
   * Throws `BashSpawnError` when one of `programs`, about to run on this
   * host outside any sandbox (ssh, the watchdog's shell), lies in a root
   * that a sandbox of this process let its commands write: one of them
   * could have replaced it. Checked again only once a root was granted
   * since the same programs were found outside every root (roots only grow).
   */
  #vet(programs: readonly string[]): void {
    const refusal = this.#refusal(programs);
    if (refusal !== undefined) throw new BashSpawnError(refusal);
  }

  /** Why `programs` must not run now (see `#vet`), or undefined. */
  #refusal(programs: readonly string[]): string | undefined {
    return this.#outside.check(programs, grantedCount(), () => {
      const roots = grantedRoots();
      for (const program of programs) {
        const at = exposedLocation(program, roots);
        if (at === undefined) continue;
        return `The remote executor runs "${program}" on this host outside any sandbox, and "${at.location}" lies in "${at.root}", a root that a sandbox of this process lets its commands write, so one of them could have replaced it; it was not run: install "${program}" elsewhere (or take its folder off PATH), or keep that root out of this process's sandboxes`;
      }
      return undefined;
    });
  }

  async #startMaster(): Promise<SpawnedChild> {
    const o = this.#options;
    const watchdog = await this.#guard();
    // A master that was killed leaves its socket behind, and ssh would not listen on it. A look
    // that fails is refused before the master starts, not while it runs.
    if (this.#socketExists()) rmSync(this.#controlPath, { force: true });
    this.#vet([o.ssh]);
    let child: SpawnedChild;
    try {
      child = await runtime.spawn({
        program: o.ssh,
        args: [
          ...this.#common(),
          "-o",
          "ControlMaster=yes",
          "-o",
          "ControlPersist=no",
          "-N",
          o.host,
        ],
        cwd: o.dir,
        // The watchdog finds it by this too, should this process die before it is told the pid.
        env: { ...clientEnv(), [WATCHDOG_VARIABLE]: `${watchdog.token}.master` },
        stdin: "null",
        session: "detached",
      });
    } catch (cause) {
      throw new BashSpawnError(
        `Could not start "${o.ssh}" for ${this.name}; check that OpenSSH's client is installed`,
        { cause },
      );
    }
    const sid = child.pid;
    watchdog.watch(sid);
    child.exited.then(() => watchdog.release(sid));
    child.stdout.cancel().catch(() => {});
    const stderr = collectText(child.stderr);
    const deadline = performance.now() + o.connectTimeoutSeconds * 1000 + READY_SLACK_MS;
    let exited = false;
    child.exited.then(() => (exited = true));
    for (let pause = 5; performance.now() < deadline; pause = Math.min(pause * 2, 50)) {
      if (exited) break;
      // The master puts its control socket in place, listening, only once the connection is
      // authenticated: a look at the path costs no process, and one `ssh -O check` then
      // confirms that it answers (each check is an ssh process, tens of milliseconds of CPU).
      let socket: boolean;
      try {
        socket = this.#socketExists();
        // The check is an ssh too, run again: a root may have been granted since the master's.
        if (socket) this.#vet([o.ssh]);
      } catch (error) {
        if (!exited) await this.kill(child.pid, "SIGKILL");
        await child.exited;
        throw error;
      }
      if (socket) {
        const check = await quiet(o.ssh, [...this.#common(), "-O", "check", o.host]);
        if (check === 0) return child;
      }
      await new Promise((done) => setTimeout(done, pause));
    }
    if (!exited) await this.kill(child.pid, "SIGKILL");
    await child.exited;
    const reason = (await stderr).trim() || "it did not open in time";
    throw new BashSpawnError(
      `Could not connect to ${this.name}: ${reason}; check the host, port, user, key and known_hosts file`,
    );
  }
}

/**
 * The environment of the local `ssh` client: where to find programs, the
 * home folder and the key agent. None of it reaches the remote side (no `SendEnv`).
 */
export function clientEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "SSH_AUTH_SOCK"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Reads a stream to its end as text. */
async function collectText(stream: ReadableStream<Uint8Array>): Promise<string> {
  try {
    return await new Response(stream).text();
  } catch {
    return "";
  }
}

/** Runs a short `ssh` invocation and resolves with its exit code (null: a signal). */
async function quiet(program: string, args: string[]): Promise<number | null> {
  const child = await runtime.spawn({
    program,
    args,
    cwd: "/",
    env: clientEnv(),
    stdin: "null",
    session: "detached",
  });
  await Promise.all([child.stdout.cancel(), child.stderr.cancel()]).catch(() => {});
  return (await child.exited).code;
}
