import process from "node:process";
import { join } from "node:path";
import {
  BashSpawnError,
  type SandboxNetworkAllowList,
  SandboxUnavailableError,
} from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import { throwIfDenied } from "../engine/mod.ts";
import type { SandboxBackendName } from "./backends/mod.ts";
import type { Exposure } from "./_exposure.ts";
import { bridgeNamespaceArgs, type BridgeTools, findBridgeTools } from "./network/mod.ts";
import {
  type LoopbackProxyLaunch,
  NetworkProxy,
  type ProxyLaunch,
  type ProxyOptions,
  type ProxyState,
} from "./network/mod.ts";
import type { ConfinerHost } from "../engine/mod.ts";

/** What {@linkcode NetworkLaunches} needs to know. */
export interface NetworkLaunchOptions {
  /** Where the bridge's programs are looked up. */
  searchPath: string | undefined;
  /** How long the bridge's probe may take. */
  probeTimeoutMs: number;
  /**
   * Why the bridge's probe must not run `programs` unconfined (one lies where
   * a confined command could have replaced it, see `exposureOf`), or undefined.
   */
  exposure: (programs: readonly string[]) => Exposure | undefined;
  /** The backends an unavailable bridge fails, as the error names them. */
  backends: readonly SandboxBackendName[];
  /** The proxy's options (tests shorten its timeouts). */
  proxyOptions: ProxyOptions;
}

/**
 * The network side of confined launches with an allow-list: the bridge's
 * programs, probed once, and the executor's proxy, made on first use.
 */
export class NetworkLaunches {
  readonly #options: NetworkLaunchOptions;
  readonly #host: ConfinerHost;
  /** The network proxy, made on the first launch with an allow-list. */
  #proxy: NetworkProxy | undefined;
  /** Proxies whose socket an unconfined command removed: closed at disposal. */
  readonly #retiredProxies: NetworkProxy[] = [];
  /** The bridge's programs once probed, or why it cannot run here. */
  #bridgeProbe: Promise<BridgeTools | { reason: string }> | undefined;

  /** Holds `options`; runs its probes through `host`. */
  constructor(options: NetworkLaunchOptions, host: ConfinerHost) {
    this.#options = options;
    this.#host = host;
  }

  /**
   * The bridge's programs, probed once (a network namespace with its
   * loopback up); `SandboxUnavailableError` naming why not (fail closed).
   */
  async bridge(): Promise<BridgeTools> {
    this.#bridgeProbe ??= this.#probeBridge();
    const tools = await this.#bridgeProbe;
    if ("reason" in tools) {
      throw new SandboxUnavailableError(
        "A network allow-list needs a bridge from the command's own network namespace to the " +
          "executor's proxy, and it cannot run here, so the command was not run; install what " +
          'is named, or use network "deny" or "allow"',
        this.#options.backends.map((backend) => ({ backend, reason: tools.reason })),
      );
    }
    return tools;
  }

  /**
   * A launch's own socket and token from the proxy, whose sockets live in
   * the private folder (made on first use; a new one when the private
   * folder was made again under another name).
   */
  async open(list: SandboxNetworkAllowList): Promise<ProxyLaunch> {
    const proxy = await this.#current();
    const dir = proxy.socketDir;
    try {
      return await proxy.open(list);
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
   * A launch's own loopback port and token from the proxy (made on first
   * use), for a backend that limits the network to that port itself.
   */
  async openLoopback(list: SandboxNetworkAllowList): Promise<LoopbackProxyLaunch> {
    const proxy = await this.#current();
    try {
      return await proxy.openLoopback(list);
    } catch (error) {
      throwIfDenied(error, "listen on a port of 127.0.0.1 for the network proxy");
      throw new BashSpawnError(
        `The network proxy cannot listen on a port of 127.0.0.1 (${
          messageOf(error)
        }), so the command was not run; check that this process may listen on loopback`,
        { cause: error },
      );
    }
  }

  /** The proxy's state: `undefined` until a launch first opened it. */
  async state(): Promise<ProxyState | undefined> {
    return await this.#proxy?.state();
  }

  /** Stops the proxy and the retired ones. */
  async close(): Promise<void> {
    await Promise.all([this.#proxy, ...this.#retiredProxies].map((proxy) => proxy?.close()));
  }

  /**
   * The proxy, made on first use, whose sockets live in the private folder
   * (a new one when the private folder was made again under another name).
   */
  async #current(): Promise<NetworkProxy> {
    const dir = join(await this.#host.privateDir(), "proxy");
    const current = this.#proxy;
    if (current !== undefined && current.socketDir !== dir) {
      // Running launches keep their sockets until they settle.
      this.#retiredProxies.push(current);
      this.#proxy = undefined;
    }
    return this.#proxy ??= new NetworkProxy(dir, this.#options.proxyOptions);
  }

  async #probeBridge(): Promise<BridgeTools | { reason: string }> {
    const tools = findBridgeTools(this.#options.searchPath ?? "", process.getuid?.() === 0);
    if ("reason" in tools) return tools;
    // Checked before anything runs: a confined command could have planted either program.
    const exposure = this.#options.exposure([tools.unshare, tools.ip]);
    if (exposure !== undefined) return { reason: exposure.reason };
    const args = [...bridgeNamespaceArgs(tools), "--", tools.ip, "link", "set", "lo", "up"];
    try {
      // The direct path, unconfined like every program before the sandbox:
      // with none of the command's environment.
      const result = await this.#host.runDirect(
        { command: "true", timeoutMs: this.#options.probeTimeoutMs },
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
}
