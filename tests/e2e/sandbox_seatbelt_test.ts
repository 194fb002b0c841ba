// Real bash under the real Seatbelt (macOS's /usr/bin/sandbox-exec), as
// whoever runs the tests. Written to run unchanged on a Mac, as this file
// alone (`deno test --lock=tests/deno.lock --allow-all
// tests/e2e/sandbox_seatbelt_test.ts`: the rest of the suite is Linux's); elsewhere each test
// skips, naming why. The commands are the ones macOS ships (bash 3.2, BSD
// tools). Until a run on a Mac is recorded, every result carries
// SEATBELT_UNVERIFIED_GAP.
import { describe, it } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  type SandboxBackendStatus,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
} from "../../sandbox/mod.ts";
import { SEATBELT_UNVERIFIED_GAP, SELF_PROBES } from "../../sandbox/backends/seatbelt/mod.ts";
import { closeServer, listener, tempWorkspace, type Workspace } from "../sandbox/_fixtures.ts";
import { fakeResolve, startInternet } from "../sandbox/network/_internet.ts";
import { PROXY_OPTIONS } from "../../sandbox/network/_proxy.ts";
import type { BashProcess } from "../../seam/mod.ts";
import { alive, processTree, TerminalWatch } from "../_terminal.ts";

/** What probing Seatbelt found here: nothing off macOS. */
async function seatbeltHere(): Promise<SandboxBackendStatus | undefined> {
  if (process.platform !== "darwin") return undefined;
  using workspace = tempWorkspace();
  await using executor = new SandboxBashExecutor({
    workspaceRoot: workspace.root,
    backends: ["seatbelt"],
  });
  return (await executor.probeBackends())[0];
}

const status = await seatbeltHere();
const skip: string | false = status === undefined
  ? `Seatbelt confines commands on macOS only, and this machine runs "${process.platform}"`
  : status.works
  ? false
  : `the seatbelt sandbox backend does not work here: ${status.reason}`;

/** Whether python3 runs here (a Mac without the command line tools has only a stub). */
const skipPython: string | false =
  spawnSync("python3", ["-c", ""], { stdio: "ignore" }).status === 0
    ? false
    : "python3 does not run here; install the command line tools (xcode-select --install)";

/**
 * A command started in a 30x100 terminal, followed: its output, and every
 * process below it each time `census` is called, to check none is left.
 */
class Terminal {
  readonly watch: TerminalWatch;
  readonly #seen = new Set<number>();
  constructor(readonly process: BashProcess) {
    this.watch = new TerminalWatch(process);
    this.census();
  }

  census(): void {
    for (const pid of processTree(this.process.pid)) this.#seen.add(pid);
  }

