// The Seatbelt backend wired into the sandbox executor, on Linux: the
// platform gating, and macOS simulated (the sandbox's platform injected as
// "darwin") with a fake sandbox-exec on the executor's search path, which
// runs the command unconfined, or enforces some of what the self-probe tries
// (unshare), or all of it (bubblewrap). The real thing runs in
// tests/e2e/sandbox_seatbelt_test.ts, on a Mac.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:net";
import process from "node:process";
import { SandboxUnavailableError } from "../../seam/mod.ts";
import { findOnPath } from "../../engine/mod.ts";
import { BRIDGE_PORT } from "../../sandbox/network/mod.ts";
import { PROXY_OPTIONS } from "../../sandbox/network/_proxy.ts";
import { fakeResolve, startInternet } from "./network/_internet.ts";
import {
  formatDoctorReport,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
  shellseamDoctor,
} from "../../sandbox/mod.ts";
import { platformFacts } from "../../local/mod.ts";
import { type Runtime, runtime } from "../../runtime/mod.ts";
import { SEATBELT_UNVERIFIED_GAP, SELF_PROBES } from "../../sandbox/backends/seatbelt/mod.ts";
import { fakeProgram, tempWorkspace, type Workspace } from "./_fixtures.ts";
import { ENFORCING } from "./_seatbelt_fakes.ts";
import { alive, processTree, TerminalWatch } from "../_terminal.ts";

const ALL_PROBES = Object.values(SELF_PROBES);

/**
 * This process's runtime, saying it runs on `os`: the sandbox chooses its
 * backends for that platform, while the engine keeps Linux's own reads
 * (tests/e2e/darwin_simulation_test.ts runs macOS's engine path).
 */
function on(os: string): Runtime {
  return { ...runtime, platform: { ...platformFacts("linux", true), os } };
}

/** Skips the sandbox-exec options (`-p PROFILE -DNAME=VALUE ...`) up to `--`. */
const SKIP_OPTIONS = 'while [ "$1" != -- ]; do shift; done; shift';

/** A sandbox-exec that runs the command unconfined. */
const UNCONFINED = `${SKIP_OPTIONS}\nexec "$@"`;

/**
 * A sandbox-exec that confines only the network (a network namespace with
 * no interface up) and the masked files (/dev/null bound over each, in a
 * mount namespace): the write outside the roots and the protected name hold not.
 */
const PARTIAL = [
  "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
  'masks=""',
  'while [ "$1" != -- ]; do case "$1" in -DMASK_*) masks="$masks ${1#*=}";; esac; shift; done',
  "shift",
  `exec unshare -r -n -m sh -c 'for m in $0; do mount --bind /dev/null "$m" || exit 125; done; exec "$@"' "$masks" "$@"`,
].join("\n");

/** An executor over `workspace` on simulated macOS, sandbox-exec found only in `bin`. */
function macExecutor(
  workspace: Workspace,
  bin: string,
  config: Partial<SandboxBashExecutorConfig> = {},
): SandboxBashExecutor {
  return new SandboxBashExecutor({
    workspaceRoot: workspace.root,
    defaultMode: "workspace-write",
    searchPath: bin,
    probeTimeoutMs: 60_000,
    runtime: on("darwin"),
    ...config,
  });
}

/** Asserts that `run` fails closed with one Seatbelt attempt whose reason matches `reason`. */
async function assertFailsClosed(run: Promise<unknown>, reason: RegExp): Promise<string> {
  let said = "";
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof SandboxUnavailableError, String(error));
    assert.deepEqual(error.attempts.map((attempt) => attempt.backend), ["seatbelt"]);
    said = error.attempts[0]?.reason ?? "";
    assert.match(said, reason);
    return true;
  });
  return said;
}

const unshareWorks = spawnSync("unshare", ["-r", "-n", "-m", "true"]).status === 0;
const bwrapWorks =
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "true"]).status === 0;

