import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SandboxUnavailableError } from "../../../seam/mod.ts";
import {
  BRIDGE_PORT,
  bridgeFailed,
  findBridgeTools,
  proxyEnv,
  wrapInBridge,
} from "../../../sandbox/network/_bridge.ts";
import { commandFilter } from "../../../sandbox/backends/_seccomp.ts";
import {
  executorFor,
  linkedPrograms,
  plantedProgram,
  probeHere,
  skipUnless,
  tempWorkspace,
} from "../_fixtures.ts";

const tools = { unshare: "/u/unshare", ip: "/u/ip", socat: "/u/socat" };
const inner = { program: "/u/bwrap", args: ["--", "cmd"], cwd: "/w", env: { SECRET: "x" } };

describe("wrapInBridge", () => {
  it("runs the backend's launch in a network namespace of its own, with none of its environment", () => {
    const launch = wrapInBridge(inner, tools, "/u/bash", "/p/proxy.sock", ["/cg/cgroup.procs"]);
    assert.equal(launch.program, "/u/unshare");
    assert.deepEqual(launch.args.slice(0, 3), ["--net", "--", "/u/bash"]);
    const script = launch.args.indexOf("shellseam-net");
    const words = launch.args.slice(script + 1);
    assert.deepEqual(words.slice(0, 3), ["/u/ip", String(BRIDGE_PORT), "13"]);
    // socat, behind a bash that joins the command's cgroups first.
    const socat = words.slice(3, 16);
    assert.equal(socat[0], "/u/bash");
    assert.deepEqual(socat.slice(-6), [
      "cg",
      "/cg/cgroup.procs",
      "--",
      "/u/socat",
      `TCP-LISTEN:${BRIDGE_PORT},bind=127.0.0.1,fork,reuseaddr,max-children=136`,
      "UNIX-CONNECT:/p/proxy.sock",
    ]);
    assert.deepEqual(words.slice(16), ["/u/bwrap", "--", "cmd"]);
    // What the backend reads on stdin (the command's environment) goes through untouched.
    assert.deepEqual(
      wrapInBridge({ ...inner, input: new Uint8Array([1, 2]) }, tools, "/u/bash", "/p/s", [])
        .input,
      new Uint8Array([1, 2]),
    );
    assert.deepEqual(launch.env, {});
    assert.equal(launch.cwd, "/w");
  });

  it("for another user: a user namespace, whose capabilities setpriv drops before the backend", () => {
    const launch = wrapInBridge(inner, { ...tools, setpriv: "/u/setpriv" }, "/u/bash", "/p/s", []);
    assert.deepEqual(launch.args.slice(0, 5), [
      "--user",
      "--map-current-user",
      "--keep-caps",
      "--net",
      "--",
    ]);
    assert.deepEqual(launch.args.slice(-6, -3), [
      "/u/setpriv",
      "--inh-caps=-all",
      "--ambient-caps=-all",
    ]);
  });

  it("tells its own failures from the command's", () => {
    assert.equal(
      bridgeFailed(125, "shellseam-net: the bridge to the network proxy did not start"),
      true,
    );
    assert.equal(bridgeFailed(1, "unshare: unshare failed: Operation not permitted"), true);
    assert.equal(bridgeFailed(125, "something else"), false);
    assert.equal(bridgeFailed(0, "shellseam-net: x"), false);
  });
});

describe("proxyEnv", () => {
  it("points every usual variable, npm's and pip's at the bridge with the launch's token", () => {
    const env = proxyEnv("t0k3n", BRIDGE_PORT);
    const http = `http://shellseam:t0k3n@127.0.0.1:${BRIDGE_PORT}`;
    for (const name of ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"]) {
      assert.equal(env[name], http, name);
    }
    assert.equal(env.npm_config_proxy, http);
    assert.equal(env.npm_config_https_proxy, http);
    assert.equal(env.PIP_PROXY, http);
    assert.equal(env.ALL_PROXY, `socks5h://shellseam:t0k3n@127.0.0.1:${BRIDGE_PORT}`);
    assert.equal(env.all_proxy, env.ALL_PROXY);
    assert.equal(env.NO_PROXY, "localhost,127.0.0.1,::1");
    assert.equal(env.no_proxy, env.NO_PROXY);
  });

  it("points them at the launch's own loopback port when there is no bridge", () => {
    const env = proxyEnv("t0k3n", 48123);
    assert.equal(env.HTTPS_PROXY, "http://shellseam:t0k3n@127.0.0.1:48123");
    assert.equal(env.ALL_PROXY, "socks5h://shellseam:t0k3n@127.0.0.1:48123");
  });
});