  /** Waits for the command's end, and asserts that nothing it started is alive. */
  async ended(): Promise<string> {
    await this.process.done;
    await this.watch.ended;
    assert.deepEqual(alive([...this.#seen]), [], "processes left running");
    return this.watch.text;
  }
}

async function terminal(executor: SandboxBashExecutor, command: string): Promise<Terminal> {
  return new Terminal(await executor.start({ command, terminal: { rows: 30, cols: 100 } }));
}

/** An executor confined by Seatbelt alone over `workspace`. */
function seatbelt(
  workspace: Workspace,
  config: Partial<SandboxBashExecutorConfig> = {},
): SandboxBashExecutor {
  return new SandboxBashExecutor({
    workspaceRoot: workspace.root,
    backends: ["seatbelt"],
    defaultMode: "workspace-write",
    ...config,
  });
}

describe("Seatbelt on macOS", { skip }, () => {
  it("passed its self-probe, and says it is not yet verified on macOS hardware", () => {
    assert.deepEqual(
      status?.selfProbe,
      Object.values(SELF_PROBES).map((probe) => ({ probe, refused: true })),
    );
    assert.ok(status?.enforcement?.gaps.includes(SEATBELT_UNVERIFIED_GAP));
  });

  it("read-only refuses a write to the workspace and beside it, and says so", async () => {
    using workspace = tempWorkspace();
    await using executor = seatbelt(workspace, { defaultMode: "read-only" });
    for (const target of [join(workspace.root, "out.txt"), join(workspace.base, "beside.txt")]) {
      const result = await executor.run({ command: `echo x > '${target}'` });
      assert.notEqual(result.exitCode, 0);
      assert.equal(existsSync(target), false, `${target} was written`);
      assert.match(result.stderr.text, /Operation not permitted/);
      assert.equal(result.sandbox?.backend, "seatbelt");
      assert.equal(result.sandbox?.denial, "filesystem", result.stderr.text);
      assert.equal(result.sandbox?.runnerFailed, false);
    }
  });

  it("workspace-write writes in the workspace and TMPDIR, and nowhere else", async () => {
    using workspace = tempWorkspace();
    await using executor = seatbelt(workspace);
    const inside = await executor.run({
      command: 'echo in > in.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"',
    });
    assert.equal(inside.exitCode, 0, inside.stderr.text);
    assert.equal(inside.stdout.text, "tmp\n");
    assert.equal(readFileSync(join(workspace.root, "in.txt"), "utf8"), "in\n");
    assert.equal(inside.sandbox?.denied, false);
    // /tmp is /private/tmp on macOS: the profile must match the resolved path.
    for (const target of [join(workspace.base, "beside.txt"), `/tmp/shellseam-${process.pid}`]) {
      const result = await executor.run({ command: `echo x > '${target}'` });
      assert.equal(existsSync(target), false, `${target} was written`);
      assert.equal(result.sandbox?.denial, "filesystem", result.stderr.text);
    }
  });

  it("refuses a protected name anywhere below a root, made before the launch or after", async () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, ".git"));
    writeFileSync(join(workspace.root, ".git", "config"), "[core]\n");
    await using executor = seatbelt(workspace);
    for (
      const command of [
        "echo x >> .git/config",
        "mkdir -p sub && mkdir sub/.git",
        "mkdir -p a/b && echo x > a/b/.git",
      ]
    ) {
      const result = await executor.run({ command });
      assert.notEqual(result.exitCode, 0, command);
      assert.equal(result.sandbox?.denial, "filesystem", `${command}: ${result.stderr.text}`);
    }
    assert.equal(readFileSync(join(workspace.root, ".git", "config"), "utf8"), "[core]\n");
    assert.equal(existsSync(join(workspace.root, "sub", ".git")), false);
    assert.equal(existsSync(join(workspace.root, "a", "b", ".git")), false);
    const allowed = await executor.run({ command: "echo x > .gitignore && mkdir .github" });
    assert.equal(allowed.exitCode, 0, allowed.stderr.text);
  });

  it("refuses a write to a protected file through a hard link made in the workspace", async () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, ".git"));
    writeFileSync(join(workspace.root, ".git", "config"), "[core]\n");
    await using executor = seatbelt(workspace);
    await executor.run({ command: "ln .git/config linked && echo x >> linked" });
    assert.equal(readFileSync(join(workspace.root, ".git", "config"), "utf8"), "[core]\n");
  });

  it("refuses a read beneath a denyRead folder as a secret, and lets the rest be read", async () => {
    using workspace = tempWorkspace();
    const secrets = join(workspace.base, "secrets");
    mkdirSync(secrets);
    writeFileSync(join(secrets, "key"), "s3cret\n");
    writeFileSync(join(workspace.root, "open.txt"), "open\n");
    await using executor = seatbelt(workspace, { denyRead: [secrets] });
    const result = await executor.run({ command: `cat open.txt; cat '${join(secrets, "key")}'` });
    assert.equal(result.stdout.text, "open\n");
    assert.equal(result.sandbox?.denial, "secret", result.stderr.text);
  });

  it("refuses a connection out under network deny, as the network's denial", async () => {
    using workspace = tempWorkspace();
    const { port, accepted, server } = await listener();
    try {
      await using executor = seatbelt(workspace);
      const result = await executor.run({
        command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
      });
      assert.notEqual(result.exitCode, 0);
      assert.equal(result.stdout.text, "");
      assert.equal(accepted(), 0);
      assert.equal(result.sandbox?.denial, "network", result.stderr.text);
    } finally {
      await closeServer(server);
    }
  });

  it("lets a command reach the network under network allow", async () => {
    using workspace = tempWorkspace();
    const { port, server } = await listener();
    try {
      await using executor = seatbelt(workspace, { network: "allow" });
      const result = await executor.run({
        command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
      });
      assert.equal(result.stdout.text, "connected\n", result.stderr.text);
    } finally {
      await closeServer(server);
    }
  });

  it("reaches an allowed name only through the proxy under an allow-list, and reports a refused one", async () => {
    using workspace = tempWorkspace();
    await using internet = await startInternet();
    await using executor = seatbelt(workspace, {
      network: { allow: ["allowed.test", "127.0.0.1"] },
      [PROXY_OPTIONS]: { resolve: fakeResolve },
    } as Partial<SandboxBashExecutorConfig>);
    const result = await executor.run({
      command: `curl -sS http://allowed.test:${internet.port}/via && ` +
        `curl -sS -p http://allowed.test:${internet.port}/tunnel; ` +
        `curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${internet.port}/direct; ` +
        `curl -sS -f http://evil.test:${internet.port}/`,
    });
    assert.equal(
      result.stdout.text,
      `hello allowed.test:${internet.port} /via\nhello allowed.test:${internet.port} /tunnel\n`,
      result.stderr.text,
    );
    // The profile's only way out is the proxy's port: the direct connection reached nothing.
    assert.ok(!internet.hosts.some((host) => host.startsWith("127.0.0.1")), internet.hosts.join());
    assert.deepEqual(result.sandbox?.refusedDestinations, ["evil.test"]);
    assert.equal(result.sandbox?.denial, "network", result.stderr.text);
    assert.equal(result.sandbox?.runnerFailed, false);
  });

  it("gives the command its environment, off every command line", async () => {
    using workspace = tempWorkspace();
    await using executor = seatbelt(workspace);
    const result = await executor.run({
      command: 'printf "%s" "$SHELLSEAM_E2E"; ps -ww -o args= -p $$ $PPID',
      env: { SHELLSEAM_E2E: "token-in-env" },
    });
    assert.equal(result.stdout.text.startsWith("token-in-env"), true, result.stderr.text);
    assert.equal(result.stdout.text.split("token-in-env").length, 2, result.stdout.text);
  });

  it("a terminal answers a y/N prompt, resizes (stty size), and leaves nothing running", async () => {
    using workspace = tempWorkspace();
    await using executor = seatbelt(workspace);
    const term = await terminal(
      executor,
      "read -p 'Continue? [y/N] ' a; echo answer=$a; stty size; read l; stty size; tty",
    );
    await term.watch.until(/Continue\? \[y\/N\] $/);
    term.census();
    await term.process.write("y\r");
    await term.watch.until(/30 100\r\n/);
    await term.process.resize(40, 132);
    await term.process.write("\r");
    assert.match(
      await term.ended(),
      /^Continue\? \[y\/N\] y\r\nanswer=y\r\n30 100\r\n\r\n40 132\r\n\/dev\/ttys\d+\r\n$/,
    );
    assert.equal(term.process.exitCode, 0);
    assert.equal(term.process.sandbox?.backend, "seatbelt");
  });

  it(
    "python3's REPL in a terminal adds 1+1, and exit() ends it",
    { skip: skipPython },
    async () => {
      using workspace = tempWorkspace();
      await using executor = seatbelt(workspace);
      const term = await terminal(executor, "exec python3 -q");
      await term.watch.until(/>>> $/);
      term.census();
      await term.process.write("1+1\r");
      await term.watch.until(/\r\n2\r\n>>> $/);
      await term.process.write("exit()\r");
      await term.ended();
      assert.equal(term.process.exitCode, 0);
    },
  );

  it("Ctrl-C stops a sleep in a terminal with 128 + SIGINT, and a kill leaves nothing", async () => {
    using workspace = tempWorkspace();
    await using executor = seatbelt(workspace);
    const interrupted = await terminal(executor, "bash -c 'echo ready; exec sleep 30'");
    await interrupted.watch.until(/ready/);
    interrupted.census();
    await interrupted.process.write("\x03");
    await interrupted.ended();
    assert.equal(interrupted.process.exitCode, 130);
    const killed = await terminal(
      executor,
      "(trap '' HUP TERM INT; exec sleep 60) & echo started; sleep 60",
    );
    await killed.watch.until(/started/);
    killed.census();
    assert.equal(await killed.process.kill(), true);
    await killed.ended();
    assert.equal(killed.process.status, "killed");
  });

  it("a command without a terminal cannot open one", async () => {
    using workspace = tempWorkspace();
    await using executor = seatbelt(workspace);
    const result = await executor.run({ command: "script -q /dev/null true" });
    assert.notEqual(result.exitCode, 0);
    assert.match(result.stderr.text, /Operation not permitted/);
  });
});