describe("the sandbox's platform gating", () => {
  it("tries bwrap then landlock on Linux, and refuses seatbelt there naming the platform", async () => {
    using workspace = tempWorkspace();
    const linuxRuntime = on("linux");
    await using linux = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      runtime: linuxRuntime,
    });
    assert.deepEqual(linux.backends, ["bwrap", "landlock"]);
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      backends: ["seatbelt"],
      runtime: linuxRuntime,
    });
    const [status] = await executor.probeBackends();
    assert.equal(status?.works, false);
    assert.match(
      status?.reason ?? "",
      /the seatbelt backend confines commands on macOS only, and this machine runs "linux"/,
    );
    await assertFailsClosed(executor.run({ command: "true" }), /on macOS only.*"linux"/);
  });

  it("tries seatbelt on macOS, and refuses bwrap and landlock there naming the platform", async () => {
    using workspace = tempWorkspace();
    await using mac = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      runtime: on("darwin"),
    });
    assert.deepEqual(mac.backends, ["seatbelt"]);
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      backends: ["bwrap", "landlock"],
      runtime: on("darwin"),
    });
    for (const status of await executor.probeBackends()) {
      assert.equal(status.works, false);
      assert.match(
        status.reason ?? "",
        /confines commands on Linux only, and this machine runs "darwin"/,
      );
    }
    await assert.rejects(executor.run({ command: "true" }), (error: unknown) => {
      assert.ok(error instanceof SandboxUnavailableError);
      assert.match(
        error.message,
        /put \/usr\/bin, where macOS keeps sandbox-exec, on the search path/,
      );
      return true;
    });
  });

  it("tries every backend on a platform none is made for, each refused naming it", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      runtime: on("freebsd"),
    });
    assert.deepEqual(executor.backends, ["bwrap", "landlock", "seatbelt"]);
    await assert.rejects(executor.run({ command: "true" }), (error: unknown) => {
      assert.ok(error instanceof SandboxUnavailableError);
      assert.equal(error.attempts.length, 3);
      assert.ok(error.attempts.every((attempt) => attempt.reason.includes('"freebsd"')));
      assert.match(error.message, /no backend confines commands on "freebsd"/);
      return true;
    });
  });
});

