// Network allow-lists over each backend: a local HTTP server stands in for
// the internet (a fake resolver in the proxy gives it its names); commands
// reach an allowed name through the proxy with curl (HTTP, CONNECT, SOCKS5),
// git, npm and pip; a denied name and a raw IP are refused and reported; a
// direct connection that ignores the proxy variables, and a Unix socket,
// fail; the proxy stops with the executor.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { findOnPath } from "../../local/_session.ts";
import type { SandboxBashExecutorConfig } from "../../sandbox/mod.ts";
import { PROXY_OPTIONS } from "../../sandbox/_proxy.ts";
import { findBridgeTools } from "../../sandbox/backends/_bridge.ts";
import {
  executorFor,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";
import { fakeResolve, startInternet } from "../sandbox/_internet.ts";
import { renderRunResult } from "../../tool/mod.ts";

const statuses = await probeHere();
const tools = findBridgeTools(process.env.PATH ?? "", process.getuid?.() === 0);
const missing = (name: string) =>
  findOnPath(name, process.env.PATH ?? "") === null ? `${name} is not installed here` : false;
const bridgeSkip = "reason" in tools ? tools.reason : missing("curl");

/** A workspace-write executor on `backend` whose network is `allow` (the fake internet's names). */
function proxied(backend: (typeof SANDBOX_BACKENDS)[number], workspace: Workspace) {
  return executorFor(backend, workspace, {
    defaultMode: "workspace-write",
    network: { allow: ["allowed.test", "*.allowed.test", "127.0.0.1"], deny: ["bad.allowed.test"] },
    [PROXY_OPTIONS]: { resolve: fakeResolve },
  } as Partial<SandboxBashExecutorConfig>);
}

for (const backend of SANDBOX_BACKENDS) {
  describe(`network allow-list through the proxy (${backend})`, {
    skip: skipUnless(statuses, backend) || bridgeSkip,
  }, () => {
    it("reaches an allowed name with curl over HTTP, CONNECT and SOCKS5", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const url = `http://allowed.test:${internet.port}`;
      const result = await executor.run(executor.resolve({
        command: `curl -sS ${url}/plain && curl -sS -p ${url}/tunnel && ` +
          `curl -sS -x "$ALL_PROXY" http://also.allowed.test:${internet.port}/socks`,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(
        result.stdout.text,
        `hello allowed.test:${internet.port} /plain\nhello allowed.test:${internet.port} /tunnel\n` +
          `hello also.allowed.test:${internet.port} /socks\n`,
      );
      assert.equal(result.sandbox?.denied, false);
      assert.equal(result.sandbox?.refusedDestinations, undefined);
      // The bridge holds no output: nothing was left running.
      assert.deepEqual(result.strays, { killed: 0, survivors: [] });
      const state = await executor.networkProxyState();
      assert.equal(state?.listening, true);
    });

    it("refuses a denied name and a raw IP, and reports them per call", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const [evil, raw, ok] = await Promise.all([
        executor.run(executor.resolve({
          command: `curl -sS -f http://evil.test:${internet.port}/ ; ` +
            `curl -sS -f -p http://bad.allowed.test:${internet.port}/`,
        })),
        executor.run(
          executor.resolve({ command: `curl -sS -f http://10.9.8.7:${internet.port}/` }),
        ),
        executor.run(
          executor.resolve({ command: `curl -sS -f http://allowed.test:${internet.port}/` }),
        ),
      ]);
      assert.notEqual(evil.exitCode, 0);
      assert.equal(evil.sandbox?.denied, true);
      assert.equal(evil.sandbox?.denial, "network");
      assert.deepEqual(evil.sandbox?.refusedDestinations, ["evil.test", "bad.allowed.test"]);
      assert.deepEqual(raw.sandbox?.refusedDestinations, ["10.9.8.7"]);
      assert.equal(raw.sandbox?.denial, "network");
      assert.equal(ok.exitCode, 0, ok.stderr.text);
      assert.equal(ok.sandbox?.refusedDestinations, undefined);
      assert.deepEqual(internet.hosts, [`allowed.test:${internet.port}`]);
      const { text } = renderRunResult(evil);
      assert.match(text, /\[sandbox: network access to evil\.test denied by policy\]/);
      assert.match(text, /\[sandbox: network access to bad\.allowed\.test denied by policy\]/);
    });

    it("leaves no way out that ignores the proxy, and no Unix socket", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const state = await executor.run(executor.resolve({ command: "true" }));
      assert.equal(state.exitCode, 0, state.stderr.text);
      const socket = (await executor.networkProxyState())?.socketPath ?? "";
      const direct = await executor.run(executor.resolve({
        command: `curl -sS --noproxy '*' http://127.0.0.1:${internet.port}/direct; ` +
          `echo > /dev/tcp/127.0.0.1/${internet.port} && echo CONNECTED; ` +
          `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${socket}"); print("UNIX")'`,
      }));
      assert.doesNotMatch(direct.stdout.text, /hello|CONNECTED|UNIX/);
      assert.match(direct.stderr.text, /Couldn't connect|Connection refused/);
      assert.match(direct.stderr.text, /PermissionError/);
      assert.deepEqual(internet.hosts, []);
    });

    it("stops the proxy with the executor", async () => {
      using workspace = tempWorkspace();
      const executor = proxied(backend, workspace);
      const result = await executor.run(executor.resolve({ command: "true" }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      const socket = (await executor.networkProxyState())?.socketPath ?? "";
      assert.ok(existsSync(socket));
      await executor[Symbol.asyncDispose]();
      assert.equal(existsSync(socket), false);
      assert.equal((await executor.networkProxyState())?.listening, false);
      const refused = await new Promise<string>((resolve) => {
        const client = connect(socket);
        client.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? ""));
        client.on("connect", () => resolve("connected"));
      });
      assert.equal(refused, "ENOENT");
    });
  });
}
