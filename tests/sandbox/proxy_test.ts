import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer, type Server } from "node:net";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { listenUnix } from "../../local/internal.ts";
import { NetworkProxy, type ProxyOptions } from "../../sandbox/_proxy.ts";
import { parseHttpHead } from "../../sandbox/_proxy_protocol.ts";
import { fakeResolve, startInternet } from "./_internet.ts";

interface TestProxy extends AsyncDisposable {
  proxy: NetworkProxy;
  path: string;
}

async function startProxy(options: ProxyOptions = { resolve: fakeResolve }): Promise<TestProxy> {
  const dir = mkdtempSync(join(tmpdir(), "proxy-test-"));
  const path = join(dir, "proxy.sock");
  const proxy = new NetworkProxy(path, options);
  await proxy.start();
  return {
    proxy,
    path,
    [Symbol.asyncDispose]: async () => {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends `chunks` to the proxy (one write each) and collects everything it answers until it closes. */
function exchange(
  path: string,
  chunks: (string | Uint8Array)[],
  endAfter = false,
): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const received: Buffer[] = [];
    socket.on("data", (chunk) => received.push(chunk));
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
  it("forwards a plain HTTP request to an allowed name", async () => {
    await using internet = await startInternet();
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["allowed.test", "127.0.0.1"] });
    const answer = await exchange(test.path, [
      `GET http://allowed.test:${internet.port}/a?b=1 HTTP/1.1\r\nHost: allowed.test:${internet.port}\r\n${
        basic(token)
      }\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 200/);
    assert.match(answer.toString(), new RegExp(`hello allowed\\.test:${internet.port} /a\\?b=1`));
    assert.deepEqual(test.proxy.refused(token), []);
  });

  it("tunnels CONNECT to an allowed name", async () => {
    await using internet = await startInternet();
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["*.allowed.test", "127.0.0.1"] });
    const answer = await exchange(test.path, [
      `CONNECT also.allowed.test:${internet.port} HTTP/1.1\r\n${basic(token)}\r\n`,
      `GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200/);
    assert.match(answer.toString(), /hello x \/tunnel/);
  });

  it("refuses a name not in the list with 403 naming the policy, and records it per launch", async () => {
    await using internet = await startInternet();
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["allowed.test", "127.0.0.1"] });
    const other = test.proxy.register({ allow: ["allowed.test", "127.0.0.1"] });
    const answer = await exchange(test.path, [
      `GET http://evil.test:${internet.port}/ HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 403 Forbidden/);
    assert.match(answer.toString(), /network access to "evil\.test" denied by policy/);
    assert.deepEqual(test.proxy.refused(token), ["evil.test"]);
    assert.deepEqual(test.proxy.refused(other), []);
    assert.deepEqual(internet.hosts, []);
  });

  it("lets deny entries win over allow wildcards", async () => {
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["*.allowed.test"], deny: ["also.allowed.test"] });
    const answer = await exchange(test.path, [
      `CONNECT also.allowed.test:443 HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(answer.toString(), /^HTTP\/1\.1 403 .*\r\n[\s\S]*in the deny list/);
  });

  it("refuses a raw IP that is not listed, and a listed name resolving to a private address", async () => {
    await using internet = await startInternet();
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["allowed.test", "metadata.test"] });
    const raw = await exchange(test.path, [
      `CONNECT 127.0.0.1:${internet.port} HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(raw.toString(), /^HTTP\/1\.1 403/);
    const loopback = await exchange(test.path, [
      `GET http://allowed.test:${internet.port}/ HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(loopback.toString(), /^HTTP\/1\.1 403[\s\S]*resolves to 127\.0\.0\.1, a loopback/);
    const metadata = await exchange(test.path, [
      `CONNECT metadata.test:80 HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(metadata.toString(), /resolves to 169\.254\.169\.254/);
    assert.deepEqual(test.proxy.refused(token), ["127.0.0.1", "allowed.test", "metadata.test"]);
    assert.deepEqual(internet.hosts, []);
  });

  it("answers 407 to a client without a registered token", async () => {
    await using test = await startProxy();
    test.proxy.register({ allow: ["allowed.test"] });
    const none = await exchange(test.path, ["CONNECT allowed.test:443 HTTP/1.1\r\n\r\n"]);
    assert.match(none.toString(), /^HTTP\/1\.1 407/);
    const wrong = await exchange(test.path, [
      `CONNECT allowed.test:443 HTTP/1.1\r\n${basic("not-a-token")}\r\n`,
    ]);
    assert.match(wrong.toString(), /^HTTP\/1\.1 407/);
  });

  it("speaks SOCKS5 with a username and password, refusing what the list refuses", async () => {
    await using internet = await startInternet();
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["allowed.test", "127.0.0.1"] });
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
    const allowed = await exchange(test.path, [
      Buffer.from([5, 1, 2]),
      auth,
      request("allowed.test"),
      "GET /socks HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n",
    ]);
    assert.deepEqual([...allowed.subarray(0, 4)], [5, 2, 1, 0]);
    assert.deepEqual([...allowed.subarray(4, 6)], [5, 0]);
    assert.match(allowed.subarray(14).toString(), /hello allowed\.test \/socks/);
    const refused = await exchange(test.path, [Buffer.from([5, 1, 2]), auth, request("evil.test")]);
    assert.deepEqual([...refused.subarray(4, 6)], [5, 2]);
    assert.deepEqual(test.proxy.refused(token), ["evil.test"]);
    const noAuth = await exchange(test.path, [Buffer.from([5, 1, 0])]);
    assert.deepEqual([...noAuth], [5, 0xff]);
  });

  it("answers malformed SOCKS5 input in SOCKS at each stage, never in HTTP", async () => {
    await using test = await startProxy();
    const token = test.proxy.register({ allow: ["allowed.test"] });
    const auth = Buffer.concat([
      Buffer.from([1, 9]),
      Buffer.from("shellseam"),
      Buffer.from([token.length]),
      Buffer.from(token),
    ]);
    const badGreeting = await exchange(test.path, [Buffer.from([5, 0])]);
    assert.deepEqual([...badGreeting], [5, 0xff]);
    // An RFC 1929 message of another version: the failure status of that sub-negotiation.
    const badAuth = await exchange(test.path, [Buffer.from([5, 1, 2]), Buffer.from([2, 1, 65, 1])]);
    assert.deepEqual([...badAuth], [5, 2, 1, 1]);
    const bind = await exchange(test.path, [
      Buffer.from([5, 1, 2]),
      auth,
      Buffer.from([5, 2, 0, 1, 127, 0, 0, 1, 0, 80]),
    ]);
    assert.deepEqual([...bind], [5, 2, 1, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it("reports a name that resolves to no address as unresolvable, not as refused by policy", async () => {
    await using test = await startProxy({
      resolve: (host) => host === "empty.test" ? Promise.resolve([]) : fakeResolve(host),
    });
    const token = test.proxy.register({ allow: ["empty.test"] });
    const http = await exchange(test.path, [
      `CONNECT empty.test:443 HTTP/1.1\r\n${basic(token)}\r\n`,
    ]);
    assert.match(
      http.toString(),
      /^HTTP\/1\.1 502 Bad Gateway\r\n[\s\S]*\r\n\r\nshellseam sandbox proxy: cannot resolve "empty\.test": it has no address\n$/,
    );
    const socks = await exchange(test.path, [
      Buffer.from([5, 1, 2]),
      Buffer.concat([Buffer.from([1, 1, 65, token.length]), Buffer.from(token)]),
      Buffer.concat([
        Buffer.from([5, 1, 0, 3, 10]),
        Buffer.from("empty.test"),
        Buffer.from([1, 187]),
      ]),
    ]);
    assert.deepEqual([...socks.subarray(4, 6)], [5, 4], "host unreachable, not 2 (not allowed)");
    assert.deepEqual(test.proxy.refused(token), []);
  });

  it("survives random, truncated and oversized input without ever connecting", async () => {
    let connects = 0;
    await using test = await startProxy({
      resolve: fakeResolve,
      connect: () => {
        connects++;
        return Promise.reject(new Error("the fuzz test never connects"));
      },
    });
    test.proxy.register({ allow: ["allowed.test", "evil.test", "127.0.0.1"] });
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
        inputs.slice(i, i + 10).map((input) => exchange(test.path, [input], true)),
      );
    }
    assert.equal(connects, 0);
    const state = await test.proxy.state();
    assert.equal(state.listening, true);
    // Still serving: a valid request is answered.
    const answer = await exchange(test.path, ["CONNECT x.test:1 HTTP/1.1\r\n\r\n"]);
    assert.match(answer.toString(), /^HTTP\/1\.1 407/);
  });

  it("drops the destination of a client that left while it was being reached", async () => {
    await using internet = await startInternet();
    let release = () => {};
    const gate = new Promise<void>((resolve) => release = resolve);
    const opened: import("node:net").Socket[] = [];
    await using test = await startProxy({
      resolve: fakeResolve,
      connect: async (address, port) => {
        await gate;
        const socket = connect({ host: address, port });
        opened.push(socket);
        return socket;
      },
    });
    const token = test.proxy.register({ allow: ["allowed.test", "127.0.0.1"] });
    const client = connect(test.path);
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

  it("says it stopped when its server fails after starting, fails clients at once, and listens again at the next start", async () => {
    let server: Server | undefined;
    await using test = await startProxy({
      resolve: fakeResolve,
      listen: (path, handlers) => listenUnix(path, handlers, server = createServer()),
    });
    const before = connect(test.path);
    await new Promise((resolve) => before.on("connect", resolve));
    server?.emit("error", Object.assign(new Error("accept EMFILE"), { code: "EMFILE" }));
    assert.equal(test.proxy.listening, false);
    const stopped = await test.proxy.state();
    assert.equal(stopped.listening, false);
    assert.equal(
      stopped.error,
      "it stopped listening after an error (accept EMFILE); the next command with an allow-list starts it again",
    );
    const refused = await new Promise((resolve) => {
      const client = connect(test.path);
      client.on("error", (error: NodeJS.ErrnoException) => resolve(error.code));
      client.on("connect", () => resolve("connected"));
    });
    assert.equal(refused, "ENOENT", "a client fails at once, never waits on it");
    await test.proxy.start();
    const again = await test.proxy.state();
    assert.equal(again.listening, true);
    assert.equal(again.error, undefined);
    const answer = await exchange(test.path, ["CONNECT allowed.test:443 HTTP/1.1\r\n\r\n"]);
    assert.match(answer.toString(), /^HTTP\/1\.1 407/);
    const closed = new Promise((resolve) => before.on("close", resolve));
    await test.proxy.close();
    await closed; // a connection the stopped server accepted closes with the proxy
  });

  it("removes its socket and refuses to start again once closed", async () => {
    const test = await startProxy();
    assert.ok(existsSync(test.path));
    await test[Symbol.asyncDispose]();
    assert.equal(existsSync(test.path), false);
    await assert.rejects(test.proxy.start(), /stopped/);
  });
});

describe("proxy request heads", () => {
  it("refuses a host name with controls or odd bytes, which would reach the model's text", () => {
    const head = (host: string) =>
      new TextEncoder().encode(`CONNECT ${host}:443 HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.throws(() => parseHttpHead(head("evil\x1bc\x07fake")), /malformed destination/);
    assert.throws(() => parseHttpHead(head("tab\there")), /malformed destination/);
    assert.equal(parseHttpHead(head("registry.npmjs.org"))?.destination.host, "registry.npmjs.org");
  });
});
