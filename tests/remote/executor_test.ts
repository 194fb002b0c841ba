// The SSH executor against a real sshd on 127.0.0.1 (default MaxSessions): what the
// conformance suite does not cover — lost connections, many commands over one connection,
// connection and start errors, the environment that reaches the remote side, the sandbox
// failing closed, and the task tools over it.
import { REMOTE_SANDBOX_GAPS } from "../../remote/_sandbox.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SshBashExecutor, type SshBashExecutorConfig } from "../../remote/mod.ts";
import { BashConfigError, BashSpawnError, SandboxUnavailableError } from "../../seam/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { createBashTools } from "../../tool/mod.ts";
import {
  assertNoneLeft,
  leavesOnTermCommand,
  loneThreadCommand,
  marker,
  processesWith,
  until,
} from "../local/_helpers.ts";
import { skipWithoutPython } from "../sandbox/_fixtures.ts";
import { stressSized } from "../_stress.ts";
import { sshdConnections, sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

const skip = sshdMissing;
let sshd: TestSshd | undefined;
const config = (extra: Partial<SshBashExecutorConfig> = {}): SshBashExecutorConfig => ({
  ...sshd!.config,
  cwd: "/tmp",
  ...extra,
});

/** Pid of the executor's master connection, as `ssh -O check` reports it. */
function masterPid(executor: SshBashExecutor): number {
  const { args } = executor.transport.command("true");
  const common = args.slice(args.indexOf("-F"), args.indexOf("-T"));
  const check = spawnSync(executor.config.ssh, [...common, "-O", "check", executor.config.host]);
  const found = /pid=(\d+)/.exec(check.stderr.toString());
  assert.ok(found, `ssh -O check said: ${check.stderr}`);
  return Number(found[1]);
}

describe("SshBashExecutor over a real sshd", { skip }, () => {
  /**
   * One executor, with the default config, for the cases about what a command does; a case
   * about the connection, the channels, a config of its own or disposal makes its own.
   */
  let shared: SshBashExecutor;
  before(async () => {
    // AcceptEnv lets sshd take whatever a client sends: the test shows the client sends nothing.
    sshd = await startSshd({ extraConfig: "AcceptEnv *" });
    shared = new SshBashExecutor(config());
  });
  after(async () => {
    await shared?.[Symbol.asyncDispose]();
    await sshd?.dispose();
  });

  it("reports a lost connection when the master connection dies mid-run, and leaves nothing running", async () => {
    await using executor = new SshBashExecutor(config());
    const mark = marker();
    const running = executor.run(executor.resolve({ command: `echo up; sleep ${mark}` }));
    await until(() => processesWith(mark).length > 0, "the remote sleep");
    process.kill(masterPid(executor), "SIGKILL");
    const result = await running;
    assert.equal(result.connectionLost, true);
    assert.equal(result.exitCode, null);
    assert.equal(result.timedOut || result.aborted || result.idledOut, false);
    // No census came back: the strays say so instead of "nothing left".
    assert.match(result.strays.censusFailed ?? "", /connection to .* was lost/);
    await until(() => processesWith(mark).length === 0, "the remote sleep to be killed");
    // The next command opens a new connection.
    const next = await executor.run(executor.resolve({ command: "echo again" }));
    assert.equal(next.stdout.text, "again\n");
    assert.equal(next.connectionLost, false);
  });

  it("kills the remote command when the sshd serving the connection dies, and says so", async () => {
    await using executor = new SshBashExecutor(config());
    await executor.run(executor.resolve({ command: "true" }));
    const before = new Set(sshdConnections(sshd!.pid));
    const mark = marker();
    const process_ = await executor.start(executor.resolve({ command: `sleep ${mark}` }));
    await until(() => processesWith(mark).length > 0, "the remote sleep");
    assert.ok(before.size > 0, "no sshd connection process found");
    for (const pid of before) process.kill(pid, "SIGKILL");
    await process_.done;
    assert.equal(process_.status, "killed");
    await until(() => processesWith(mark).length === 0, "the remote sleep to be killed");
  });

  // 20 commands (50 under test:stress) still ask for twice the 10 channels at once: more than 10
  // running together, or a channel that sshd refused (its MaxSessions is 10), fails the case.
  const many = stressSized(20, 50);
  it(`runs ${many} commands at once over one connection, at most 10 channels at a time`, async () => {
    await using executor = new SshBashExecutor(config());
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-50-"));
    try {
      const command = (i: number): string =>
        `touch ${dir}/run.${i}; sleep 0.2; ls ${dir} | grep -c '^run' > ${dir}/seen.${i}; rm ${dir}/run.${i}; echo ${i}`;
      const results = await Promise.all(
        Array.from(
          { length: many },
          (_, i) => executor.run(executor.resolve({ command: command(i) })),
        ),
      );
      results.forEach((result, i) => {
        assert.equal(result.exitCode, 0, result.stderr.text);
        assert.equal(result.stdout.text, `${i}\n`);
      });
      const seen = readdirSync(dir).filter((name) => name.startsWith("seen."))
        .map((name) => Number(readFileSync(join(dir, name), "utf8")));
      assert.equal(seen.length, many);
      assert.ok(Math.max(...seen) <= 10, `${Math.max(...seen)} ran at once`);
      assert.ok(Math.max(...seen) > 1, "the commands never overlapped");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps a channel for foreground runs: a background process that would take it is refused at once", async () => {
    await using executor = new SshBashExecutor(config({ maxChannels: 3 }));
    const token = marker();
    const first = await executor.start(executor.resolve({ command: `sleep ${token}` }));
    const second = await executor.start(executor.resolve({ command: `sleep ${token}` }));
    await assert.rejects(
      executor.start(executor.resolve({ command: `sleep ${token}; echo third` })),
      (error: Error) =>
        error instanceof BashSpawnError &&
        error.message.includes("2 background processes already hold 2 of the 3 channels"),
    );
    // Foreground runs still get the kept channel, one after another.
    const runs = await Promise.all(
      [1, 2, 3].map((i) => executor.run(executor.resolve({ command: `echo ${i}` }))),
    );
    assert.deepEqual(runs.map((run) => run.stdout.text), ["1\n", "2\n", "3\n"]);
    assert.equal(processesWith(`sleep\0${token}\0`).length, 2, "the refused one ran");
    // A background process that ended frees its channel for the next one.
    await first.kill();
    const third = await executor.start(executor.resolve({ command: `sleep ${token}` }));
    assert.equal(third.status, "running");
    await Promise.all([second.kill(), third.kill()]);
  });

  it("starts no background process with maxChannels 1: its one channel is kept for foreground runs", async () => {
    await using executor = new SshBashExecutor(config({ maxChannels: 1 }));
    await assert.rejects(
      executor.start(executor.resolve({ command: "sleep 30" })),
      (error: Error) => error instanceof BashSpawnError && /"maxChannels" 1/.test(error.message),
    );
    assert.equal(
      (await executor.run(executor.resolve({ command: "echo ok" }))).stdout.text,
      "ok\n",
    );
  });

  it("starts a queued command's wall clock when the remote side says it started; an abort while it waits runs nothing", async () => {
    await using executor = new SshBashExecutor(config({ maxChannels: 1 }));
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-queue-"));
    try {
      // The first command holds the one channel until the test lets it go.
      const holder = executor.run(executor.resolve({
        command: `: > ${dir}/begun; until [ -e ${dir}/go ]; do sleep 0.05; done; echo held`,
      }));
      await until(() => existsSync(join(dir, "begun")), "the first command to start");
      const timeoutMs = 2000;
      let settled = false;
      const queued = executor.run(executor.resolve({ command: "echo ran", timeoutMs }))
        .finally(() => void (settled = true));
      const controller = new AbortController();
      const aborted = executor.run(executor.resolve({
        command: `: > ${dir}/aborted`,
        signal: controller.signal,
      })).then(() => null, (error: unknown) => error);
      controller.abort();
      // Longer than its wall clock: a clock counted from the call would have run out by now.
      await new Promise((resolve) => setTimeout(resolve, timeoutMs + 500));
      assert.equal(settled, false, "the queued command ran while the channel was held");
      writeFileSync(join(dir, "go"), "");
      const result = await queued;
      assert.deepEqual([result.timedOut, result.exitCode, result.stdout.text], [false, 0, "ran\n"]);
      assert.equal((await holder).stdout.text, "held\n");
      // Aborted before it started: refused, and nothing ran.
      assert.ok((await aborted) instanceof BashSpawnError, String(await aborted));
      assert.equal(existsSync(join(dir, "aborted")), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("applies resource limits on the remote host as rlimits, and reports them", async () => {
    await using executor = new SshBashExecutor(config({ limits: { cpuSeconds: 9 } }));
    const limits = { fileSizeBytes: 1024 * 1024, processes: 2000 };
    const result = await executor.run(
      executor.resolve({ command: "ulimit -St; ulimit -Ht; ulimit -f; ulimit -u", limits }),
    );
    assert.equal(result.stdout.text, "9\n10\n1024\n2000\n", result.stderr.text);
    assert.deepEqual(result.limits?.limits, { cpuSeconds: 9, ...limits });
    assert.equal(result.limits?.mechanism, "rlimit");
    // The remote user is root here, as is the user the test sshd logs in.
    assert.ok(
      result.limits?.gaps.some((gap) => gap.startsWith("processes: not enforced for root")),
      JSON.stringify(result.limits?.gaps),
    );
    // A call's null lifts the config's limit; no limit, no report.
    const lifted = await executor.run(
      executor.resolve({ command: "ulimit -t", limits: { cpuSeconds: null } }),
    );
    assert.equal(lifted.stdout.text, "unlimited\n");
    assert.equal(lifted.limits, undefined);
  });

  it("reports the limit a remote command ran into: a file size limit ends it with SIGXFSZ", async () => {
    const executor = shared;
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-limits-"));
    try {
      const result = await executor.run(executor.resolve({
        command: `exec head -c 300000 /dev/zero > ${dir}/big`,
        limits: { fileSizeBytes: 100 * 1024 },
      }));
      assert.equal(result.signal, "SIGXFSZ");
      assert.deepEqual(result.limitHit, { limit: "fileSize", evidence: "signal", certain: true });
      assert.equal(readFileSync(join(dir, "big")).length, 100 * 1024);
      const background = await executor.start(executor.resolve({
        command: `exec head -c 300000 /dev/zero > ${dir}/big2`,
        limits: { fileSizeBytes: 100 * 1024 },
      }));
      await background.done;
      assert.equal(background.limitHit?.limit, "fileSize");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a kill reaches a process that left the command's session (setsid), by its marker", async () => {
    const executor = shared;
    const token = marker();
    const result = await executor.run(executor.resolve({
      command: `setsid sleep ${token} >/dev/null 2>&1 & sleep ${token}`,
      timeoutMs: 1500,
    }));
    assert.equal(result.timedOut, true);
    await until(() => processesWith(token).length === 0, `no process carrying "${token}"`);
  });

  it("the sweep after a command that exited kills and counts what left its session, by its marker", async () => {
    const executor = shared;
    const token = marker();
    const result = await executor.run(executor.resolve({
      command: `setsid sleep ${token} >/dev/null 2>&1 & echo started`,
    }));
    assert.equal(result.exitCode, 0);
    assert.deepEqual(result.strays, { killed: 1, survivors: [] });
    await until(() => processesWith(token).length === 0, `no process carrying "${token}"`);
  });

  it("the sweep kills a process that left the session at the group's signal, by its marker", async () => {
    const executor = shared;
    const token = marker();
    const result = await executor.run(executor.resolve({ command: leavesOnTermCommand(token) }));
    assert.equal(result.stdout.text, "started\n");
    assert.deepEqual(result.strays.survivors, []);
    await assertNoneLeft(token);
  });

  for (const prefix of ["", "setsid"]) {
    it(
      `the sweep kills and counts a process whose leader ended alone while a thread runs${
        prefix === "" ? "" : ", in a session of its own"
      }`,
      { skip: skipWithoutPython() },
      async () => {
        const executor = shared;
        const token = marker();
        const result = await executor.run(executor.resolve({
          command: loneThreadCommand(token, { prefix }),
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        assert.ok(result.strays.killed >= 1, JSON.stringify(result.strays));
        assert.deepEqual(result.strays.survivors, []);
        assert.deepEqual(processesWith(token), []);
      },
    );
  }

  it("rejects with BashSpawnError when the host key is not known, and runs nothing", async () => {
    const knownHostsFile = join(sshd!.dir, "empty_known_hosts");
    writeFileSync(knownHostsFile, "");
    await using executor = new SshBashExecutor(config({ knownHostsFile }));
    const mark = marker();
    await assert.rejects(
      executor.run(executor.resolve({ command: `sleep ${mark}` })),
      (error) =>
        error instanceof BashSpawnError && /Host key verification failed/.test(error.message),
    );
    assert.deepEqual(processesWith(mark), []);
  });

  it("rejects with BashSpawnError for a workdir missing on the remote host", async () => {
    const executor = shared;
    await assert.rejects(
      executor.run(executor.resolve({ command: "true", workdir: "/no/such/dir" })),
      (error) =>
        error instanceof BashSpawnError && /"\/no\/such\/dir" does not exist/.test(error.message),
    );
  });

  it("sends no local environment: only the overrides and the call's env reach the command", async () => {
    process.env.SHELLSEAM_SSH_LEAK = "managed-leak";
    process.env.LC_SSH_LEAK = "locale-leak";
    try {
      await using executor = new SshBashExecutor(config());
      const result = await executor.run(executor.resolve({
        command: "env",
        env: { GIVEN: "a b" },
        managedEnv: { SHELLSEAM_GIVEN: "m" },
      }));
      const env = result.stdout.text;
      assert.doesNotMatch(env, /leak/);
      assert.match(env, /^GIVEN=a b$/m);
      assert.match(env, /^SHELLSEAM_GIVEN=m$/m);
      assert.match(env, /^GIT_TERMINAL_PROMPT=0$/m);
      assert.match(env, /^SSH_CONNECTION=/m);
    } finally {
      delete process.env.SHELLSEAM_SSH_LEAK;
      delete process.env.LC_SSH_LEAK;
    }
  });

  it("confines a command with the remote bwrap: a write outside the workspace is denied", async () => {
    await using executor = new SshBashExecutor(config());
    const workspace = mkdtempSync(join(tmpdir(), "shellseam-ssh-ws-"));
    const outside = mkdtempSync(join("/var/tmp", "shellseam-ssh-out-"));
    try {
      const policy = {
        mode: "workspace-write",
        workspaceRoot: workspace,
        network: "deny",
      } as const;
      const inside = await executor.run(executor.resolve({
        command: "echo in > inside.txt && cat inside.txt && ulimit -u",
        workdir: workspace,
        sandboxPolicy: policy,
      }));
      assert.equal(inside.exitCode, 0, inside.stderr.text);
      assert.equal(readFileSync(join(workspace, "inside.txt"), "utf8"), "in\n");
      // A confined command gets the sandbox's default limits, as locally.
      assert.equal(inside.stdout.text, "in\n4096\n");
      assert.equal(inside.limits?.limits.processes, 4096);
      // The workspace's .git (a default protected path) stays read-only.
      mkdirSync(join(workspace, ".git"));
      const git = await executor.run(executor.resolve({
        command: "echo x > .git/config",
        workdir: workspace,
        sandboxPolicy: policy,
      }));
      assert.equal(git.sandbox?.denial, "filesystem", git.stderr.text);
      assert.deepEqual(readdirSync(join(workspace, ".git")), []);
      assert.deepEqual(inside.sandbox?.backend, "bwrap");
      assert.equal(inside.sandbox?.denied, false);
      // What the remote sandbox does not do (protected-path targets) is said.
      assert.equal(inside.sandbox?.enforcement?.filesystem, "partial");
      for (const gap of REMOTE_SANDBOX_GAPS) {
        assert.ok(inside.sandbox?.enforcement?.gaps.includes(gap), gap);
      }
      const denied = await executor.run(executor.resolve({
        command: `echo out > ${outside}/escape.txt`,
        workdir: workspace,
        sandboxPolicy: policy,
      }));
      assert.notEqual(denied.exitCode, 0);
      assert.match(denied.stderr.text, /Read-only file system/);
      assert.equal(denied.sandbox?.denied, true);
      assert.equal(denied.sandbox?.denial, "filesystem");
      assert.deepEqual(readdirSync(outside), []);
      // The same command unconfined writes there: the denial is the sandbox's.
      const full = await executor.run(executor.resolve({
        command: `echo out > ${outside}/escape.txt`,
        sandboxPolicy: { mode: "danger-full-access", workspaceRoot: workspace, network: "allow" },
      }));
      assert.equal(full.exitCode, 0);
      assert.deepEqual(full.sandbox, {
        mode: "danger-full-access",
        backend: "none",
        denied: false,
      });
      assert.deepEqual(readdirSync(outside), ["escape.txt"]);
      // Read-only: its private TMPDIR is writable, and the session's environment is there.
      const scratch = await executor.run(executor.resolve({
        command: 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR" && echo "$HOME"',
        workdir: workspace,
        sandboxPolicy: { ...policy, mode: "read-only" },
      }));
      assert.equal(scratch.exitCode, 0, scratch.stderr.text);
      const [written, tmp, home] = scratch.stdout.text.split("\n");
      assert.equal(written, "t");
      assert.match(tmp ?? "", /^\/tmp\/shellseam-ssh-u\d+\/ssh-\w+\/tmp$/);
      assert.ok(home !== undefined && home.startsWith("/"), `HOME is ${home}`);
      await executor[Symbol.asyncDispose]();
      assert.equal(existsSync(dirname(tmp!)), false, "the remote private folder was left");
    } finally {
      rmSync(workspace, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("fails closed for a confined mode where the remote host has no bwrap, and runs nothing", async () => {
    // A remote bash whose PATH has everything of /usr/bin but bwrap.
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-nobwrap-"));
    try {
      mkdirSync(join(dir, "bin"));
      for (const name of readdirSync("/usr/bin")) {
        if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(dir, "bin", name));
      }
      const shell = join(dir, "bash");
      writeFileSync(shell, `#!/bin/bash\nPATH=${dir}/bin exec /bin/bash "$@"\n`, { mode: 0o755 });
      await using executor = new SshBashExecutor(config({ shell }));
      const mark = marker();
      const spec = executor.resolve({
        command: `sleep ${mark}`,
        sandboxPolicy: { mode: "workspace-write", workspaceRoot: "/tmp", network: "deny" },
      });
      await assert.rejects(
        executor.run(spec),
        (error) =>
          error instanceof SandboxUnavailableError &&
          /"bwrap" was not found on the remote PATH/.test(error.message),
      );
      await assert.rejects(executor.start(spec), SandboxUnavailableError);
      assert.deepEqual(processesWith(mark), []);
      const plain = await executor.run(executor.resolve({ command: "echo plain" }));
      assert.equal(plain.stdout.text, "plain\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serves the task tools unchanged: a background task, its output and its kill", async () => {
    await using executor = new SshBashExecutor(config());
    await using tasks = new TaskRegistry();
    const { bash, taskOutput, taskKill } = createBashTools({
      executor,
      tasks,
      owner: taskOwner("s"),
    });
    const run = await bash.execute({ command: "echo hello", description: "Say hello" });
    assert.deepEqual(run, { text: "hello\n[exit code: 0]", isError: false });
    await bash.execute({
      command: "echo later",
      description: "Echo in the background",
      run_in_background: true,
    });
    const read = await taskOutput.execute({ task_id: "bash-1", wait: true });
    assert.equal(read.text, "later\n[status: completed, exit code: 0]");
    const mark = marker();
    await bash.execute({
      command: `sleep ${mark}`,
      description: "Sleep in the background",
      run_in_background: true,
    });
    await until(() => processesWith(mark).length > 0, "the remote sleep");
    const killed = await taskKill.execute({ task_id: "bash-2" });
    assert.equal(killed.isError, false);
    await until(() => processesWith(mark).length === 0, "the remote sleep to be killed");
  });

  // It ran `ssh -O check` every few milliseconds until the master answered: an ssh process
  // each, tens of milliseconds of CPU, about 4 per connection on a loaded machine.
  it("opens its connection with one ssh -O check, once the master's control socket is there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-checks-"));
    try {
      // An ssh that writes down each invocation's arguments, then runs the real one.
      const real = new SshBashExecutor(config()).config.ssh;
      const ssh = join(dir, "ssh");
      writeFileSync(
        ssh,
        `#!/bin/bash\nprintf '%s\\n' "$*" >>${dir}/calls\nexec ${real} "$@"\n`,
        { mode: 0o755 },
      );
      await using executor = new SshBashExecutor(config({ ssh }));
      await executor.transport.connect();
      const calls = readFileSync(join(dir, "calls"), "utf8").split("\n");
      assert.equal(calls.filter((call) => call.includes(" -O check ")).length, 1, calls.join("\n"));
      assert.equal(
        (await executor.run(executor.resolve({ command: "echo up" }))).stdout.text,
        "up\n",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops the master connection at disposal", async () => {
    const executor = new SshBashExecutor(config());
    await executor.run(executor.resolve({ command: "true" }));
    const master = masterPid(executor);
    await executor[Symbol.asyncDispose]();
    assert.throws(() => process.kill(master, 0));
  });
});

describe("SshBashExecutor config", () => {
  it("throws BashConfigError naming the field", () => {
    const table: [Partial<SshBashExecutorConfig>, RegExp][] = [
      [{ host: "" }, /^"host" must be a host name/],
      [{ host: "-oProxyCommand=x" }, /^"host" must be a host name/],
      [{ host: "a b" }, /^"host" must not hold spaces/],
      [{ host: "h", port: 0 }, /^"port" must be a whole number >= 1/],
      [{ host: "h", port: 70000 }, /^"port" must be at most 65535/],
      [{ host: "h", user: "-x" }, /^"user" must be a user name/],
      [{ host: "h", identityFile: "key" }, /^"identityFile" must be an absolute path/],
      [{ host: "h", cwd: "srv" }, /^"cwd" must be an absolute path/],
      [{ host: "h", sshOptions: ["ProxyCommand x\ny"] }, /^"sshOptions" entries must look like/],
      [{ host: "h", maxChannels: 0 }, /^"maxChannels" must be a whole number >= 1/],
      [{ host: "h", timeoutMs: -1 }, /^"timeoutMs" must be a positive finite number/],
      [
        { host: "h", hostKeyChecking: "no" as "strict" },
        /^"hostKeyChecking" must be "strict" or "accept-new"/,
      ],
    ];
    for (const [value, message] of table) {
      assert.throws(
        () => new SshBashExecutor(value as SshBashExecutorConfig),
        (error) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(value),
      );
    }
  });

  it("always passes BatchMode=yes and strict host key checking by default", () => {
    const executor = new SshBashExecutor({ host: "h", knownHostsFile: "/k" });
    const { args } = executor.transport.command("true");
    assert.ok(args.includes("BatchMode=yes"));
    assert.ok(args.includes("StrictHostKeyChecking=yes"));
    assert.ok(args.includes("UserKnownHostsFile=/k"));
    assert.deepEqual(args.slice(args.indexOf("-F"), args.indexOf("-F") + 2), ["-F", "none"]);
    assert.ok(!args.some((arg) => /SendEnv/i.test(arg)));
    return executor[Symbol.asyncDispose]();
  });
});