describe("Seatbelt on simulated macOS", () => {
  it("fails closed naming sandbox-exec when the search path has none", async () => {
    using workspace = tempWorkspace();
    await using executor = macExecutor(workspace, "/nonexistent");
    await assertFailsClosed(executor.run({ command: "true" }), /"sandbox-exec" was not found/);
  });

  it("fails the first confined call closed, naming all four probes, under a sandbox-exec that confines nothing", async () => {
    using workspace = tempWorkspace();
    const bin = fakeProgram(workspace, "sandbox-exec", UNCONFINED);
    await using executor = macExecutor(workspace, bin);
    const reason = await assertFailsClosed(
      executor.run({ command: "echo ran > ran.txt" }),
      /self-probe found the sandbox not enforcing/,
    );
    for (const probe of ALL_PROBES) assert.ok(reason.includes(probe), `${probe}: ${reason}`);
    const [status] = await executor.probeBackends();
    assert.deepEqual(status?.selfProbe, ALL_PROBES.map((probe) => ({ probe, refused: false })));
    // Nothing ran: the command's file is not there, nor the probe's folder.
    assert.equal(spawnSync("ls", [workspace.root]).stdout.toString(), "");
  });

  it("names only the probes that held not, under a sandbox-exec that enforces the rest", {
    skip: unshareWorks
      ? false
      : "util-linux unshare cannot make a user, network and mount namespace here",
  }, async () => {
    using workspace = tempWorkspace();
    const bin = fakeProgram(workspace, "sandbox-exec", PARTIAL);
    await using executor = macExecutor(workspace, bin);
    const reason = await assertFailsClosed(
      executor.run({ command: "true" }),
      /a write outside the writable roots, a write to a protected name were not refused/,
    );
    assert.ok(!reason.includes(SELF_PROBES.readDenied), reason);
    assert.ok(!reason.includes(SELF_PROBES.connectOut), reason);
    const [status] = await executor.probeBackends();
    assert.deepEqual(status?.selfProbe, [
      { probe: SELF_PROBES.writeOutside, refused: false },
      { probe: SELF_PROBES.readDenied, refused: true },
      { probe: SELF_PROBES.writeProtected, refused: false },
      { probe: SELF_PROBES.connectOut, refused: true },
    ]);
  });

  it(
    "runs commands under a sandbox-exec that refuses every probe, and says Seatbelt is unverified",
    {
      skip: bwrapWorks ? false : "bubblewrap cannot run here",
    },
    async () => {
      using workspace = tempWorkspace();
      const bin = fakeProgram(workspace, "sandbox-exec", ENFORCING);
      await using executor = macExecutor(workspace, bin);
      const result = await executor.run({
        command: 'echo hi; echo $TMPDIR; echo "$CALL_TOKEN"',
        env: { CALL_TOKEN: "call-token" },
      });
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.match(result.stdout.text, /^hi\n\/.*\/tmp\ncall-token\n$/);
      // sandbox-exec, which runs before the sandbox applies, got none of the command's environment.
      assert.doesNotMatch(readFileSync(join(bin, "sandbox-exec.env"), "utf8"), /call-token/);
      assert.equal(result.sandbox?.backend, "seatbelt");
      assert.equal(result.sandbox?.runnerFailed, false);
      assert.ok(result.sandbox?.enforcement?.gaps.includes(SEATBELT_UNVERIFIED_GAP));
      const [status] = await executor.probeBackends();
      assert.equal(status?.works, true, status?.reason);
      assert.deepEqual(status?.selfProbe, ALL_PROBES.map((probe) => ({ probe, refused: true })));
      assert.deepEqual(readdirSync(workspace.root), []);
    },
  );

  it(
    "gives a command a terminal through sandbox-exec, whose profile lets that command alone open one, and leaves nothing",
    {
      skip: bwrapWorks ? false : "bubblewrap cannot run here",
    },
    async () => {
      using workspace = tempWorkspace();
      const bin = fakeProgram(workspace, "sandbox-exec", ENFORCING);
      await using executor = macExecutor(workspace, bin);
      const process = await executor.start({
        command: "read -p 'Continue? [y/N] ' a; echo answer=$a; stty size; read l; stty size",
        terminal: { rows: 30, cols: 100 },
      });
      const watch = new TerminalWatch(process);
      await watch.until(/Continue\? \[y\/N\] $/);
      const tree = processTree(process.pid);
      await process.write("y\r");
      await watch.until(/30 100\r\n/);
      await process.resize(40, 132);
      await process.write("\r");
      await process.done;
      await watch.ended;
      assert.equal(watch.text, "Continue? [y/N] y\r\nanswer=y\r\n30 100\r\n\r\n40 132\r\n");
      assert.equal(process.exitCode, 0);
      assert.deepEqual(alive(tree), []);
      assert.match(readFileSync(join(bin, "sandbox-exec.profile"), "utf8"), /\(allow pseudo-tty\)/);
      const plain = await executor.run({ command: "echo plain" });
      assert.equal(plain.stdout.text, "plain\n", plain.stderr.text);
      assert.doesNotMatch(readFileSync(join(bin, "sandbox-exec.profile"), "utf8"), /pseudo-tty/);
    },
  );

  it(
    "takes a confined command that prints sandbox-exec's failure for the command, and a failed sandbox-exec for the runner",
    {
      skip: bwrapWorks ? false : "bubblewrap cannot run here",
    },
    async () => {
      using workspace = tempWorkspace();
      const bin = fakeProgram(workspace, "sandbox-exec", ENFORCING);
      await using executor = macExecutor(workspace, bin);
      for (
        const command of [
          'echo "sandbox-exec: sandbox_apply: Operation not permitted" >&2; exit 71',
          'echo "shellseam-seatbelt: no environment on stdin" >&2; exit 125',
        ]
      ) {
        const spoof = await executor.run({ command });
        assert.notEqual(spoof.exitCode, 0);
        assert.equal(spoof.sandbox?.runnerFailed, false, command);
        assert.equal(spoof.stdout.text, "", "the start byte is taken out of the output");
      }
      writeFileSync(join(bin, "sandbox-exec.fail"), "");
      const failed = await executor.run({ command: "echo ran" });
      assert.equal(failed.exitCode, 71);
      assert.equal(failed.stdout.text, "");
      assert.equal(failed.sandbox?.runnerFailed, true, failed.stderr.text);
      assert.equal(failed.sandbox?.denied, false);
    },
  );

  it(
    "reaches an allowed name through the proxy on a loopback port of the launch's own, with no bridge, and reports what it refused",
    {
      skip: !bwrapWorks
        ? "bubblewrap cannot run here"
        : findOnPath("socat", process.env.PATH) === null ||
            findOnPath("curl", process.env.PATH) === null
        ? "the fake sandbox-exec needs socat, and the command curl"
        : false,
    },
    async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      // Only the fake is on the search path: unshare, ip and socat, the bridge's, are not.
      const bin = fakeProgram(workspace, "sandbox-exec", ENFORCING);
      await using executor = macExecutor(workspace, bin, {
        network: { allow: ["allowed.test", "127.0.0.1"] },
        [PROXY_OPTIONS]: { resolve: fakeResolve },
      } as Partial<SandboxBashExecutorConfig>);
      const url = `http://allowed.test:${internet.port}`;
      const result = await executor.run({
        command: `echo "$HTTP_PROXY"; curl -sS ${url}/plain && curl -sS -p ${url}/tunnel && ` +
          `curl -sS -x "$ALL_PROXY" ${url}/socks; ` +
          `curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${internet.port}/direct; ` +
          `curl -sS -f http://evil.test:${internet.port}/`,
      });
      assert.equal(result.sandbox?.backend, "seatbelt");
      assert.equal(result.sandbox?.runnerFailed, false, result.stderr.text);
      const [proxyUrl = "", ...answers] = result.stdout.text.split("\n");
      const port = Number(/^http:\/\/shellseam:[0-9a-f]+@127\.0\.0\.1:(\d+)$/.exec(proxyUrl)?.[1]);
      assert.ok(port > 0 && port !== BRIDGE_PORT, proxyUrl);
      // The profile's only way out is that port, and the command reached the internet through it.
      assert.ok(
        readFileSync(join(bin, "sandbox-exec.profile"), "utf8").includes(
          `(allow network-outbound (remote tcp "localhost:${port}"))`,
        ),
      );
      assert.deepEqual(answers.slice(0, 3), [
        `hello allowed.test:${internet.port} /plain`,
        `hello allowed.test:${internet.port} /tunnel`,
        `hello allowed.test:${internet.port} /socks`,
      ]);
      // A connection that ignores the proxy variables gets nowhere; the refused name is reported.
      assert.ok(
        !internet.hosts.some((host) => host.startsWith("127.0.0.1")),
        internet.hosts.join(),
      );
      assert.notEqual(result.exitCode, 0);
      assert.equal(result.sandbox?.denial, "network");
      assert.deepEqual(result.sandbox?.refusedDestinations, ["evil.test"]);
      // The port was the launch's own: it listens no longer.
      await assert.rejects(
        new Promise((resolve, reject) => {
          const socket = connect(port, "127.0.0.1", () => resolve(socket.destroy()));
          socket.once("error", reject);
        }),
        /ECONNREFUSED/,
      );
      assert.equal((await executor.networkProxyState())?.launches, 0);
    },
  );
});

