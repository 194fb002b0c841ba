import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  type Launch,
  type LaunchOutcome,
  type LaunchPlan,
  LocalBashExecutor,
  type LocalBashExecutorConfig,
  runtime,
  type SpawnRequest,
} from "../../local/mod.ts";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  BashSpawnError,
  type SandboxMode,
} from "../../seam/mod.ts";
import { findOnPath } from "../../local/_session.ts";
import { WATCHDOG_NAME } from "../../local/_watchdog.ts";
import { renderRunResult } from "../../tool/mod.ts";
import {
  abortAfterMicrotasks,
  assertNoneLeft,
  marker,
  processesWith,
  seqText,
  sha256,
  STRATEGIES,
  waitForSleep,
} from "./_helpers.ts";

/** Every process a test spawns inherits this variable (executors snapshot the env when made). */
const LEAK_MARK = "LOCAL_EXECUTOR_TEST_MARK";

/** Live pids whose environment carries `LEAK_MARK=<mark>`. */
function markedProcesses(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, "latin1").includes(`${LEAK_MARK}=${mark}\0`)) {
        continue;
      }
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && state !== "X") found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * `it`, plus the check that the test left no process behind: everything the
 * test spawned carries a mark in its environment, and nothing carrying it may
 * be alive once the test is over (no grace: runs settle only when their
 * session is empty).
 */
function it(name: string, body: () => void | Promise<void>): void {
  nodeIt(name, async () => {
    const mark = randomUUID();
    process.env[LEAK_MARK] = mark;
    try {
      await body();
    } finally {
      delete process.env[LEAK_MARK];
    }
    assert.deepEqual(markedProcesses(mark), [], "the test left processes behind");
  });
}

/** Runs `body` while recording each stdout chunk the runtime hands over. */
async function recordingStdoutChunks<T>(
  body: () => Promise<T>,
): Promise<{ result: T; chunks: number[][] }> {
  const spawn = runtime.spawn;
  const chunks: number[][] = [];
  runtime.spawn = async (request: SpawnRequest) => {
    const child = await spawn(request);
    // The executor's watchdog answers on its stdout too.
    if (request.args.includes(WATCHDOG_NAME)) return child;
    const stdout = child.stdout.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          chunks.push([...chunk]);
          controller.enqueue(chunk);
        },
      }),
    );
    return { ...child, stdout };
  };
  try {
    return { result: await body(), chunks };
  } finally {
    runtime.spawn = spawn;
  }
}

