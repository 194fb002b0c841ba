import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer, type Server } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { listenUnix } from "../../../runtime/mod.ts";
import {
  HANDSHAKE_TIMEOUT_MS,
  MAX_LAUNCH_CONNECTIONS,
  NetworkProxy,
  type ProxyOptions,
} from "../../../sandbox/network/_proxy.ts";
import { parseHttpHead } from "../../../sandbox/network/_proxy_protocol.ts";
import { fakeResolve, startInternet } from "./_internet.ts";

interface TestProxy extends AsyncDisposable {
  proxy: NetworkProxy;
  dir: string;
}

function startProxy(options: ProxyOptions = { resolve: fakeResolve }): TestProxy {
  const dir = mkdtempSync(join(tmpdir(), "proxy-test-"));
  const proxy = new NetworkProxy(join(dir, "proxy"), options);
  return {
    proxy,
    dir,
    [Symbol.asyncDispose]: async () => {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends `chunks` to the proxy at a socket's `path` or a loopback `port` (one
 * write each) and collects everything it answers until it closes.
 */
function exchange(
  path: string | { port: number },
  chunks: (string | Uint8Array)[],
  endAfter = false,
): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = typeof path === "string" ? connect(path) : connect(path.port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => resolve(Buffer.concat(received)));
    socket.on("connect", () => {
      for (const chunk of chunks) socket.write(chunk);
      if (endAfter) socket.end();
    });
    setTimeout(() => socket.destroy(), 5000);
  });
}

const basic = (token: string) => `Proxy-Authorization: Basic ${btoa(`shellseam:${token}`)}\r\n`;

