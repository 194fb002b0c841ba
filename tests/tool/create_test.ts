import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBashExecutor, type LocalBashExecutorConfig } from "../../local/mod.ts";
import { BashConfigError, type BashExecSpec } from "../../seam/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { type BashTools, type BashToolsOptions, createBashTools } from "../../tool/mod.ts";
import { assertNoneLeft, marker, pause, seqText, waitForSleep } from "../local/_helpers.ts";
import { markerTemplates, RENDERED, templatePattern } from "./_markers.ts";
import { FakeSandboxExecutor, lingeringProcess } from "./_fakes.ts";

async function eventually<T>(probe: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await pause(25);
  }
}

interface Session extends BashTools {
  dir: string;
  executor: LocalBashExecutor;
  tasks: TaskRegistry;
}

async function withSession(
  fn: (session: Session) => Promise<void>,
  options: { config?: LocalBashExecutorConfig; tools?: Partial<BashToolsOptions> } = {},
): Promise<void> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-tool-")));
  const executor = new LocalBashExecutor({ cwd: dir, ...options.config });
  const tasks = new TaskRegistry();
  const tools = createBashTools({
    executor,
    tasks,
    owner: taskOwner("alice"),
    workdir: dir,
    ...options.tools,
  });
  try {
    await fn({ dir, executor, tasks, ...tools });
  } finally {
    await tasks[Symbol.asyncDispose]();
    await executor[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("bash tool over a real LocalBashExecutor", () => {
  it("runs a command and shows stdout, stderr and the exit code", async () => {
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command: "echo out; echo err >&2; exit 3",
        description: "Print and fail",
      });
      assert.deepEqual(result, { text: "out\n[stderr]\nerr\n[exit code: 3]", isError: true });
    });
  });

  it("passes no confined policy to an executor that does not sandbox, whatever the session mode", async () => {
    // LocalBashExecutor refuses a confined policy; the tool must never hand it one.
    await withSession(async ({ bash }) => {
      const result = await bash.execute({ command: "echo ran", description: "Echo" });
      assert.deepEqual(result, { text: "ran\n[exit code: 0]", isError: false });
    }, { tools: { sessionMode: () => "read-only" } });
  });

  it("accepts the arguments as JSON text, as OpenAI sends them", async () => {
    await withSession(async ({ bash }) => {
      const result = await bash.execute('{"command":"echo json","description":"Echo"}');
      assert.deepEqual(result, { text: "json\n[exit code: 0]", isError: false });
    });
  });

  it("removes colors and progress-bar redraws printed by a real printf", async () => {
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command:
          "printf '\\033[1;32mPASS\\033[0m tests\\n'; for i in 10 50 100; do printf '\\r[%-10s] %3d%%' '##' $i; done; printf '\\n'; printf '\\033[31merr\\033[0m\\n' >&2",
        description: "Print colors and a progress bar",
      });
      assert.equal(result.text, "PASS tests\n[##        ] 100%\n[stderr]\nerr\n[exit code: 0]");
    });
  });

  it("names a real spill file that holds the full output when output is truncated", async () => {
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command: "seq 1 20000",
        description: "Print many lines",
      });
      const match =
        /\n\[output truncated: (\d+) bytes omitted; full output: (\/[^\]]+)\]\n\[exit code: 0\]$/
          .exec(result.text);
      assert.ok(match, result.text);
      const full = Buffer.from(seqText(20000));
      assert.ok(readFileSync(match[2] ?? "").equals(full), "the spill file holds every byte");
      assert.match(result.text, /^1\n2\n3\n/);
      assert.match(result.text, /\n19999\n20000\n\[output truncated: /);
      // 4000 bytes are kept in memory (the head and the tail); the rest is omitted.
      assert.equal(Number(match[1]), full.length - 4000);
      assert.equal(result.isError, false);
    }, { config: { maxOutputBytes: 4000, headBytes: 1000 } });
  });

  it("strips colors from what the model sees while the spill file keeps the raw bytes", async () => {
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command: "for i in $(seq 1 300); do printf '\\033[32mline %d\\033[0m\\r\\n' $i; done",
        description: "Print colored lines",
      });
      const match = /\[output truncated: \d+ bytes omitted; full output: (\/[^\]]+)\]/.exec(
        result.text,
      );
      assert.ok(match, result.text);
      let raw = "";
      for (let i = 1; i <= 300; i++) raw += `\x1b[32mline ${i}\x1b[0m\r\n`;
      assert.ok(readFileSync(match[1] ?? "").equals(Buffer.from(raw)), "the spill file is raw");
      assert.equal(result.text.includes("\x1b") || result.text.includes("\r"), false);
      assert.match(result.text, /^line 1\nline 2\n/);
      assert.match(result.text, /\nline 300\n\[output truncated: /);
    }, { config: { maxOutputBytes: 2000, headBytes: 500 } });
  });

  it("still reports a timeout that the command traps before exiting 0", async () => {
    const token = marker();
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command: `trap 'exit 0' TERM; sleep ${token} & wait`,
        description: "Trap the timeout",
        timeout_ms: 1000,
      });
      assert.deepEqual(result, {
        text: "(no output)\n[timed out after 1000 ms]\n[exit code: 0]",
        isError: true,
      });
      await assertNoneLeft(token);
    });
  });

  it("stops processes a foreground command leaves behind and says so", async () => {
    const token = marker();
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command: `sleep ${token} & echo started`,
        description: "Leave a sleeper behind",
      });
      assert.match(
        result.text,
        /^started\n\[exit code: 0\]\n\[stopped \d+ background process\(es\) left running by the command; use run_in_background for servers\]$/,
      );
      await assertNoneLeft(token);
    });
  });

  it("does not advise run_in_background for strays when it is not offered", async () => {
    const token = marker();
    await withSession(async ({ bash }) => {
      const result = await bash.execute({
        command: `sleep ${token} & echo started`,
        description: "Leave a sleeper behind",
      });
      assert.equal(
        result.text,
        "started\n[exit code: 0]\n[stopped 1 background process(es) left running by the command]",
      );
      await assertNoneLeft(token);
    }, { tools: { enableRunInBackground: false } });
  });

  it("turns a foreground abort into an error result and kills the command", async () => {
    const token = marker();
    await withSession(async ({ bash }) => {
      const controller = new AbortController();
      // Aborted once the command said it started, not on a clock from the call.
      const result = await bash.execute(
        { command: `echo started; sleep ${token}`, description: "Sleep until aborted" },
        { signal: controller.signal, onUpdate: () => controller.abort() },
      );
      assert.deepEqual(result, {
        text:
          "started\n[aborted: the tool call was cancelled before the command finished]\n[killed by signal: SIGTERM]",
        isError: true,
      });
      await assertNoneLeft(token);
    });
  });

  it("runs nothing when the tool call is already cancelled", async () => {
    await withSession(async ({ bash, dir }) => {
      const result = await bash.execute(
        { command: "touch ran", description: "Should not run" },
        { signal: AbortSignal.abort() },
      );
      assert.deepEqual(result, {
        text: "The tool call was cancelled, so the command was not run",
        isError: true,
      });
      assert.equal(existsSync(join(dir, "ran")), false);
    });
  });

  it("runs in the session workdir and resolves a relative workdir against it", async () => {
    await withSession(async ({ bash, dir }) => {
      mkdirSync(join(dir, "sub"));
      assert.equal(
        (await bash.execute({ command: "pwd", description: "Where" })).text,
        `${dir}\n[exit code: 0]`,
      );
      const sub = await bash.execute({ command: "pwd", description: "Where", workdir: "sub" });
      assert.equal(sub.text, `${dir}/sub\n[exit code: 0]`);
      const missing = await bash.execute({ command: "pwd", description: "Where", workdir: "nope" });
      assert.equal(missing.isError, true);
      assert.match(missing.text, /^The command could not be run: .*nope/);
    });
  });

  it("never accepts env, stdin or stdoutMaxBytes from the model, and runs nothing", async () => {
    await withSession(async ({ bash, dir }) => {
      const smuggled: [string, unknown, RegExp][] = [
        ["env", { LD_PRELOAD: "/tmp/x.so" }, /set variables inside the command instead/],
        ["stdin", "rm -rf /\n", /feed input inside the command instead/],
        ["stdoutMaxBytes", 1e9, /long output is truncated/],
        ["managedEnv", { SHELLSEAM_X: "1" }, /accepted fields/],
      ];
      for (const [field, value, hint] of smuggled) {
        const result = await bash.execute({
          command: "touch ran",
          description: "Smuggle",
          [field]: value,
        });
        assert.equal(result.isError, true, field);
        assert.match(result.text, new RegExp(`unknown field "${field}"`));
        assert.match(result.text, hint);
      }
      assert.equal(existsSync(join(dir, "ran")), false);
    });
  });

  it("points common wrong field names at the right ones", async () => {
    await withSession(async ({ bash }) => {
      const cwd = await bash.execute({ command: "pwd", description: "Where", cwd: "/" });
      assert.match(cwd.text, /^Invalid arguments for bash: unknown field "cwd"; use workdir \(/);
      const timeout = await bash.execute({ command: "pwd", description: "Where", timeout: 5 });
      assert.match(timeout.text, /unknown field "timeout"; use timeout_ms, in milliseconds \(/);
    });
  });

  it("offers timeout_ms up to the executor's cap, and says so when asked for more", async () => {
    await withSession(async ({ bash }) => {
      assert.equal(bash.inputSchema.properties.timeout_ms?.maximum, 90_000);
      assert.match(
        bash.inputSchema.properties.timeout_ms?.description ?? "",
        /Defaults to 30000\. At most 90000\./,
      );
      const args = { command: "touch ran", description: "Touch" };
      assert.deepEqual(await bash.execute({ ...args, timeout_ms: 90_001 }), {
        text: "Invalid arguments for bash: timeout_ms must be at most 90000; got 90001",
        isError: true,
      });
      assert.deepEqual(await bash.execute({ ...args, timeout_ms: -5 }), {
        text: "Invalid arguments for bash: timeout_ms must be a positive integer; got -5",
        isError: true,
      });
    }, { config: { timeoutMs: 30_000, maxTimeoutMs: 90_000 } });
  });

  it("rejects timeout_ms with run_in_background", async () => {
    await withSession(async ({ bash, tasks }) => {
      const result = await bash.execute({
        command: "sleep 1",
        description: "Sleep",
        run_in_background: true,
        timeout_ms: 100,
      });
      assert.equal(result.isError, true);
      assert.match(result.text, /timeout_ms does not apply with run_in_background/);
      assert.deepEqual(tasks.list(taskOwner("alice")), []);
    });
  });
});