describe("the inet seccomp rule", () => {
  it("differs from the others (IP sockets but no Unix socket)", () => {
    const inet = commandFilter("inet", "x64");
    assert.ok(inet !== undefined);
    for (const rule of ["none", "unix", "any"] as const) {
      assert.notDeepEqual(commandFilter(rule, "x64"), inet, rule);
    }
  });
});

describe("findBridgeTools", () => {
  it("names the missing program and its package", () => {
    using workspace = tempWorkspace();
    const reason = findBridgeTools(workspace.base, true);
    assert.deepEqual(reason, {
      reason:
        '"unshare" was not found on PATH; install util-linux (the network allow-list reaches its proxy through it)',
    });
  });
});

const statuses = await probeHere();

describe("an allow-list where the bridge cannot run", {
  skip: skipUnless(statuses, "bwrap"),
}, () => {
  /** A search path with what bwrap needs, `names` from PATH, and `fakes` of our own. */
  function searchPath(dir: string, names: string[], fakes: Record<string, string> = {}): string {
    linkedPrograms(dir, ["bwrap", "bash", "setsid", ...names]);
    for (const [name, body] of Object.entries(fakes)) {
      writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    }
    return dir;
  }

  it("fails closed naming a missing socat, and runs nothing", async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, {
      defaultMode: "workspace-write",
      network: { allow: ["example.com"] },
      searchPath: searchPath(join(workspace.base, "bin"), ["unshare", "ip", "setpriv"]),
    });
    await assert.rejects(
      executor.run(executor.resolve({ command: "touch ran" })),
      (error: unknown) => {
        assert.ok(error instanceof SandboxUnavailableError);
        assert.match(error.message, /"socat" was not found on PATH; install socat/);
        return true;
      },
    );
    assert.deepEqual(readdirSync(workspace.root), []);
    // Deny and allow do not need the bridge.
    const denied = await executor.run(
      executor.resolve({
        command: "true",
        sandboxPolicy: { ...executor.defaultPolicy, network: "deny" },
      }),
    );
    assert.equal(denied.exitCode, 0, denied.stderr.text);
  });

  it("fails closed when no network namespace can be made, saying what failed", async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, {
      defaultMode: "workspace-write",
      network: { allow: ["example.com"] },
      searchPath: searchPath(join(workspace.base, "bin"), ["ip", "socat", "setpriv"], {
        unshare: "echo 'unshare: unshare failed: Operation not permitted' >&2; exit 1",
      }),
    });
    await assert.rejects(
      executor.run(executor.resolve({ command: "touch ran" })),
      /a network namespace for the bridge cannot be made here: ".*unshare --net -- .*ip link set lo up" failed: unshare: unshare failed: Operation not permitted/,
    );
    assert.deepEqual(readdirSync(workspace.root), []);
  });

  // A confined command of an earlier session planted it in the workspace's
  // node_modules/.bin, which `npm run` puts first on the search path.
  for (const program of ["unshare", "ip"]) {
    it(`never runs an ${program} that lies in the workspace: the bridge cannot run, naming it`, async () => {
      using workspace = tempWorkspace();
      const { bin, planted, canary } = plantedProgram(workspace, program);
      const rest = searchPath(join(workspace.base, "bin"), ["unshare", "ip", "socat", "setpriv"]);
      await using executor = executorFor("bwrap", workspace, {
        defaultMode: "workspace-write",
        network: { allow: ["example.com"] },
        searchPath: `${bin}:${rest}`,
      });
      await assert.rejects(
        executor.run(executor.resolve({ command: "touch ran" })),
        (error: unknown) => {
          assert.ok(error instanceof SandboxUnavailableError);
          assert.ok(
            error.attempts[0]?.reason.startsWith(
              `"${planted}" runs before the sandbox applies, and "${planted}" lies in the ` +
                `writable root "${workspace.root}"`,
            ),
            error.attempts[0]?.reason,
          );
          return true;
        },
      );
      assert.equal(existsSync(canary), false, "a planted program ran unconfined");
      assert.deepEqual(readdirSync(workspace.root), ["node_modules"]);
    });
  }
});