describe("the doctor on simulated macOS", () => {
  it("shows the self-probe's failure, naming each probe, and that commands fail closed", async () => {
    using workspace = tempWorkspace();
    const bin = fakeProgram(workspace, "sandbox-exec", UNCONFINED);
    const report = await shellseamDoctor({
      workspaceRoot: workspace.root,
      searchPath: bin,
      runtime: on("darwin"),
    });
    assert.equal(report.platform, "darwin");
    assert.deepEqual(report.backends.map((status) => status.backend), ["seatbelt"]);
    assert.equal(report.selected, null);
    assert.deepEqual(
      report.backends[0]?.selfProbe,
      ALL_PROBES.map((probe) => ({ probe, refused: false })),
    );
    const text = formatDoctorReport(report);
    assert.match(text, /seatbelt: does not work: its self-probe found the sandbox not enforcing/);
    for (const probe of ALL_PROBES) assert.ok(text.includes(probe), text);
    assert.match(
      text,
      /confined commands fail closed: no backend works \(put \/usr\/bin, where macOS keeps sandbox-exec/,
    );
  });

  it("shows what the self-probe saw refused when it held", {
    skip: bwrapWorks ? false : "bubblewrap cannot run here",
  }, async () => {
    using workspace = tempWorkspace();
    const bin = fakeProgram(workspace, "sandbox-exec", ENFORCING);
    const report = await shellseamDoctor({
      workspaceRoot: workspace.root,
      searchPath: bin,
      runtime: on("darwin"),
    });
    assert.equal(report.selected, "seatbelt");
    const text = formatDoctorReport(report);
    assert.ok(text.includes(`self-probe refused: ${ALL_PROBES.join(", ")}`), text);
    assert.ok(text.includes(`gap: ${SEATBELT_UNVERIFIED_GAP}`), text);
    assert.match(text, /confined commands use: seatbelt/);
    // A command under an empty allow-list reached the proxy at the port its HTTP_PROXY names.
    assert.equal(report.networkProxy?.works, true, report.networkProxy?.reason);
    assert.equal(report.networkProxy?.bridge, undefined);
    assert.match(text, /network allow-lists: work \(.*no bridge: the sandbox lets commands reach/);
  });
});