describe("NetworkProxy", () => {
  it("has the bounds docs/network.md states: 64 connections a command, 30 s to send a request", () => {
    assert.equal(MAX_LAUNCH_CONNECTIONS, 64);
    assert.equal(HANDSHAKE_TIMEOUT_MS, 30_000);
    // The page is beside the sources (a compiled copy of the tests may have none).
    const path = new URL("../../../docs/network.md", import.meta.url);
    if (!existsSync(path)) return;
    const page = readFileSync(path, "utf8").replaceAll("\n", " ");
    assert.match(page, /at most 64 proxy connections/);
    assert.match(page, /has 30 seconds from its connection/);
  });

  it("makes its socket folder, never the folder above it (the executor's private folder)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "proxy-test-"));
    try {
      const proxy = new NetworkProxy(join(dir, "gone", "proxy"), { resolve: fakeResolve });
      await assert.rejects(proxy.open({ allow: ["allowed.test"] }), /ENOENT/);
      assert.equal(existsSync(join(dir, "gone")), false);
      await proxy.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serves a launch on a loopback port of its own: only its token, its list, and no port once closed", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const list = { allow: ["allowed.test", "127.0.0.1"] };
    const launch = await test.proxy.openLoopback(list);
    const other = await test.proxy.openLoopback(list);
    assert.notEqual(launch.port, other.port);
    // A plain request: the proxy answers it and closes the connection.
    const request = (host: string, token: string) =>
      exchange(launch, [
        `GET http://${host}:${internet.port}/p HTTP/1.1\r\nHost: ${host}:${internet.port}\r\n${
          basic(token)
        }\r\n`,
      ]);
    assert.match((await request("allowed.test", launch.token)).toString(), /^HTTP\/1\.1 200/);
    // Any local process may connect to the port: another launch's token opens nothing there.
    assert.match((await request("allowed.test", other.token)).toString(), /^HTTP\/1\.1 407/);
    assert.match((await request("evil.test", launch.token)).toString(), /^HTTP\/1\.1 403/);
    assert.deepEqual(launch.refused(), ["evil.test"]);
    assert.deepEqual(other.refused(), []);
    assert.equal((await test.proxy.state()).launches, 2);
    await launch.close();
    assert.equal((await test.proxy.state()).launches, 1);
    await assert.rejects(
      new Promise((resolve, reject) => {
        const socket = connect(launch.port, "127.0.0.1", () => resolve(socket.destroy()));
        socket.once("error", reject);
      }),
      /ECONNREFUSED/,
    );
  });

  it("forwards a plain HTTP request to an allowed name", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const token = launch.token;
    const answer = await exchange(launch.socketPath, [
      `GET http://allowed.test:${internet.port}/a?b=1 HTTP/1.1\r\nHost: allowed.test:${internet.port}\r\n${
        basic(token)
      }\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 200/);
    assert.match(answer.toString(), new RegExp(`hello allowed\\.test:${internet.port} /a\\?b=1`));
    assert.deepEqual(launch.refused(), []);
  });

  it("tunnels CONNECT to an allowed name", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["*.allowed.test", "127.0.0.1"] });
    const token = launch.token;
    const answer = await exchange(launch.socketPath, [
      `CONNECT also.allowed.test:${internet.port} HTTP/1.1\r\n${basic(token)}\r\n`,
      `GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200/);
    assert.match(answer.toString(), /hello x \/tunnel/);
  });

  it("refuses a name not in the list with 403 naming the policy, and records it per launch", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const token = launch.token;
    const other = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const answer = await exchange(launch.socketPath, [
      `GET http://evil.test:${internet.port}/ HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 403 Forbidden/);
    assert.match(answer.toString(), /network access to "evil\.test" denied by policy/);
    assert.deepEqual(launch.refused(), ["evil.test"]);
    assert.deepEqual(other.refused(), []);
    assert.deepEqual(internet.hosts, []);
  });

  it("lets deny entries win over allow wildcards", async () => {
    await using test = startProxy();
    const launch = await test.proxy.open({
      allow: ["*.allowed.test"],
      deny: ["also.allowed.test"],
    });
    const token = launch.token;
    const answer = await exchange(launch.socketPath, [
      `CONNECT also.allowed.test:443 HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 403 .*\r\n[\s\S]*in the deny list/);
  });

  it("refuses a raw IP that is not listed, and a listed name resolving to a private address", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test", "metadata.test"] });
    const token = launch.token;
    const raw = await exchange(launch.socketPath, [
      `CONNECT 127.0.0.1:${internet.port} HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(raw.toString(), /^HTTP\/1\.1 403/);
    const loopback = await exchange(launch.socketPath, [
      `GET http://allowed.test:${internet.port}/ HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(loopback.toString(), /^HTTP\/1\.1 403[\s\S]*resolves to 127\.0\.0\.1, a loopback/);
    const metadata = await exchange(launch.socketPath, [
      `CONNECT metadata.test:80 HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(metadata.toString(), /resolves to 169\.254\.169\.254/);
    assert.deepEqual(launch.refused(), ["127.0.0.1", "allowed.test", "metadata.test"]);
    assert.deepEqual(internet.hosts, []);
  });

  it("answers 407 to a client without a registered token", async () => {
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test"] });
    const none = await exchange(launch.socketPath, ["CONNECT allowed.test:443 HTTP/1.1\r\n\r\n"]);
    assert.match(none.toString(), /^HTTP\/1\.1 407/);
    const wrong = await exchange(launch.socketPath, [
      `CONNECT allowed.test:443 HTTP/1.1\r\n${basic("not-a-token")}\r\n`,
    ]);
    assert.match(wrong.toString(), /^HTTP\/1\.1 407/);
  });

  it("speaks SOCKS5 with a username and password, refusing what the list refuses", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const token = launch.token;
    const auth = Buffer.concat([
      Buffer.from([1, 9]),
      Buffer.from("shellseam"),
      Buffer.from([token.length]),
      Buffer.from(token),
    ]);
    const request = (host: string) =>
      Buffer.concat([
        Buffer.from([5, 1, 0, 3, host.length]),
        Buffer.from(host),
        Buffer.from([internet.port >> 8, internet.port & 0xff]),
      ]);
    const allowed = await exchange(launch.socketPath, [
      Buffer.from([5, 1, 2]),
      auth,
      request("allowed.test"),
      "GET /socks HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n",
    ]);
    assert.deepEqual([...allowed.subarray(0, 4)], [5, 2, 1, 0]);
    assert.deepEqual([...allowed.subarray(4, 6)], [5, 0]);
    assert.match(allowed.subarray(14).toString(), /hello allowed\.test \/socks/);
    const refused = await exchange(launch.socketPath, [
      Buffer.from([5, 1, 2]),
      auth,
      request("evil.test"),
    ]);
    assert.deepEqual([...refused.subarray(4, 6)], [5, 2]);
    assert.deepEqual(launch.refused(), ["evil.test"]);
    const noAuth = await exchange(launch.socketPath, [Buffer.from([5, 1, 0])]);
    assert.deepEqual([...noAuth], [5, 0xff]);
  });

  it("answers malformed SOCKS5 input in SOCKS at each stage, never in HTTP", async () => {
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test"] });
    const token = launch.token;
    const auth = Buffer.concat([
      Buffer.from([1, 9]),
      Buffer.from("shellseam"),
      Buffer.from([token.length]),
      Buffer.from(token),
    ]);
    const badGreeting = await exchange(launch.socketPath, [Buffer.from([5, 0])]);
    assert.deepEqual([...badGreeting], [5, 0xff]);
    // An RFC 1929 message of another version: the failure status of that sub-negotiation.
    const badAuth = await exchange(launch.socketPath, [
      Buffer.from([5, 1, 2]),
      Buffer.from([2, 1, 65, 1]),
    ]);
    assert.deepEqual([...badAuth], [5, 2, 1, 1]);
    const bind = await exchange(launch.socketPath, [
      Buffer.from([5, 1, 2]),
      auth,
      Buffer.from([5, 2, 0, 1, 127, 0, 0, 1, 0, 80]),
    ]);
    assert.deepEqual([...bind], [5, 2, 1, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it("reports a name that resolves to no address as unresolvable, not as refused by policy", async () => {
    await using test = startProxy({
      resolve: (host) => host === "empty.test" ? Promise.resolve([]) : fakeResolve(host),
    });
    const launch = await test.proxy.open({ allow: ["empty.test"] });
    const token = launch.token;
    const http = await exchange(launch.socketPath, [
      `CONNECT empty.test:443 HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(
      http.toString(),
      /^HTTP\/1\.1 502 Bad Gateway\r\n[\s\S]*\r\n\r\nshellseam sandbox proxy: cannot resolve "empty\.test": it has no address\n$/,
    );
    const socks = await exchange(launch.socketPath, [
      Buffer.from([5, 1, 2]),
      Buffer.concat([Buffer.from([1, 1, 65, token.length]), Buffer.from(token)]),
      Buffer.concat([
        Buffer.from([5, 1, 0, 3, 10]),
        Buffer.from("empty.test"),
        Buffer.from([1, 187]),
      ]),
    ]);
    assert.deepEqual([...socks.subarray(4, 6)], [5, 4], "host unreachable, not 2 (not allowed)");
    assert.deepEqual(launch.refused(), []);
  });

  it("survives random, truncated and oversized input without ever connecting", async () => {
    let connects = 0;
    await using test = startProxy({
      resolve: fakeResolve,
      connect: () => {
        connects++;
        return Promise.reject(new Error("the fuzz test never connects"));
      },
    });
    const launch = await test.proxy.open({ allow: ["allowed.test", "evil.test", "127.0.0.1"] });
    const valid = [
      "CONNECT allowed.test:443 HTTP/1.1\r\nProxy-Authorization: Basic AAAA\r\n\r\n",
      "GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
      "\x05\x01\x02\x01\x09shellseam\x04abcd\x05\x01\x00\x03\x0callowed.test\x01\xbb",
    ];
    let seed = 17;
    const random = (limit: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % limit;
    };
    const inputs: Uint8Array[] = [
      new Uint8Array(64 * 1024).fill(65),
      new TextEncoder().encode(
        `GET http://allowed.test/ HTTP/1.1\r\nX: ${"a".repeat(20000)}\r\n\r\n`,
      ),
      new Uint8Array([5, 255, ...new Array(10).fill(2)]),
      new Uint8Array([5, 0]),
    ];
    for (let i = 0; i < 150; i++) {
      const base = new TextEncoder().encode(valid[i % valid.length] ?? "");
      const bytes = base.slice(0, random(base.length + 1));
      for (let flips = random(4); flips > 0; flips--) {
        bytes[random(bytes.length || 1)] = random(256);
      }
      inputs.push(i % 5 === 0 ? crypto.getRandomValues(new Uint8Array(random(300))) : bytes);
    }
    for (let i = 0; i < inputs.length; i += 10) {
      await Promise.all(
        inputs.slice(i, i + 10).map((input) => exchange(launch.socketPath, [input], true)),
      );
    }
    assert.equal(connects, 0);
    const state = await test.proxy.state();
    assert.equal(state.listening, true);
    // Still serving: a valid request is answered.
    const answer = await exchange(launch.socketPath, ["CONNECT x.test:1 HTTP/1.1\r\n\r\n"]);
    assert.match(answer.toString(), /^HTTP\/1\.1 407/);
  });

  it("drops the destination of a client that left while it was being reached", async () => {
    await using internet = await startInternet();
    let release = () => {};
    const gate = new Promise<void>((resolve) => release = resolve);
    const opened: import("node:net").Socket[] = [];
    await using test = startProxy({
      resolve: fakeResolve,
      connect: async (address, port) => {
        await gate;
        const socket = connect({ host: address, port });
        opened.push(socket);
        return socket;
      },
    });
    const launch = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const token = launch.token;
    const client = connect(launch.socketPath);
    await new Promise((resolve) => client.on("connect", resolve));
    client.write(`CONNECT allowed.test:${internet.port} HTTP/1.1\r\n${basic(token)}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(opened.length, 1);
    assert.equal(opened[0]?.destroyed, true);
  });

  it("says when a launch's socket stopped after an error, fails its clients at once, and serves the next launch", async () => {
    const servers: Server[] = [];
    await using test = startProxy({
      resolve: fakeResolve,
      listen: (path, handlers) => {
        const server = createServer();
        servers.push(server);
        return listenUnix(path, handlers, server);
      },
    });
    const launch = await test.proxy.open({ allow: ["allowed.test"] });
    const before = connect(launch.socketPath);
    await new Promise((resolve) => before.on("connect", resolve));
    servers[0]?.emit("error", Object.assign(new Error("accept EMFILE"), { code: "EMFILE" }));
    const stopped = await test.proxy.state();
    assert.equal(stopped.listening, true);
    assert.equal(
      stopped.error,
      "a command's proxy socket stopped listening after an error (accept EMFILE); that command's later connections fail, and the next command gets a socket of its own",
    );
    const refused = await new Promise((resolve) => {
      const client = connect(launch.socketPath);
      client.on("error", (error: NodeJS.ErrnoException) => resolve(error.code));
      client.on("connect", () => resolve("connected"));
    });
    assert.equal(refused, "ENOENT", "a client fails at once, never waits on it");
    const next = await test.proxy.open({ allow: ["allowed.test"] });
    const answer = await exchange(next.socketPath, ["CONNECT allowed.test:443 HTTP/1.1\r\n\r\n"]);
    assert.match(answer.toString(), /^HTTP\/1\.1 407/);
    const closed = new Promise((resolve) => before.on("close", resolve));
    await launch.close();
    await closed; // a connection the stopped server accepted closes with its launch
    assert.equal((await test.proxy.state()).error, undefined);
  });

  it("removes its sockets and refuses to open a launch once closed", async () => {
    const test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test"] });
    assert.ok(existsSync(launch.socketPath));
    assert.equal(statSync(join(test.dir, "proxy")).mode & 0o777, 0o700);
    await test[Symbol.asyncDispose]();
    assert.equal(existsSync(launch.socketPath), false);
    await assert.rejects(test.proxy.open({ allow: ["allowed.test"] }), /stopped/);
  });

  it("serves a launch's socket with that launch's token alone, and nothing once it ended", async () => {
    await using internet = await startInternet();
    await using test = startProxy();
    const narrow = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const wide = await test.proxy.open({ allow: ["allowed.test", "evil.test", "127.0.0.1"] });
    const get = (socketPath: string, token: string) =>
      exchange(socketPath, [
        `GET http://evil.test:${internet.port}/x HTTP/1.1\r\n${basic(token)}\r\n`,
      ]).then((answer) => answer.toString());
    // The wide launch's token on the narrow launch's socket opens nothing.
    assert.match(await get(narrow.socketPath, wide.token), /^HTTP\/1\.1 407/);
    assert.match(await get(wide.socketPath, wide.token), /^HTTP\/1\.1 200[\s\S]*hello evil\.test/);
    const socks = await exchange(narrow.socketPath, [
      Buffer.from([5, 1, 2]),
      Buffer.concat([Buffer.from([1, 1, 65, wide.token.length]), Buffer.from(wide.token)]),
    ]);
    assert.deepEqual([...socks], [5, 2, 1, 1], "SOCKS5 authentication fails too");
    // Ended: its socket is gone, and its connections with it.
    const held = connect(wide.socketPath);
    await new Promise((resolve) => held.on("connect", resolve));
    const dropped = new Promise((resolve) => held.on("close", resolve));
    await wide.close();
    await dropped;
    assert.equal(existsSync(wide.socketPath), false);
    assert.equal((await test.proxy.state()).launches, 1);
    assert.deepEqual(internet.hosts, [`evil.test:${internet.port}`]);
  });

  it("closes a connection whose handshake is not done by the deadline, however slowly bytes keep coming", async () => {
    await using test = startProxy({ resolve: fakeResolve, handshakeTimeoutMs: 500 });
    const launch = await test.proxy.open({ allow: ["allowed.test"] });
    const client = connect(launch.socketPath);
    await new Promise((resolve) => client.on("connect", resolve));
    const opened = performance.now();
    const head = `CONNECT allowed.test:443 HTTP/1.1\r\nX-Slow: ${"a".repeat(500)}`;
    let sent = 0;
    // One byte every 50 ms: each restarted an idle timer; the deadline does not move.
    const drip = setInterval(() => client.write(head[sent++ % head.length] ?? "a"), 50);
    client.on("error", () => {});
    await new Promise((resolve) => client.on("close", resolve));
    clearInterval(drip);
    const held = performance.now() - opened;
    assert.ok(sent < head.length, `closed while the client was still sending (${sent} bytes)`);
    assert.ok(held < 10_000, `held ${held} ms`);
  });

  it(`bounds a launch's connections: one past ${MAX_LAUNCH_CONNECTIONS} gets an error, and closes`, async () => {
    await using test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test"] });
    const held = await Promise.all(
      Array.from({ length: MAX_LAUNCH_CONNECTIONS }, async () => {
        const socket = connect(launch.socketPath);
        socket.on("error", () => {});
        await new Promise((resolve) => socket.on("connect", resolve));
        return socket;
      }),
    );
    // The proxy has counted them all before the next one comes.
    while ((await test.proxy.state()).connections < MAX_LAUNCH_CONNECTIONS) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const http = await exchange(launch.socketPath, [
      `CONNECT allowed.test:443 HTTP/1.1\r\n${basic(launch.token)}\r\n`,
    ]);
    assert.match(
      http.toString(),
      new RegExp(`^HTTP/1\\.1 503 [\\s\\S]*has ${MAX_LAUNCH_CONNECTIONS} proxy connections open`),
    );
    const socks = await exchange(launch.socketPath, [Buffer.from([5, 1, 2])]);
    assert.deepEqual([...socks], [5, 0xff]);
    // Another launch is not held back by this one's connections.
    const other = await test.proxy.open({ allow: ["allowed.test"] });
    const answer = await exchange(other.socketPath, ["CONNECT allowed.test:443 HTTP/1.1\r\n\r\n"]);
    assert.match(answer.toString(), /^HTTP\/1\.1 407/);
    for (const socket of held) socket.destroy();
  });
});

describe("proxy request heads", () => {
  it("refuses a host name with controls or odd bytes, which would reach the model's text", () => {
    const head = (host: string) =>
      new TextEncoder().encode(`CONNECT ${host}:443 HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.throws(() => parseHttpHead(head("evil\x1bc\x07fake")), /request target holds a control/);
    assert.throws(() => parseHttpHead(head("tab\there")), /request target holds a control/);
    assert.throws(() => parseHttpHead(head("a%0a.test")), /malformed destination/);
    assert.equal(parseHttpHead(head("registry.npmjs.org"))?.destination.host, "registry.npmjs.org");
  });
});

/** A TCP server that records every byte each connection sent, and answers a fixed response. */
async function startRecorder(): Promise<
  AsyncDisposable & { port: number; received: () => string[] }
> {
  const connections: Buffer[][] = [];
  const server = createServer((socket) => {
    const chunks: Buffer[] = [];
    connections.push(chunks);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer per connection, once the head is in.
      if (Buffer.concat(chunks).includes("\r\n\r\n") && chunks.length === 1) {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        setTimeout(() => socket.end(), 200);
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as import("node:net").AddressInfo).port,
    received: () => connections.map((chunks) => Buffer.concat(chunks).toString("latin1")),
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the proxy's forwarded requests", () => {
  const setup = async () => {
    const recorder = await startRecorder();
    const test = startProxy();
    const launch = await test.proxy.open({ allow: ["allowed.test", "127.0.0.1"] });
    const url = `http://allowed.test:${recorder.port}`;
    return {
      recorder,
      url,
      send: (chunks: (string | Uint8Array)[]) =>
        exchange(launch.socketPath, chunks).then((answer) => answer.toString()),
      auth: basic(launch.token),
      token: launch.token,
      [Symbol.asyncDispose]: async () => {
        await test[Symbol.asyncDispose]();
        await recorder[Symbol.asyncDispose]();
      },
    };
  };

  it("forwards one request per connection: a second one in the same write never reaches the server", async () => {
    await using s = await setup();
    const answer = await s.send([
      `GET ${s.url}/one HTTP/1.1\r\nHost: allowed.test:${s.recorder.port}\r\n${s.auth}\r\n` +
      `GET ${s.url}/two HTTP/1.1\r\nHost: allowed.test:${s.recorder.port}\r\n${s.auth}\r\n`,
    ]);
    assert.match(answer, /^HTTP\/1\.1 200 OK/);
    const received = s.recorder.received();
    assert.equal(received.length, 1);
    assert.equal(
      received[0],
      `GET /one HTTP/1.1\r\nHost: allowed.test:${s.recorder.port}\r\nConnection: close\r\n\r\n`,
    );
    assert.ok(!received.join("").includes(s.token), "the token never reaches the server");
  });

  it("forwards a body by its Content-Length or its chunks, and nothing after it", async () => {
    await using s = await setup();
    await s.send([
      `POST ${s.url}/a HTTP/1.1\r\n${s.auth}Content-Length: 5\r\n\r\nhello` +
      `GET ${s.url}/smuggled HTTP/1.1\r\n${s.auth}\r\n`,
    ]);
    await s.send([
      `POST ${s.url}/b HTTP/1.1\r\n${s.auth}Transfer-Encoding: chunked\r\n\r\n`,
      "5;ext=1\r\nhello\r\n",
      `0\r\n\r\nGET ${s.url}/smuggled HTTP/1.1\r\n${s.auth}\r\n`,
    ]);
    const [length, chunked] = s.recorder.received();
    assert.equal(
      length,
      `POST /a HTTP/1.1\r\nHost: allowed.test:${s.recorder.port}\r\nContent-Length: 5\r\n` +
        "Connection: close\r\n\r\nhello",
    );
    assert.equal(
      chunked,
      `POST /b HTTP/1.1\r\nHost: allowed.test:${s.recorder.port}\r\nTransfer-Encoding: chunked\r\n` +
        "Connection: close\r\n\r\n5;ext=1\r\nhello\r\n0\r\n\r\n",
    );
  });

  it("refuses controls in the target, a Host that differs from the URL, and ambiguous framing", async () => {
    await using s = await setup();
    const port = s.recorder.port;
    const refusals: [string, RegExp][] = [
      [`GET ${s.url}/a\nX-Injected:1 HTTP/1.1\r\n${s.auth}\r\n`, /^HTTP\/1\.1 400/],
      [`GET ${s.url}/a\tb HTTP/1.1\r\n${s.auth}\r\n`, /^HTTP\/1\.1 400/],
      [`GET ${s.url}/a\rb HTTP/1.1\r\n${s.auth}\r\n`, /^HTTP\/1\.1 400/],
      [`GET ${s.url}/ HTTP/1.1\r\nX: a\nHost: evil.test\r\n${s.auth}\r\n`, /^HTTP\/1\.1 400/],
      [`GET ${s.url}/ HTTP/1.1\r\nHost: evil.test\r\n${s.auth}\r\n`, /differs from the URL's host/],
      [
        `GET ${s.url}/ HTTP/1.1\r\nHost: allowed.test:${port}\r\nHost: evil.test\r\n${s.auth}\r\n`,
        /more than one Host header/,
      ],
      [
        `POST ${s.url}/ HTTP/1.1\r\n${s.auth}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n`,
        /both Transfer-Encoding and Content-Length/,
      ],
      [`POST ${s.url}/ HTTP/1.1\r\n${s.auth}Transfer-Encoding: gzip\r\n\r\n`, /^HTTP\/1\.1 501/],
      [
        `POST ${s.url}/ HTTP/1.1\r\n${s.auth}Content-Length: 3\r\nContent-Length: 4\r\n\r\n`,
        /conflicting Content-Length/,
      ],
    ];
    for (const [request, expected] of refusals) {
      assert.match(await s.send([request]), expected, JSON.stringify(request));
    }
    assert.deepEqual(s.recorder.received(), []);
    // The same Host, in other spellings, is the URL's own.
    await s.send([`GET ${s.url}/ HTTP/1.1\r\nHost: ALLOWED.test:${port}\r\n${s.auth}\r\n`]);
    await s.send([`GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test:80\r\n${s.auth}\r\n`]);
    assert.equal(
      s.recorder.received().length,
      1,
      "port 80 is not the recorder's: refused, not sent",
    );
  });

  it("strips proxy credentials and the fields the Connection header names", async () => {
    await using s = await setup();
    // A byte past ASCII in a value (obs-text) goes on as that byte.
    await s.send([Buffer.from(
      `GET ${s.url}/ HTTP/1.1\r\n${s.auth}Proxy-Connection: keep-alive\r\n` +
        "Connection: keep-alive, X-Hop\r\nX-Hop: secret\r\nX-Kept: caf\xe9\r\n\r\n",
      "latin1",
    )]);
    assert.equal(
      s.recorder.received()[0],
      `GET / HTTP/1.1\r\nHost: allowed.test:${s.recorder.port}\r\nX-Kept: caf\xe9\r\n` +
        "Connection: close\r\n\r\n",
    );
  });
});
