/**
 * `proxy-request`: the latency the network allow-list's proxy adds to one
 * HTTP request: a GET through the proxy's Unix socket (parse, credential
 * check, allow-list check, resolution, connection, forwarding) against the
 * same GET sent straight to the server, both from this process, to a
 * throwaway HTTP server on 127.0.0.1. `sandbox-allow-list`: what the bridge
 * adds to a confined `run("true")` (its network namespace, loopback, socat
 * and the wait until it listens) against the same run under network `deny`.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, connect, type NetConnectOpts } from "node:net";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { findBridgeTools, NetworkProxy } from "../../sandbox/network/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { type BenchCase, row, type RowHeader, skippedRow } from "../_case.ts";
import { workspace } from "./sandbox.ts";
import { interleave } from "../_interleave.ts";
import { rounds } from "./_spawn.ts";

const HEADER: RowHeader = {
  id: "proxy-request",
  what: "one HTTP GET through the allow-list proxy (its Unix socket, as the bridge reaches it) " +
    "to a server on 127.0.0.1",
  baseline: "the same GET sent straight to the server over TCP",
  unit: "ms",
  goal: null,
  better: "lower",
};

/** Sends `request` over a new connection and resolves once the answer (ending in "ok") is read. */
function exchange(options: NetConnectOpts, request: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(options);
    let answer = "";
    socket.on("data", (chunk) => answer += chunk.toString());
    socket.on("error", reject);
    socket.on(
      "close",
      () =>
        answer.startsWith("HTTP/1.1 200") && answer.endsWith("ok")
          ? resolve()
          : reject(new Error(`unexpected answer: ${answer.slice(0, 200)}`)),
    );
    socket.write(request);
  });
}

/** `proxy-request`: see the module. */
export const proxyRequest: BenchCase = {
  ids: [HEADER.id],
  async run(context) {
    const server = createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), "bench-proxy-"));
    const proxy = new NetworkProxy(join(dir, "proxy"), {
      resolve: () => Promise.resolve(["127.0.0.1"]),
    });
    try {
      const launch = await proxy.open({ allow: ["bench.test", "127.0.0.1"] });
      const credential = btoa(`shellseam:${launch.token}`);
      const samples = await interleave({
        ours: () =>
          exchange(
            { path: launch.socketPath },
            `GET http://bench.test:${port}/ HTTP/1.1\r\nHost: bench.test:${port}\r\n` +
              `Proxy-Authorization: Basic ${credential}\r\n\r\n`,
          ),
        baseline: () =>
          exchange(
            { host: "127.0.0.1", port },
            `GET / HTTP/1.1\r\nHost: bench.test:${port}\r\nConnection: close\r\n\r\n`,
          ),
      }, rounds(context, { warmup: 20, iterations: 300 }, { warmup: 2, iterations: 10 }));
      return [row(HEADER, samples.ours!, samples.baseline!)];
    } finally {
      await proxy.close();
      server.closeAllConnections();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const BRIDGE: RowHeader = {
  id: "sandbox-allow-list",
  what: 'SandboxBashExecutor run("true") on bwrap under Deno with a network allow-list ' +
    "(read-only; the bridge to the proxy set up and stopped)",
  baseline: 'the same run("true") under network deny',
  unit: "ms",
  goal: null,
  better: "lower",
};

/** `sandbox-allow-list`: see the module. */
export const sandboxAllowList: BenchCase = {
  ids: [BRIDGE.id],
  async run(context) {
    const tools = findBridgeTools(process.env.PATH ?? "", process.getuid?.() === 0);
    if ("reason" in tools) return [skippedRow(BRIDGE, tools.reason)];
    const make = (network: "deny" | { allow: string[] }) =>
      new SandboxBashExecutor({
        workspaceRoot: workspace(context),
        backends: ["bwrap"],
        defaultMode: "read-only",
        network,
      });
    await using listed = make({ allow: ["example.com"] });
    await using denied = make("deny");
    const [status] = await denied.probeBackends();
    if (!status?.works) {
      return [skippedRow(BRIDGE, `the bwrap backend does not work here: ${status?.reason}`)];
    }
    const once = async (executor: SandboxBashExecutor) => {
      const result = await executor.run(executor.resolve({ command: "true" }));
      if (result.exitCode !== 0) throw new Error(`run("true") failed: ${result.stderr.text}`);
    };
    const samples = await interleave({
      ours: () => once(listed),
      baseline: () => once(denied),
    }, rounds(context, { warmup: 5, iterations: 50 }, { warmup: 1, iterations: 5 }));
    return [row(BRIDGE, samples.ours!, samples.baseline!)];
  },
};
