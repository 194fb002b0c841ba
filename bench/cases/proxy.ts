/**
 * `proxy-request`: the latency the network allow-list's proxy adds to one
 * HTTP request: a GET through the proxy's Unix socket (parse, credential
 * check, allow-list check, resolution, connection, forwarding) against the
 * same GET sent straight to the server, both from this process, to a
 * throwaway HTTP server on 127.0.0.1.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, connect, type NetConnectOpts } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NetworkProxy } from "../../sandbox/_proxy.ts";
import { type BenchCase, row, type RowHeader } from "../_case.ts";
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
    const proxy = new NetworkProxy(join(dir, "proxy.sock"), {
      resolve: () => Promise.resolve(["127.0.0.1"]),
    });
    try {
      await proxy.start();
      const token = proxy.register({ allow: ["bench.test", "127.0.0.1"] });
      const credential = btoa(`shellseam:${token}`);
      const samples = await interleave({
        ours: () =>
          exchange(
            { path: proxy.socketPath },
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