for (const sessionStrategy of STRATEGIES) {
  const make = (config: LocalBashExecutorConfig = {}): LocalBashExecutor =>
    new LocalBashExecutor({ sessionStrategy, ...config });

  describe(`LocalBashExecutor.run (${sessionStrategy})`, () => {
    it("uses the requested session strategy", async () => {
      await using executor = make();
      assert.equal(executor.config.sessionStrategy, sessionStrategy);
    });

    it("marks every process with the leak check's variable", async () => {
      const mark = process.env[LEAK_MARK];
      assert.ok(mark !== undefined);
      await using executor = make();
      const token = marker();
      const child = await executor.start(executor.resolve({ command: `sleep ${token}` }));
      await waitForSleep(token);
      assert.ok(markedProcesses(mark).length > 0);
      await child.kill();
    });

    it("runs bash in a new session and process group led by the shell", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: 'read -r _ _ _ _ pgrp sid _ < /proc/$$/stat; echo "$$ $pgrp $sid $PPID"',
      }));
      const [pid, pgrp, sid, ppid] = result.stdout.text.trim().split(" ");
      assert.equal(pgrp, pid);
      assert.equal(sid, pid);
      assert.equal(ppid, String(process.pid));
    });

    it("captures stdout, stderr and both", async () => {
      await using executor = make();
      const out = await executor.run(executor.resolve({ command: "echo out" }));
      assert.equal(out.stdout.text, "out\n");
      assert.equal(out.stderr.text, "");
      const err = await executor.run(executor.resolve({ command: "echo err >&2" }));
      assert.equal(err.stdout.text, "");
      assert.equal(err.stderr.text, "err\n");
      const both = await executor.run(executor.resolve({ command: "echo a; echo b >&2; echo c" }));
      assert.equal(both.stdout.text, "a\nc\n");
      assert.equal(both.stderr.text, "b\n");
      assert.equal(both.exitCode, 0);
      assert.equal(both.signal, null);
      assert.equal(both.stdout.truncated, false);
      assert.equal(both.stdout.totalBytes, 4);
    });

    it("measures durationMs", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({ command: "sleep 0.3" }));
      assert.ok(result.durationMs >= 250 && result.durationMs < 3000, `${result.durationMs} ms`);
    });

    it("resolves a non-zero exit", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({ command: "echo no >&2; exit 7" }));
      assert.equal(result.exitCode, 7);
      assert.equal(result.timedOut || result.idledOut || result.aborted, false);
    });

    it("runs in the executor's cwd by default and in a given workdir", async () => {
      const root = mkdtempSync(join(tmpdir(), "shellseam-cwd-"));
      try {
        await using executor = make({ cwd: root });
        const byDefault = await executor.run(executor.resolve({ command: "pwd -P" }));
        assert.equal(byDefault.stdout.text, `${root}\n`);
        const absolute = await executor.run(executor.resolve({ command: "pwd -P", workdir: "/" }));
        assert.equal(absolute.stdout.text, "/\n");
        await executor.run(executor.resolve({ command: "mkdir sub" }));
        const relative = await executor.run(
          executor.resolve({ command: "pwd -P", workdir: "sub" }),
        );
        assert.equal(relative.stdout.text, `${root}/sub\n`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    it("rejects a missing workdir with BashSpawnError naming the path", async () => {
      await using executor = make();
      const token = marker();
      await assert.rejects(
        executor.run(executor.resolve({ command: `sleep ${token}`, workdir: "/no/such/dir" })),
        (error: unknown) =>
          error instanceof BashSpawnError && error.message.includes('"/no/such/dir"'),
      );
      assert.deepEqual(processesWith(token), []);
    });

    it("sets the non-interactive env overrides over ambient values", async () => {
      const ambient = { PAGER: process.env.PAGER, TERM: process.env.TERM };
      process.env.PAGER = "less";
      process.env.TERM = "xterm-256color";
      let executor: LocalBashExecutor;
      try {
        executor = make();
      } finally {
        for (const [name, value] of Object.entries(ambient)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
      await using _ = executor;
      const result = await executor.run(executor.resolve({
        command: 'echo "$NO_COLOR $TERM $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR ' +
          "$DEBIAN_FRONTEND $GH_PROMPT_DISABLED $GCM_INTERACTIVE [$GIT_ASKPASS] [$SSH_ASKPASS] " +
          '$GIT_SSH_COMMAND $EDITOR $VISUAL"',
      }));
      assert.equal(
        result.stdout.text,
        "1 dumb cat cat 0 true noninteractive 1 never [] [] ssh -o BatchMode=yes false false\n",
      );
    });

    nodeIt("lets programs that start an editor fail at once instead of waiting", {
      skip: existsSync("/usr/bin/sensible-editor") ? false : "needs /usr/bin/sensible-editor",
    }, async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: "sensible-editor notes.txt; echo exit=$?",
        timeoutMs: 20_000,
      }));
      assert.equal(result.timedOut, false);
      assert.equal(result.stdout.text, "exit=1\n");
    });

    it("keeps ambient credentials and managed names from the child, passes explicit ones", async () => {
      process.env.MY_API_TOKEN = "ambient-secret";
      process.env.SHELLSEAM_X = "ambient-managed";
      let executor: LocalBashExecutor;
      try {
        executor = make();
      } finally {
        delete process.env.MY_API_TOKEN;
        delete process.env.SHELLSEAM_X;
      }
      await using _ = executor;
      const ambient = await executor.run(executor.resolve({
        command: 'echo "[${MY_API_TOKEN-unset}] [${SHELLSEAM_X-unset}]"',
      }));
      assert.equal(ambient.stdout.text, "[unset] [unset]\n");
      assert.ok(ambient.scrubbedEnv.includes("MY_API_TOKEN"));
      assert.ok(ambient.scrubbedEnv.includes("SHELLSEAM_X"));
      const explicit = await executor.run(executor.resolve({
        command: 'echo "$MY_API_TOKEN $SHELLSEAM_X $HOME_AWAY"',
        env: { MY_API_TOKEN: "given", HOME_AWAY: "yes" },
        managedEnv: { SHELLSEAM_X: "managed" },
      }));
      assert.equal(explicit.stdout.text, "given managed yes\n");
    });

    it("takes no shell options or functions from the agent's environment", async () => {
      const names = ["SHELLOPTS", "BASHOPTS", "BASH_FUNC_ls%%"] as const;
      const saved = names.map((name) => process.env[name]);
      process.env.SHELLOPTS = "xtrace";
      process.env.BASHOPTS = "nullglob";
      process.env["BASH_FUNC_ls%%"] = "() {  echo hijacked; }";
      let executor: LocalBashExecutor;
      try {
        executor = make();
      } finally {
        names.forEach((name, i) => {
          const value = saved[i];
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        });
      }
      await using _ = executor;
      const result = await executor.run(executor.resolve({
        command: "ls -d /; shopt -q nullglob && echo nullglob; [[ $- == *x* ]] && echo xtrace; :",
      }));
      assert.equal(result.stdout.text, "/\n");
      assert.equal(result.stderr.text, "");
      for (const name of names) assert.ok(result.scrubbedEnv.includes(name), name);
      const explicit = await executor.run(executor.resolve({
        command: "ls -d /",
        env: { "BASH_FUNC_ls%%": "() {  echo given; }" },
      }));
      assert.equal(explicit.stdout.text, "given\n", "an explicit exported function is honoured");
    });

    it("reads no rc file: ambient BASH_ENV and ENV are dropped, ~/.bashrc is not read", async () => {
      const home = mkdtempSync(join(tmpdir(), "shellseam-rc-"));
      const rc = join(home, "rc.sh");
      writeFileSync(rc, "echo sourced-rc\n");
      writeFileSync(join(home, ".bashrc"), "echo sourced-bashrc\n");
      writeFileSync(join(home, ".bash_profile"), "echo sourced-profile\n");
      const saved = {
        BASH_ENV: process.env.BASH_ENV,
        ENV: process.env.ENV,
        SHLVL: process.env.SHLVL,
      };
      process.env.BASH_ENV = rc;
      process.env.ENV = rc;
      // Without SHLVL, bash reads ~/.bashrc when stdin is a socket (as Node gives it).
      delete process.env.SHLVL;
      let executor: LocalBashExecutor;
      try {
        executor = make();
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
      try {
        await using _ = executor;
        // With limits, a limiter bash runs first: it reads no rc file either.
        for (const limits of [undefined, { cpuSeconds: 100 }]) {
          for (const keepStdinOpen of [false, true]) {
            const spec = executor.resolve({
              command: "echo body",
              env: { HOME: home },
              keepStdinOpen,
              ...(limits === undefined ? {} : { limits }),
            });
            const started = await executor.start(spec);
            if (keepStdinOpen) await started.closeStdin();
            await started.done;
            assert.equal(
              started.readOutput().stdout,
              "body\n",
              `keepStdinOpen: ${keepStdinOpen}, limits: ${JSON.stringify(limits)}`,
            );
          }
        }
        const result = await executor.run(executor.resolve({ command: "echo body" }));
        assert.equal(result.stdout.text, "body\n");
        assert.ok(result.scrubbedEnv.includes("BASH_ENV"));
        assert.ok(result.scrubbedEnv.includes("ENV"));
        const explicit = await executor.run(executor.resolve({
          command: "echo body",
          env: { BASH_ENV: rc },
        }));
        assert.equal(
          explicit.stdout.text,
          "sourced-rc\nbody\n",
          "an explicit BASH_ENV is honoured",
        );
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it("merges managedEnv last and keeps managed names out of env", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: 'echo "$PAGER $SHELLSEAM_SESSION"',
        env: { PAGER: "less" },
        managedEnv: { SHELLSEAM_SESSION: "s-1" },
      }));
      assert.equal(result.stdout.text, "less s-1\n");
      const spec = executor.resolve({ command: "true" });
      const smuggled = { ...spec, env: { SHELLSEAM_SESSION: "forged" } };
      await assert.rejects(executor.run(smuggled), BashConfigError);
    });

    it("writes stdin and then closes it", async () => {
      await using executor = make();
      const text = await executor.run(
        executor.resolve({ command: "cat; echo end", stdin: "abc\n" }),
      );
      assert.equal(text.stdout.text, "abc\nend\n");
      const bytes = new Uint8Array([0xce, 0xbb, 0x0a]);
      const binary = await executor.run(executor.resolve({ command: "od -An -tx1", stdin: bytes }));
      assert.equal(binary.stdout.text.trim(), "ce bb 0a");
      const closed = await executor.run(executor.resolve({ command: "cat" }));
      assert.equal(closed.stdout.text, "");
      assert.equal(closed.exitCode, 0);
    });

    it("ignores a broken stdin pipe", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: "exec 0<&-; echo closed",
        stdin: "x".repeat(1 << 20),
      }));
      assert.equal(result.stdout.text, "closed\n");
      assert.equal(result.exitCode, 0);
    });

    it("gives no controlling terminal", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: "if exec 3</dev/tty; then echo opened; else echo refused; fi",
      }));
      assert.equal(result.stdout.text, "refused\n");
    });

    nodeIt("gives no controlling terminal even when the agent has one", {
      skip: findOnPath("script") === null ? "util-linux script is not installed" : false,
    }, async () => {
      // The agent runs under `script`, so it has a terminal its commands could inherit.
      const dir = mkdtempSync(join(tmpdir(), "shellseam-tty-"));
      try {
        const module = new URL(
          `../../local/mod.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`,
          import.meta.url,
        );
        const agent = join(dir, "agent.mjs");
        writeFileSync(
          agent,
          `import { openSync } from "node:fs";
          import { LocalBashExecutor } from ${JSON.stringify(module.href)};
          try { openSync("/dev/tty", "r"); console.log("agent: tty"); }
          catch { console.log("agent: none"); }
          const executor = new LocalBashExecutor({ sessionStrategy: "${sessionStrategy}" });
          const result = await executor.run(executor.resolve({
            command: "if exec 3</dev/tty; then echo command: tty; else echo command: none; fi",
          }));
          await executor[Symbol.asyncDispose]();
          console.log(result.stdout.text.trim());`,
        );
        const run = globalThis.Deno ? `run --allow-all '${agent}'` : `'${agent}'`;
        await using executor = make();
        const result = await executor.run(executor.resolve({
          command: `script -qec "'${process.execPath}' ${run}" /dev/null`,
          workdir: fileURLToPath(new URL("../..", import.meta.url)),
          timeoutMs: 30_000,
        }));
        assert.deepEqual(
          result.stdout.text.split(/\r?\n/).filter((line) => line.includes(": ")),
          ["agent: tty", "command: none"],
          result.stdout.text + result.stderr.text,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("kills on timeout and says so", async () => {
      await using executor = make();
      const token = marker();
      const result = await executor.run(
        executor.resolve({ command: `sleep ${token}; echo late`, timeoutMs: 200 }),
      );
      assert.equal(result.timedOut, true);
      assert.equal(result.idledOut, false);
      assert.equal(result.aborted, false);
      assert.equal(result.timeoutMs, 200);
      assert.equal(result.signal, "SIGTERM");
      assert.equal(result.stdout.text, "");
      assert.ok(result.durationMs < 3000, `took ${result.durationMs} ms`);
      await assertNoneLeft(token);
    });

    it("kills after the idle time and keeps a chatty command alive", async () => {
      await using executor = make();
      const token = marker();
      const idle = await executor.run(
        executor.resolve({ command: `echo start; sleep ${token}`, idleTimeoutMs: 300 }),
      );
      assert.equal(idle.idledOut, true);
      assert.equal(idle.timedOut, false);
      assert.equal(idle.stdout.text, "start\n");
      await assertNoneLeft(token);
      const chatty = await executor.run(executor.resolve({
        command: "for i in $(seq 1 12); do echo $i; sleep 0.1; done",
        idleTimeoutMs: 600,
      }));
      // It ran for longer than the idle time, but never went quiet for that long.
      assert.ok(chatty.durationMs > 600, `${chatty.durationMs} ms`);
      assert.equal(chatty.idledOut, false);
      assert.equal(chatty.exitCode, 0);
    });

    it("ends a TERM-trapping command by SIGKILL after the grace period", async () => {
      await using executor = make({ killGraceMs: 500 });
      const token = marker();
      const result = await executor.run(executor.resolve({
        command: `trap '' TERM; sleep ${token}; echo survived`,
        timeoutMs: 200,
      }));
      assert.equal(result.signal, "SIGKILL");
      assert.equal(result.timedOut, true);
      // Dead at the SIGKILL step: not before the grace ran out, and within the grace + 1 s.
      assert.ok(result.durationMs >= 200 + 500 - 20, `took only ${result.durationMs} ms`);
      assert.ok(result.durationMs < 200 + 500 + 1000, `took ${result.durationMs} ms`);
      assert.equal(result.stdout.text, "");
      await assertNoneLeft(token);
    });

    it("aborts mid-run", async () => {
      await using executor = make();
      const token = marker();
      const controller = new AbortController();
      const running = executor.run(executor.resolve({
        command: `echo begun; sleep ${token}`,
        signal: controller.signal,
      }));
      await waitForSleep(token);
      controller.abort();
      const result = await running;
      assert.equal(result.aborted, true);
      assert.equal(result.timedOut, false);
      assert.equal(result.stdout.text, "begun\n");
      await assertNoneLeft(token);
    });

    it("kills a command whose signal aborts while it is being spawned", async () => {
      let onPlanned = (): void => {};
      class Hooked extends LocalBashExecutor {
        protected override planLaunch(_spec: BashExecSpec, launch: Launch): Promise<LaunchPlan> {
          onPlanned();
          return Promise.resolve({ launch });
        }
      }
      await using executor = new Hooked({ sessionStrategy });
      // Each depth lands the abort at another step between planning and the abort listener.
      for (let depth = 0; depth < 8; depth++) {
        const controller = new AbortController();
        onPlanned = () => abortAfterMicrotasks(controller, depth);
        const token = marker();
        // A lost abort would show as a timeout.
        const spec = executor.resolve({
          command: `sleep ${token}`,
          signal: controller.signal,
          timeoutMs: 3000,
        });
        const result = await executor.run(spec).catch((error: unknown) => {
          assert.ok(error instanceof BashSpawnError, `depth ${depth}: ${error}`);
          return null;
        });
        if (result !== null) assert.equal(result.aborted, true, `depth ${depth}`);
        await assertNoneLeft(token);
      }
    });

    it("rejects a pre-aborted signal and spawns nothing", async () => {
      await using executor = make();
      const token = marker();
      await assert.rejects(
        executor.run(executor.resolve({
          command: `sleep ${token}`,
          signal: AbortSignal.abort(),
          timeoutMs: 2000,
        })),
        BashSpawnError,
      );
      assert.deepEqual(processesWith(token), []);
    });

    it("keeps the first cause and does not restart the grace on a second kill", async () => {
      await using executor = make({ killGraceMs: 1500 });
      const token = marker();
      const controller = new AbortController();
      const late = setTimeout(() => controller.abort(), 800);
      const result = await executor.run(executor.resolve({
        command: `trap '' TERM; sleep ${token}`,
        timeoutMs: 200,
        signal: controller.signal,
      }));
      clearTimeout(late);
      assert.equal(result.timedOut, true);
      assert.equal(result.aborted, false);
      assert.equal(result.signal, "SIGKILL");
      await assertNoneLeft(token);
    });

    it("reports a command that kills itself as neither timed out nor aborted", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({ command: "kill -TERM $$" }));
      assert.equal(result.signal, "SIGTERM");
      assert.equal(result.exitCode, null);
      assert.equal(result.timedOut || result.idledOut || result.aborted, false);
    });

    it("kills grandchildren with the group", async () => {
      await using executor = make();
      const token = marker();
      const result = await executor.run(executor.resolve({
        command: `bash -c 'bash -c "sleep ${token}"; true'; true`,
        timeoutMs: 300,
      }));
      assert.equal(result.timedOut, true);
      await assertNoneLeft(token);
    });

    it("waits drainGraceMs for children that still hold the pipes", async () => {
      await using executor = make({ drainGraceMs: 3000 });
      const result = await executor.run(executor.resolve({
        command: "(sleep 0.3; echo late) & echo early",
      }));
      assert.equal(result.stdout.text, "early\nlate\n");
      assert.deepEqual(result.strays, { killed: 0, survivors: [] });
    });

    it("returns soon when a background child holds the pipes, and kills it", async () => {
      await using executor = make();
      const token = marker();
      const result = await executor.run(
        executor.resolve({ command: `sleep ${token} & echo done` }),
      );
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.text, "done\n");
      assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`);
      assert.ok(result.strays.killed >= 1);
      assert.deepEqual(result.strays.survivors, []);
      await assertNoneLeft(token);
    });

    it("finds a child that left the group but kept the session", async () => {
      await using executor = make();
      const token = marker();
      const result = await executor.run(
        executor.resolve({ command: `set -m; sleep ${token} & echo x` }),
      );
      assert.equal(result.stdout.text, "x\n");
      assert.ok(result.strays.killed >= 1);
      await assertNoneLeft(token);
    });

    const pipeClosers = [
      ["a double-forked child", (token: string) => `(sleep ${token} >/dev/null 2>&1 &); echo x`],
      [
        "a group-leaving child",
        (token: string) => `set -m; sleep ${token} >/dev/null 2>&1 & echo x`,
      ],
    ] as const;
    for (const [child, command] of pipeClosers) {
      it(`kills ${child} that closed its pipes after a command that ended on its own`, async () => {
        await using executor = make();
        const token = marker();
        const result = await executor.run(executor.resolve({ command: command(token) }));
        assert.equal(result.exitCode, 0);
        assert.equal(result.stdout.text, "x\n");
        assert.equal(result.strays.killed, 1);
        assert.deepEqual(result.strays.survivors, []);
        await assertNoneLeft(token);
      });
    }

    it("finds a group-leaving child that closed its pipes once a kill happens", async () => {
      await using executor = make();
      const token = marker();
      const result = await executor.run(executor.resolve({
        command: `set -m; sleep ${token} >/dev/null 2>&1 & sleep ${token}`,
        timeoutMs: 300,
      }));
      assert.equal(result.timedOut, true);
      await assertNoneLeft(token);
    });

    it("keeps head and tail and spills the whole stream", async () => {
      await using executor = make();
      const expected = seqText(400_000);
      const result = await executor.run(executor.resolve({ command: "seq 1 400000" }));
      const out = result.stdout;
      assert.equal(out.truncated, true);
      assert.equal(out.totalBytes, Buffer.byteLength(expected));
      assert.ok(out.spillPath !== undefined);
      assert.equal(out.spillComplete, true);
      assert.equal(statSync(out.spillPath).mode & 0o777, 0o600);
      assert.equal(statSync(join(out.spillPath, "..")).mode & 0o777, 0o700);
      assert.equal(sha256(readFileSync(out.spillPath)), sha256(expected));
      const head = expected.slice(0, 8_000);
      const tail = expected.slice(-56_000);
      assert.equal(out.omittedBytes, out.totalBytes - 64_000);
      const gap = head.endsWith("\n") ? "" : "\n";
      assert.equal(out.text, `${head}${gap}[... ${out.omittedBytes} bytes omitted ...]\n${tail}`);
    });

    it("does not truncate output exactly at the cap", async () => {
      await using executor = make({ maxOutputBytes: 5000, headBytes: 1000 });
      const result = await executor.run(executor.resolve({
        command: "head -c 5000 /dev/zero | tr '\\0' x",
      }));
      assert.equal(result.stdout.truncated, false);
      assert.equal(result.stdout.text, "x".repeat(5000));
      assert.equal(result.stdout.spillPath, undefined);
      assert.equal(result.stdout.spillComplete, false);
      const over = await executor.run(executor.resolve({
        command: "head -c 5001 /dev/zero | tr '\\0' x",
      }));
      assert.equal(over.stdout.truncated, true);
      assert.equal(over.stdout.omittedBytes, 1);
    });

    it("honours stdoutMaxBytes", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: "seq 1 100000",
        stdoutMaxBytes: 200_000,
      }));
      assert.equal(result.stdout.truncated, true);
      assert.equal(result.stdout.omittedBytes, result.stdout.totalBytes - 200_000);
      const lowered = await executor.run(executor.resolve({
        command: "seq 1 1000; seq 1 1000 >&2",
        stdoutMaxBytes: 100,
      }));
      assert.equal(lowered.stdout.omittedBytes, lowered.stdout.totalBytes - 100);
      assert.equal(lowered.stderr.truncated, false);
    });

    it("stops the spill file at maxSpillBytes", async () => {
      await using executor = make({ maxSpillBytes: 100_000 });
      const expected = seqText(200_000);
      const result = await executor.run(executor.resolve({ command: "seq 1 200000" }));
      const { spillPath, spillComplete } = result.stdout;
      assert.ok(spillPath !== undefined);
      assert.equal(spillComplete, false);
      const spilled = readFileSync(spillPath, "latin1");
      assert.equal(spilled, expected.slice(0, 100_000));
    });

    it("keeps a 4-byte character split across chunks intact", async () => {
      await using executor = make();
      const chunks = await recordingStdoutChunks(() =>
        executor.run(executor.resolve({
          command: "printf 'a\\xf0\\x9f'; sleep 0.3; printf '\\x98\\x80b'",
        }))
      );
      // The character really arrived in two reads.
      assert.deepEqual(chunks.chunks, [[0x61, 0xf0, 0x9f], [0x98, 0x80, 0x62]]);
      assert.equal(chunks.result.stdout.text, "a\u{1F600}b");
      assert.equal(chunks.result.stdout.invalidUtf8Bytes, 0);
    });

    it("counts invalid UTF-8 bytes and keeps raw bytes in the spill", async () => {
      await using executor = make({ maxOutputBytes: 100, headBytes: 10 });
      const small = await executor.run(executor.resolve({ command: "printf 'a\\xffb\\xc3'" }));
      assert.equal(small.stdout.text, "a\uFFFDb\uFFFD");
      assert.equal(small.stdout.invalidUtf8Bytes, 2);
      const big = await executor.run(executor.resolve({
        command: "printf '\\xfe%.0s' $(seq 1 300)",
      }));
      assert.ok(big.stdout.spillPath !== undefined);
      assert.deepEqual(readFileSync(big.stdout.spillPath), Buffer.alloc(300, 0xfe));
      assert.equal(big.stdout.invalidUtf8Bytes, 100);
    });

    it("stays within its memory bound under `yes`", async () => {
      await using executor = make({ maxSpillBytes: 1 << 20 });
      await executor.run(executor.resolve({ command: "true" }));
      const before = process.memoryUsage();
      const result = await executor.run(executor.resolve({ command: "yes", timeoutMs: 1000 }));
      const after = process.memoryUsage();
      const grown = after.heapUsed + after.external - before.heapUsed - before.external;
      // `yes` writes about 1 GB a second here; uncollected garbage chunks stay well below this.
      assert.ok(
        grown < 256 * 1024 * 1024,
        `memory grew by ${grown} bytes for ${result.stdout.totalBytes} bytes of output`,
      );
      assert.equal(result.timedOut, true);
      assert.ok(result.stdout.totalBytes > 1 << 20, `only ${result.stdout.totalBytes} bytes`);
      assert.ok(result.stdout.text.length <= 64_000 + 100, `${result.stdout.text.length} chars`);
      assert.equal(result.stdout.spillComplete, false);
      assert.ok(result.stdout.spillPath !== undefined);
      assert.equal(statSync(result.stdout.spillPath).size, 1 << 20);
    });
  });
}

describe("LocalBashExecutor without bash", () => {
  it("rejects run and start with BashSpawnError when bash is not on PATH", async () => {
    const path = process.env.PATH;
    const empty = mkdtempSync(join(tmpdir(), "shellseam-nopath-"));
    process.env.PATH = empty;
    let executor: LocalBashExecutor;
    try {
      executor = new LocalBashExecutor({ sessionStrategy: "detached" });
    } finally {
      process.env.PATH = path;
      rmSync(empty, { recursive: true });
    }
    await using _ = executor;
    const spec = executor.resolve({ command: "true" });
    await assert.rejects(
      executor.run(spec),
      (error: unknown) => error instanceof BashSpawnError && /"bash"/.test(error.message),
    );
    await assert.rejects(executor.start(spec), BashSpawnError);
  });
});

describe("LocalBashExecutor.resolve", () => {
  it("fills defaults, caps the timeout and resolves the workdir", async () => {
    await using executor = new LocalBashExecutor({
      cwd: "/srv",
      timeoutMs: 1000,
      maxTimeoutMs: 5000,
    });
    const spec = executor.resolve({ command: "ls" });
    assert.deepEqual(spec, {
      command: "ls",
      workdir: "/srv",
      timeoutMs: 1000,
      stdoutMaxBytes: 64_000,
      sandboxPolicy: null,
    });
    assert.equal(executor.resolve({ command: "ls", timeoutMs: 9000 }).timeoutMs, 5000);
    assert.equal(executor.resolve({ command: "ls", workdir: "../x" }).workdir, "/x");
  });

  for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`rejects timeoutMs ${timeoutMs}`, async () => {
      await using executor = new LocalBashExecutor();
      assert.throws(
        () => executor.resolve({ command: "true", timeoutMs }),
        (error: unknown) =>
          error instanceof BashConfigError && error.message.includes('"timeoutMs"'),
      );
      assert.throws(
        () => executor.resolve({ command: "true", idleTimeoutMs: timeoutMs }),
        (error: unknown) =>
          error instanceof BashConfigError && error.message.includes('"idleTimeoutMs"'),
      );
    });
  }

  it("rejects env keys in the wrong namespace and bad values, naming them", async () => {
    await using executor = new LocalBashExecutor();
    const naming = (text: string) => (error: unknown) =>
      error instanceof BashConfigError && error.message.includes(text);
    assert.throws(
      () => executor.resolve({ command: "true", env: { SHELLSEAM_X: "1" } }),
      naming('"SHELLSEAM_X"'),
    );
    assert.throws(
      () =>
        executor.resolve({
          command: "true",
          managedEnv: { ["PLAIN" as `SHELLSEAM_${string}`]: "1" },
        }),
      naming('"PLAIN"'),
    );
    for (const stdoutMaxBytes of [0, 1.5, Number.NaN]) {
      assert.throws(
        () => executor.resolve({ command: "true", stdoutMaxBytes }),
        naming('"stdoutMaxBytes"'),
      );
    }
    assert.throws(
      () => executor.resolve({ command: "true", stdin: 5 as unknown as string }),
      naming('"stdin" must be a string or a Uint8Array; got number; encode it first'),
    );
    assert.throws(
      () => executor.resolve({ command: 1 as unknown as string }),
      naming('"command" must be a string; got number; pass the bash source as a string'),
    );
  });
});

describe("LocalBashExecutor request checks", () => {
  it("rejects an unknown request key and a keepStdinOpen that is not a boolean", async () => {
    await using executor = new LocalBashExecutor();
    const request = { command: "true", timeout: 5 } as BashExecRequest;
    assert.throws(
      () => executor.resolve(request),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message.startsWith('The request has no key "timeout"; did you mean "timeoutMs"?'),
    );
    const spec = { ...executor.resolve({ command: "true" }), timeout: 5 } as BashExecSpec;
    await assert.rejects(executor.run(spec), /The request has no key "timeout"/);
    assert.throws(
      () => executor.resolve({ command: "cat", keepStdinOpen: "yes" as unknown as boolean }),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message === '"keepStdinOpen" must be true or false; got string; pass a boolean',
    );
  });

  it("refuses a confined sandboxPolicy, which it cannot enforce, and runs none or full access", async () => {
    await using executor = new LocalBashExecutor();
    const policy = (mode: SandboxMode) => ({
      mode,
      workspaceRoot: "/tmp",
      network: "deny" as const,
    });
    for (const mode of ["read-only", "workspace-write"] as const) {
      assert.throws(
        () => executor.resolve({ command: "touch /tmp/x", sandboxPolicy: policy(mode) }),
        (error: unknown) =>
          error instanceof BashConfigError &&
          error.message.startsWith(
            `This executor does not sandbox, so a "sandboxPolicy" with mode "${mode}" would run unconfined`,
          ),
      );
      const spec = { ...executor.resolve({ command: "true" }), sandboxPolicy: policy(mode) };
      await assert.rejects(executor.run(spec), BashConfigError);
      await assert.rejects(executor.start(spec), BashConfigError);
    }
    const full = executor.resolve({
      command: "echo ok",
      sandboxPolicy: policy("danger-full-access"),
    });
    assert.equal((await executor.run(full)).stdout.text, "ok\n");
    assert.equal((await executor.run(executor.resolve({ command: "echo ok" }))).exitCode, 0);
  });
});

describe("LocalBashExecutor timers", () => {
  it("accepts the longest timer and caps a longer per-call timeout to it without firing early", async () => {
    await using executor = new LocalBashExecutor({ maxTimeoutMs: 2 ** 31 - 1 });
    const spec = executor.resolve({ command: "sleep 0.3; echo done", timeoutMs: 3e9 });
    assert.equal(spec.timeoutMs, 2 ** 31 - 1);
    const result = await executor.run(spec);
    assert.equal(result.timedOut, false);
    assert.equal(result.stdout.text, "done\n");
  });

  it("rejects an idle time, or a spec's timeout, that no timer can wait", async () => {
    await using executor = new LocalBashExecutor();
    const tooLong = (field: string) => (error: unknown) =>
      error instanceof BashConfigError &&
      error.message ===
        `"${field}" must be at most 2147483647 milliseconds (about 24 days), the longest a timer waits; got 3000000000`;
    assert.throws(
      () => executor.resolve({ command: "true", idleTimeoutMs: 3e9 }),
      tooLong("idleTimeoutMs"),
    );
    const token = marker();
    const spec = executor.resolve({ command: `sleep ${token}` });
    await assert.rejects(executor.run({ ...spec, timeoutMs: 3e9 }), tooLong("timeoutMs"));
    await assert.rejects(executor.run({ ...spec, idleTimeoutMs: 3e9 }), tooLong("idleTimeoutMs"));
    assert.deepEqual(processesWith(token), []);
  });
});

describe("LocalBashExecutor with values an environment, an argument or a path cannot carry", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "a signal that is not an AbortSignal",
      { signal: {} },
      '"signal" must be an AbortSignal; got object; pass an AbortController\'s signal',
    ],
    [
      "an env value that is not a string",
      { env: { A: 1 } },
      '"env" value of "A" must be a string; got number; convert it with String()',
    ],
    [
      "a managedEnv value that is not a string",
      { managedEnv: { SHELLSEAM_A: null } },
      '"managedEnv" value of "SHELLSEAM_A" must be a string; got null; convert it with String()',
    ],
    [
      "an env that is a string",
      { env: "A=1" },
      '"env" must be an object of names to strings; got string',
    ],
    [
      "an env key with =",
      { env: { "A=B": "1" } },
      '"env" key "A=B" cannot name an environment variable (it is empty or holds "=" or a NUL byte); rename it',
    ],
    [
      "an empty env key",
      { env: { "": "1" } },
      '"env" key "" cannot name an environment variable (it is empty or holds "=" or a NUL byte); rename it',
    ],
    [
      "a NUL byte in an env value",
      { env: { A: "x\0y" } },
      '"env" value of "A" holds a NUL byte, which an environment variable cannot carry; remove it',
    ],
    [
      "a NUL byte in the command",
      { command: "echo a\0b" },
      '"command" holds a NUL byte, which no program can receive; remove it',
    ],
    [
      "a NUL byte in the workdir",
      { workdir: "/tmp\0x" },
      '"workdir" holds a NUL byte, which no program can receive; remove it',
    ],
    [
      "a workdir that is not a string",
      { workdir: 5 },
      '"workdir" must be a string; got number; pass a directory path',
    ],
  ];
  for (const [name, values, message] of cases) {
    it(`rejects ${name} with BashConfigError, in resolve() and in run() and start(), spawning nothing`, async () => {
      await using executor = new LocalBashExecutor();
      const token = marker();
      const request = { command: `sleep ${token}`, ...values } as unknown as BashExecRequest;
      const saying = (error: unknown) =>
        error instanceof BashConfigError && error.message === message;
      assert.throws(() => executor.resolve(request), saying);
      if (!("workdir" in values)) {
        const spec = { ...executor.resolve({ command: `sleep ${token}` }), ...values };
        await assert.rejects(executor.run(spec as BashExecSpec), saying);
        await assert.rejects(executor.start(spec as BashExecSpec), saying);
      }
      assert.deepEqual(processesWith(token), []);
    });
  }
});

describe("LocalBashExecutor.run and start with a spec that did not come from resolve()", () => {
  it("reject a plain request, a relative workdir and bad numbers with BashConfigError", async () => {
    await using executor = new LocalBashExecutor();
    const token = marker();
    const spec = executor.resolve({ command: `sleep ${token}` });
    const request = { command: `sleep ${token}` } as unknown as BashExecSpec;
    const naming = (text: string) => (error: unknown) =>
      error instanceof BashConfigError && error.message.includes(text);
    const resolveHint = "pass executor.resolve(request) instead of the request";
    await assert.rejects(executor.run(request), naming(`got workdir undefined; ${resolveHint}`));
    await assert.rejects(executor.start(request), naming(resolveHint));
    await assert.rejects(
      executor.run({ ...spec, workdir: "src" }),
      naming(`got workdir "src"; ${resolveHint}`),
    );
    const unstamped = { ...spec } as Partial<BashExecSpec>;
    delete unstamped.sandboxPolicy;
    await assert.rejects(executor.run(unstamped as BashExecSpec), naming('"sandboxPolicy"'));
    await assert.rejects(executor.run({ ...spec, timeoutMs: -5 }), naming('"timeoutMs"'));
    await assert.rejects(
      executor.start({ ...spec, stdoutMaxBytes: 0 }),
      naming('"stdoutMaxBytes"'),
    );
    await assertNoneLeft(token);
    const result = await executor.run(executor.resolve({ command: "echo still fine" }));
    assert.equal(result.stdout.text, "still fine\n");
  });
});

describe("LocalBashExecutor config", () => {
  const bad: [keyof LocalBashExecutorConfig, unknown][] = [
    ["timeoutMs", 0],
    ["timeoutMs", "5000"],
    ["timeoutMs", 700_000],
    ["maxTimeoutMs", Number.NaN],
    ["maxTimeoutMs", 0],
    ["maxOutputBytes", 0],
    ["maxOutputBytes", 1.5],
    ["headBytes", -1],
    ["headBytes", 0.5],
    ["headBytes", 70_000],
    ["maxSpillBytes", -1],
    ["maxSpillBytes", 1.5],
    ["maxTimeoutMs", 2 ** 31],
    ["killGraceMs", 2 ** 31],
    ["drainGraceMs", 2 ** 31],
    ["killGraceMs", Number.POSITIVE_INFINITY],
    ["killGraceMs", -1],
    ["drainGraceMs", -5],
    ["drainGraceMs", Number.NaN],
    ["keepSpillFiles", "yes"],
    ["sessionStrategy", "fork"],
    ["cwd", ""],
    ["cwd", 42],
    ["cwd", "/nonexistent-shellseam-dir"],
    ["cwd", "/etc/hostname"],
    ["cwd", "/tmp\0evil"],
    ["maxOutputBytes", 2 ** 40],
    ["maxOutputBytes", 256 * 1024 * 1024 + 1],
  ];
  for (const [field, value] of bad) {
    it(`rejects ${field} = ${String(value)} naming the field`, () => {
      assert.throws(
        () => new LocalBashExecutor({ [field]: value } as LocalBashExecutorConfig),
        (error: unknown) =>
          error instanceof BashConfigError && error.message.includes(`"${field}"`),
      );
    });
  }

  it("shows the bad value as written", () => {
    assert.throws(
      () => new LocalBashExecutor({ killGraceMs: Number.NaN }),
      /"killGraceMs" must be a finite number >= 0 of milliseconds; got NaN$/,
    );
    assert.throws(
      () => new LocalBashExecutor({ sessionStrategy: "fork" as "auto" }),
      /got "fork"$/,
    );
  });

  it("rejects an unknown key, naming the key it most likely meant", () => {
    assert.throws(
      () => new LocalBashExecutor({ timeout: 5000 } as LocalBashExecutorConfig),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message.startsWith(
          'The executor config has no key "timeout"; did you mean "timeoutMs"?',
        ),
    );
    assert.throws(
      () => new LocalBashExecutor({ colour: true } as LocalBashExecutorConfig),
      /has no key "colour"; the known keys are "cwd", /,
    );
  });

  it("derives headBytes from a small maxOutputBytes, and accepts the largest budget", async () => {
    await using small = new LocalBashExecutor({ maxOutputBytes: 4000 });
    assert.equal(small.config.headBytes, 500);
    const result = await small.run(small.resolve({ command: "seq 1 3000" }));
    assert.equal(result.stdout.truncated, true);
    assert.ok(result.stdout.text.startsWith("1\n2\n"));
    assert.ok(result.stdout.text.endsWith("2999\n3000\n"));
    await using largest = new LocalBashExecutor({ maxOutputBytes: 256 * 1024 * 1024 });
    assert.equal(largest.config.headBytes, 8000);
  });

  it("rejects a stdoutMaxBytes over the bound, in resolve() and in a spec", async () => {
    await using executor = new LocalBashExecutor();
    assert.throws(
      () => executor.resolve({ command: "true", stdoutMaxBytes: 2 ** 40 }),
      /^BashConfigError: "stdoutMaxBytes" must be at most 268435456 bytes \(256 MiB\)/,
    );
    const spec = { ...executor.resolve({ command: "true" }), stdoutMaxBytes: 2 ** 40 };
    await assert.rejects(executor.run(spec), /"stdoutMaxBytes" must be at most 268435456 bytes/);
  });

  it("rejects a config that is not an object", () => {
    assert.throws(
      () => new LocalBashExecutor(null as unknown as LocalBashExecutorConfig),
      BashConfigError,
    );
  });

  const readme = new URL("../../README.md", import.meta.url);
  nodeIt("matches the README's Defaults table", {
    skip: existsSync(readme) ? false : "README.md is not beside these tests (a compiled copy)",
  }, async () => {
    const text = readFileSync(readme, "utf8");
    const table = text.slice(
      text.indexOf("## Defaults"),
      text.indexOf("\n## ", text.indexOf("## Defaults") + 1),
    );
    const documented = new Map<string, string>();
    for (const match of table.matchAll(/^\| `(\w+)` +\| ([^|]+?) +\|/gm)) {
      documented.set(match[1]!, match[2]!);
    }
    await using executor = new LocalBashExecutor();
    const { config } = executor;
    const expected: Record<string, string> = {
      timeoutMs: String(config.timeoutMs),
      maxTimeoutMs: String(config.maxTimeoutMs),
      maxOutputBytes: String(config.maxOutputBytes),
      headBytes: String(config.headBytes),
      maxSpillBytes: `${config.maxSpillBytes / 1024 / 1024} MiB`,
      killGraceMs: String(config.killGraceMs),
      drainGraceMs: String(config.drainGraceMs),
      keepSpillFiles: String(config.keepSpillFiles),
      sessionStrategy: "`auto`",
      idleTimeoutMs: "none",
    };
    for (const [name, value] of Object.entries(expected)) {
      assert.equal(documented.get(name), value, `README default of "${name}"`);
    }
  });

  it("fills the documented defaults", async () => {
    await using executor = new LocalBashExecutor();
    const { config } = executor;
    assert.equal(config.cwd, process.cwd());
    assert.equal(config.timeoutMs, 120_000);
    assert.equal(config.maxTimeoutMs, 600_000);
    assert.equal(config.maxOutputBytes, 64_000);
    assert.equal(config.headBytes, 8_000);
    assert.equal(config.maxSpillBytes, 64 * 1024 * 1024);
    assert.equal(config.killGraceMs, 3_000);
    assert.equal(config.drainGraceMs, 500);
    assert.equal(config.keepSpillFiles, false);
    // Node forks for every spawn, so the setsid binary would only add an exec there.
    assert.equal(
      config.sessionStrategy,
      runtime.name === "deno" && existsSync("/usr/bin/setsid") ? "setsid-binary" : "detached",
    );
    assert.equal(config.setsidPath === null, config.sessionStrategy === "detached");
  });
});

describe("LocalBashExecutor disposal", () => {
  it("kills running foreground commands, awaits them, and then rejects", async () => {
    const executor = new LocalBashExecutor({ killGraceMs: 300 });
    const token = marker();
    const plain = executor.run(executor.resolve({ command: `sleep ${token}` }));
    const stubborn = executor.run(executor.resolve({ command: `trap '' TERM; sleep ${token}` }));
    await waitForSleep(token, 2);
    const started = performance.now();
    await executor[Symbol.asyncDispose]();
    assert.ok(
      performance.now() - started >= 300 - 20,
      "disposal did not wait for the SIGKILL step",
    );
    assert.deepEqual(processesWith(token), []);
    assert.equal((await plain).signal, "SIGTERM");
    assert.equal((await stubborn).signal, "SIGKILL");
    await assert.rejects(executor.run(executor.resolve({ command: "true" })), BashSpawnError);
  });

  it("says disposed on a run and a background process that disposal killed, and only then", async () => {
    const executor = new LocalBashExecutor();
    const token = marker();
    const finished = await executor.run(executor.resolve({ command: "true" }));
    assert.equal(finished.disposed, undefined);
    const timedOut = await executor.run(executor.resolve({ command: "sleep 5", timeoutMs: 50 }));
    assert.equal(timedOut.disposed, undefined);
    const running = executor.run(executor.resolve({ command: `sleep ${token}` }));
    const background = await executor.start(executor.resolve({ command: `sleep ${token}` }));
    await waitForSleep(token, 2);
    assert.equal(background.disposed, false);
    await executor[Symbol.asyncDispose]();
    const result = await running;
    assert.equal(result.disposed, true);
    assert.equal(result.timedOut || result.aborted || result.idledOut, false);
    assert.equal(background.disposed, true);
    assert.equal(background.status, "killed");
    assert.match(
      renderRunResult(result).text,
      /\[stopped: the executor was shut down \(disposed\) before the command finished\]/,
    );
  });

  it("spawns nothing for a run that was still being planned when disposal began", async () => {
    const executor = new LocalBashExecutor();
    const token = marker();
    const late = executor.run(executor.resolve({ command: `sleep ${token}` }));
    await executor[Symbol.asyncDispose]();
    await assert.rejects(late, BashSpawnError);
    assert.deepEqual(processesWith(token), []);
  });

  it("removes spill files unless keepSpillFiles", async () => {
    let spill: string | undefined;
    {
      await using executor = new LocalBashExecutor({ maxOutputBytes: 10, headBytes: 5 });
      spill = (await executor.run(executor.resolve({ command: "seq 1 100" }))).stdout.spillPath;
      assert.ok(spill !== undefined && existsSync(spill));
    }
    assert.equal(existsSync(spill), false);
    const kept = new LocalBashExecutor({ maxOutputBytes: 10, headBytes: 5, keepSpillFiles: true });
    spill = (await kept.run(kept.resolve({ command: "seq 1 100" }))).stdout.spillPath;
    await kept[Symbol.asyncDispose]();
    assert.ok(spill !== undefined && existsSync(spill));
    rmSync(join(spill, ".."), { recursive: true });
  });
});

describe("LocalBashExecutor.planLaunch", () => {
  class Planned extends LocalBashExecutor {
    launches: Launch[] = [];
    outcomes: LaunchOutcome[] = [];
    fail: Error | null = null;
    protected override planLaunch(spec: BashExecSpec, launch: Launch): Promise<LaunchPlan> {
      this.launches.push(launch);
      if (this.fail) return Promise.reject(this.fail);
      return Promise.resolve({
        launch: { ...launch, args: ["-c", `echo planned; ${spec.command}`] },
        describe: (outcome) => {
          this.outcomes.push(outcome);
          return { mode: "read-only", backend: "none", denied: outcome.exitCode === 3 };
        },
      });
    }
    dir(): Promise<string> {
      return this.privateDir();
    }
  }

  it("gets the default bash launch and its plan is spawned and described", async () => {
    await using executor = new Planned({ cwd: "/tmp" });
    const result = await executor.run(
      executor.resolve({ command: "echo hi >&2; exit 3", env: { A: "1" } }),
    );
    const [launch] = executor.launches;
    assert.ok(launch !== undefined);
    assert.match(launch.program, /^\/.*\/bash$/);
    assert.deepEqual(launch.args, ["--norc", "--noprofile", "-c", "echo hi >&2; exit 3"]);
    assert.equal(launch.cwd, "/tmp");
    assert.equal(launch.env.A, "1");
    assert.equal(launch.env.PAGER, "cat");
    assert.equal(result.stdout.text, "planned\n");
    assert.deepEqual(result.sandbox, { mode: "read-only", backend: "none", denied: true });
    assert.deepEqual(executor.outcomes, [
      { exitCode: 3, signal: null, stderrText: "hi\n", killedByExecutor: false },
    ]);
  });

  it("gives each launch its own env object", async () => {
    class Mutating extends LocalBashExecutor {
      protected override planLaunch(spec: BashExecSpec, launch: Launch): Promise<LaunchPlan> {
        if (spec.command === "true") launch.env.LEAKED = "yes";
        return Promise.resolve({ launch });
      }
    }
    await using executor = new Mutating();
    await executor.run(executor.resolve({ command: "true" }));
    const result = await executor.run(executor.resolve({ command: 'echo "${LEAKED-unset}"' }));
    assert.equal(result.stdout.text, "unset\n");
  });

  it("stamps the description on a settled background process", async () => {
    await using executor = new Planned();
    const process = await executor.start(executor.resolve({ command: "exit 3" }));
    await process.done;
    assert.deepEqual(process.sandbox, { mode: "read-only", backend: "none", denied: true });
  });

  it("rejects run and start with the plan's error and spawns nothing", async () => {
    await using executor = new Planned();
    executor.fail = new Error("no sandbox");
    const token = marker();
    await assert.rejects(
      executor.run(executor.resolve({ command: `sleep ${token}` })),
      /no sandbox/,
    );
    await assert.rejects(
      executor.start(executor.resolve({ command: `sleep ${token}` })),
      /no sandbox/,
    );
    assert.deepEqual(processesWith(token), []);
  });

  it("shares a private 0700 directory that disposal removes", async () => {
    const executor = new Planned();
    const dir = await executor.dir();
    assert.equal(await executor.dir(), dir);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    await executor[Symbol.asyncDispose]();
    assert.equal(existsSync(dir), false);
    await assert.rejects(executor.dir(), BashSpawnError);
  });
});