describe("background flow over a real LocalBashExecutor", () => {
  it("starts, notifies once via takeNotices, and task_output collects everything", async () => {
    await withSession(async ({ bash, taskOutput, takeNotices }) => {
      const command = "echo one; sleep 0.2; echo two >&2; echo three";
      const started = await bash.execute({
        command,
        description: "Print in the background",
        run_in_background: true,
      });
      assert.deepEqual(started, { text: "started background task bash-1", isError: false });
      const notices = await eventually(() => {
        const due = takeNotices();
        return due.length ? due : undefined;
      }, "the completion notice");
      assert.deepEqual(notices, [
        `background task bash-1 (${command}) finished [status: completed, exit code: 0]. Read its output with task_output.`,
      ]);
      assert.deepEqual(takeNotices(), []);
      const read = await taskOutput.execute({ task_id: "bash-1" });
      assert.deepEqual(read, {
        text: "one\nthree\n[stderr]\ntwo\n[status: completed, exit code: 0]",
        isError: false,
      });
      const again = await taskOutput.execute({ task_id: "bash-1" });
      assert.equal(again.text, "(no new output)\n[status: completed, exit code: 0]");
    });
  });

  it("names a real spill file holding everything when a background read lost output", async () => {
    await withSession(async ({ bash, taskOutput }) => {
      await bash.execute({
        command: "seq 1 20000",
        description: "Print many lines",
        run_in_background: true,
      });
      const read = await taskOutput.execute({ task_id: "bash-1", wait: true });
      const match =
        /\n\[output lost: (\d+) bytes since the last read were dropped from memory and are missing above; full output: (\/[^\]]+) \(stdout\)\]\n\[status: completed, exit code: 0\]$/
          .exec(read.text);
      assert.ok(match, read.text);
      const full = Buffer.from(seqText(20000));
      assert.ok(readFileSync(match[2] ?? "").equals(full), "the spill file holds every byte");
      assert.equal(Number(match[1]), full.length - 4000);
      assert.match(read.text, /^1\n2\n3\n/);
      assert.match(read.text, /\n19999\n20000\n\[output lost: /);
    }, { config: { maxOutputBytes: 4000, headBytes: 1000 } });
  });

  it("waits with task_output, and a read of the final state means no notice", async () => {
    await withSession(async ({ bash, taskOutput, takeNotices, dir }) => {
      await bash.execute({
        command: "while [ ! -e go ]; do sleep 0.02; done; echo done",
        description: "Finish once told to",
        run_in_background: true,
      });
      const asked = Date.now();
      const early = await taskOutput.execute({ task_id: "bash-1", wait: true, timeout_ms: 100 });
      assert.deepEqual(early, {
        text:
          "(no new output)\n[still running after waiting 100 ms; wait again or do other work meanwhile]\n[status: running]",
        isError: false,
      });
      // timeout_ms bounds the wait (the default is 30 s); the bound is loose for busy machines.
      assert.ok(Date.now() - asked < 10_000, "the wait outlived its timeout_ms");
      writeFileSync(join(dir, "go"), "");
      const done = await taskOutput.execute({ task_id: "bash-1", wait: true, timeout_ms: 20_000 });
      assert.equal(done.text, "done\n[status: completed, exit code: 0]");
      assert.deepEqual(takeNotices(), []);
    });
  });

  it("stops a task with task_kill, lists it, and leaves nothing running", async () => {
    const token = marker();
    await withSession(async ({ bash, taskList, taskKill, taskOutput, takeNotices }) => {
      await bash.execute({
        command: `echo up; sleep ${token}`,
        description: "Serve",
        run_in_background: true,
      });
      assert.equal(
        (await taskList.execute({})).text,
        `bash-1 [bash] running — echo up; sleep ${token}`,
      );
      // The sleep itself, not only a shell naming it: by then "up" is printed
      // and the process group exists, so SIGTERM reaches the whole task.
      await waitForSleep(token);
      const killed = await taskKill.execute({ task_id: "bash-1", reason: "no longer needed" });
      assert.deepEqual(killed, {
        text:
          'stopped task bash-1; read what it printed with task_output\n[status: killed, signal: SIGTERM, kill reason: "no longer needed"]',
        isError: false,
      });
      await assertNoneLeft(token);
      assert.match((await taskList.execute({})).text, /^bash-1 \[bash\] killed — /);
      assert.match((await taskOutput.execute({ task_id: "bash-1" })).text, /^up\n\[status: killed/);
      const twice = await taskKill.execute({ task_id: "bash-1" });
      assert.match(
        twice.text,
        /^task bash-1 had already finished; .*\n\[status: killed, signal: SIGTERM/,
      );
      assert.deepEqual(takeNotices(), []);
    });
  });

  it("refuses another owner's task id with a clear text", async () => {
    const token = marker();
    await withSession(async ({ bash, executor, tasks }) => {
      await bash.execute({
        command: `sleep ${token}`,
        description: "Sleep",
        run_in_background: true,
      });
      const bob = createBashTools({ executor, tasks, owner: taskOwner("bob") });
      for (
        const result of [
          await bob.taskOutput.execute({ task_id: "bash-1" }),
          await bob.taskKill.execute({ task_id: "bash-1" }),
        ]
      ) {
        assert.deepEqual(result, {
          text:
            'Task "bash-1" belongs to another session; use task_list to see the ids of your tasks',
          isError: true,
        });
      }
      assert.equal((await bob.taskList.execute({})).text, "(no background tasks)");
      assert.equal(tasks.get("bash-1", taskOwner("alice")).status, "running");
      assert.deepEqual(bob.takeNotices(), []);
    });
    await assertNoneLeft(token);
  });

  it("says a task was dropped by a disposal, not that it expired, when its session was disposed", async () => {
    const token = marker();
    await withSession(async ({ bash, taskOutput, taskKill, tasks }) => {
      await bash.execute({
        command: `sleep ${token}`,
        description: "Sleep",
        run_in_background: true,
      });
      await waitForSleep(token);
      await tasks.disposeOwner(taskOwner("alice"));
      const dropped = {
        text:
          'Task "bash-1" was dropped because this session\'s tasks were disposed (stopped first if it was running), and its output with it; run the command again if you need that output',
        isError: true,
      };
      assert.deepEqual(await taskOutput.execute({ task_id: "bash-1" }), dropped);
      assert.deepEqual(await taskKill.execute({ task_id: "bash-1" }), dropped);
    });
    await assertNoneLeft(token);
  });

  it("answers an unknown task id and bad task arguments with texts the model can act on", async () => {
    await withSession(async ({ taskOutput, taskKill, taskList }) => {
      assert.deepEqual(await taskOutput.execute({ task_id: "bash-99" }), {
        text: 'Unknown task id "bash-99"; use task_list to see the ids of your tasks',
        isError: true,
      });
      assert.deepEqual(await taskKill.execute({ task_id: "bash-99" }), {
        text: 'Unknown task id "bash-99"; use task_list to see the ids of your tasks',
        isError: true,
      });
      assert.deepEqual(await taskOutput.execute({ task_id: "bash-1", timeout_ms: 10 }), {
        text:
          "Invalid arguments for task_output: timeout_ms applies only with wait: true; add wait: true to block until the task finishes, or drop timeout_ms",
        isError: true,
      });
      assert.deepEqual(await taskList.execute({ all: true }), {
        text: 'Invalid arguments for task_list: unknown field "all" (accepted fields: none)',
        isError: true,
      });
      assert.equal(
        (await taskOutput.execute({})).text,
        "Invalid arguments for task_output: task_id is required (a non-blank string)",
      );
    });
  });

  it("keeps a background command running when its bash call's signal aborts later", async () => {
    const token = marker();
    await withSession(async ({ bash, tasks, taskKill }) => {
      const controller = new AbortController();
      const started = await bash.execute(
        { command: `sleep ${token}`, description: "Sleep", run_in_background: true },
        { signal: controller.signal },
      );
      assert.equal(started.text, "started background task bash-1");
      await waitForSleep(token);
      controller.abort();
      await pause(300);
      assert.equal(tasks.get("bash-1", taskOwner("alice")).status, "running");
      assert.match((await taskKill.execute({ task_id: "bash-1" })).text, /^stopped task bash-1;/);
    });
    await assertNoneLeft(token);
  });

  it("stops waiting when the tool call is cancelled", async () => {
    const token = marker();
    await withSession(async ({ bash, taskOutput }) => {
      await bash.execute({
        command: `sleep ${token}`,
        description: "Sleep",
        run_in_background: true,
      });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const result = await taskOutput.execute(
        { task_id: "bash-1", wait: true, timeout_ms: 60_000 },
        { signal: controller.signal },
      );
      assert.deepEqual(result, {
        text: "Stopped waiting for task bash-1: the tool call was cancelled",
        isError: true,
      });
    });
    await assertNoneLeft(token);
  });

  it("stops a background command it cannot register, and says so", async () => {
    const token = marker();
    await withSession(async ({ bash, tasks }) => {
      await tasks[Symbol.asyncDispose]();
      const result = await bash.execute({
        command: `sleep ${token}`,
        description: "Sleep",
        run_in_background: true,
      });
      assert.equal(result.isError, true);
      assert.match(
        result.text,
        /^The background command was stopped because it could not be registered: /,
      );
      await assertNoneLeft(token);
    });
  });

  it("offers only bash, without run_in_background, when background runs are disabled", async () => {
    await withSession(async ({ tools, bash }) => {
      assert.deepEqual(tools.map((tool) => tool.name), ["bash"]);
      assert.equal("run_in_background" in bash.inputSchema.properties, false);
      assert.doesNotMatch(bash.description, /run_in_background|task_output|task_kill/);
      assert.doesNotMatch(
        JSON.stringify(bash.inputSchema),
        /run_in_background|task_output|task_kill/,
      );
      const result = await bash.execute({
        command: "sleep 1",
        description: "Sleep",
        run_in_background: true,
      });
      assert.equal(result.isError, true);
      assert.match(result.text, /unknown field "run_in_background"/);
    }, { tools: { enableRunInBackground: false } });
  });

  it("offers the four tools by default", async () => {
    await withSession(({ tools }) => {
      assert.deepEqual(tools.map((tool) => tool.name), [
        "bash",
        "task_output",
        "task_list",
        "task_kill",
      ]);
      return Promise.resolve();
    });
  });
});

describe("what the model reads in the tool descriptions", () => {
  it("describes each result shape with the texts the tools really produce", async () => {
    await withSession(({ bash, taskOutput, taskList, taskKill }) => {
      for (
        const phrase of [
          "[stderr] section, or (no output) when both are empty",
          "[timed out after N ms] when the time limit stopped the command, then [killed by signal: SIGX] or [exit code: N]",
          "[output truncated: N bytes omitted; full output: <path>]",
          "set run_in_background: true. The reply is at once: started background task <id>.",
          "Processes the command leaves running are stopped when it ends; a [stopped N background process(es) ...] line says so.",
        ]
      ) {
        assert.ok(bash.description.includes(phrase), phrase);
      }
      assert.match(
        taskOutput.description,
        /\(no new output\)\. The reply ends with \[status: \.\.\.\]/,
      );
      assert.match(taskOutput.description, /an \[output lost: \.\.\.\] line names the files/);
      assert.match(
        taskList.description,
        /<id> \[<kind>\] <status> — <command>, or \(no background tasks\)/,
      );
      assert.match(taskKill.description, /ends with the task's \[status: \.\.\.\]/);
      return Promise.resolve();
    });
  });

  it("names only markers the renderers really produce, in descriptions and field descriptions", async () => {
    await withSession(({ tools }) => {
      for (const tool of tools) {
        const texts = [
          tool.description,
          ...Object.values(tool.inputSchema.properties).map((field) => field.description ?? ""),
        ];
        for (const template of markerTemplates(texts.join("\n"))) {
          if (/^\[(stderr|status: \.\.\.|<kind>)\]$/.test(template)) continue;
          const pattern = templatePattern(template);
          assert.ok(
            RENDERED.some((text) => pattern.test(text)),
            `${tool.name}: no rendering matches ${template}`,
          );
        }
      }
      return Promise.resolve();
    });
  });
});

describe("createBashTools options", () => {
  it("throws a BashConfigError naming a missing or wrong option", async () => {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    const owner = taskOwner("s");
    const table: [Record<string, unknown>, RegExp][] = [
      [{ executor: {} }, /^"executor" must be a BashExecutor; pass /],
      [{ tasks: undefined }, /^"tasks" must be a TaskRegistry; pass /],
      [{ owner: "" }, /^"owner" must be a non-empty task owner; pass taskOwner\(sessionId\)$/],
      [{ workdir: "relative/dir" }, /^"workdir" must be an absolute path; got "relative\/dir"; /],
      [{ approve: "yes" }, /^"approve" must be a function; /],
      [{ sessionMode: "read-only" }, /^"sessionMode" must be a function; /],
      [{ enableRunInBackground: "no" }, /^"enableRunInBackground" must be true or false; /],
    ];
    for (const [patch, message] of table) {
      assert.throws(
        () => createBashTools({ executor, tasks, owner, ...patch } as BashToolsOptions),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(patch),
      );
    }
  });
});

describe("bash and task_kill over a recording executor", () => {
  it("resolves a relative workdir against the session workdir, not the executor's cwd", async () => {
    const executor = new FakeSandboxExecutor(null);
    const tasks = new TaskRegistry();
    const owner = taskOwner("s");
    const session = createBashTools({ executor, tasks, owner, workdir: "/work/session" });
    const unset = createBashTools({ executor, tasks, owner });
    await session.bash.execute({ command: "pwd", description: "Where" });
    await session.bash.execute({ command: "pwd", description: "Where", workdir: "sub" });
    await session.bash.execute({ command: "pwd", description: "Where", workdir: ".." });
    await session.bash.execute({ command: "pwd", description: "Where", workdir: "/abs" });
    // Without a session workdir, the executor resolves it (against its own cwd).
    await unset.bash.execute({ command: "pwd", description: "Where", workdir: "sub" });
    assert.deepEqual(executor.runs.map((spec) => spec.workdir), [
      "/work/session",
      "/work/session/sub",
      "/work",
      "/abs",
      "sub",
    ]);
  });

  it("builds the tools over an executor that refuses a request, and reports the refusal", async () => {
    class Refusing extends FakeSandboxExecutor {
      override resolve(): BashExecSpec {
        throw new BashConfigError('"timeoutMs" is not allowed here; omit it');
      }
    }
    const executor = new Refusing(null);
    const { bash } = createBashTools({
      executor,
      tasks: new TaskRegistry(),
      owner: taskOwner("s"),
    });
    assert.match(
      bash.inputSchema.properties.timeout_ms?.description ?? "",
      /Defaults to 120000\. At most 600000\./,
    );
    assert.deepEqual(await bash.execute({ command: "ls", description: "List" }), {
      text: 'The command was not run: "timeoutMs" is not allowed here; omit it',
      isError: true,
    });
    assert.deepEqual(executor.runs, []);
  });

  it("trims task ids and drops a blank kill reason", async () => {
    const executor = new FakeSandboxExecutor(null);
    executor.startProcess = (spec) => lingeringProcess(spec, 10);
    await using tasks = new TaskRegistry();
    const { bash, taskOutput, taskKill } = createBashTools({
      executor,
      tasks,
      owner: taskOwner("s"),
    });
    await bash.execute({ command: "serve", description: "Serve", run_in_background: true });
    assert.equal(
      (await taskOutput.execute({ task_id: " bash-1\n" })).text,
      "(no new output)\n[status: running]",
    );
    assert.deepEqual(await taskKill.execute({ task_id: " bash-1 ", reason: "  " }), {
      text:
        "stopped task bash-1; read what it printed with task_output\n[status: killed, signal: SIGTERM]",
      isError: false,
    });
  });

  it("task_kill waits for the stopped task to settle before it answers", async () => {
    const executor = new FakeSandboxExecutor(null);
    executor.startProcess = (spec) => lingeringProcess(spec, 200);
    await using tasks = new TaskRegistry();
    const { bash, taskKill } = createBashTools({ executor, tasks, owner: taskOwner("s") });
    await bash.execute({ command: "serve", description: "Serve", run_in_background: true });
    assert.deepEqual(await taskKill.execute({ task_id: "bash-1" }), {
      text:
        "stopped task bash-1; read what it printed with task_output\n[status: killed, signal: SIGTERM]",
      isError: false,
    });
  });
});
