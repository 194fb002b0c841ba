// Terminal sessions through the tools, as a model drives them: bash with
// terminal: true, then task_input to type and read the screen. After each,
// nothing the command started is alive (a census by pid from the host).
import { after, before, describe, it } from "node:test";
import { randomUUID } from "node:crypto";
import assert from "node:assert/strict";
import {
  chownSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { spawn, spawnSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { findOnPath } from "../../engine/_session.ts";
import { join } from "node:path";
import { LocalBashExecutor } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { SshBashExecutor } from "../../remote/mod.ts";
import { sshdMissing, startSshd, type TestSshd } from "../remote/_sshd.ts";
import { probeHere, skipUnless } from "../sandbox/_fixtures.ts";
import type {
  BashExecRequest,
  BashExecutor,
  BashProcess,
  BashTerminalSize,
} from "../../seam/mod.ts";
import { type AgentTool, createBashTools, type ScreenSnapshot } from "../../tool/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { alive, processTree, TerminalWatch } from "../_terminal.ts";
import { terminalHolder as terminalHolderOf } from "../../engine/_terminal.ts";

/** Every process an executor started, to census their trees from the host. */
function watched<E extends BashExecutor>(executor: E): { executor: E; started: BashProcess[] } {
  const started: BashProcess[] = [];
  const start = executor.start.bind(executor);
  executor.start = async (request: BashExecRequest) => {
    const process = await start(request);
    started.push(process);
    return process;
  };
  return { executor, started };
}

/** A model's session: the tools, what they read, and the processes below its tasks. */
class Session {
  readonly seen: string[] = [];
  readonly #trees = new Set<number>();
  constructor(
    readonly tools: { bash: AgentTool; taskInput: AgentTool; taskKill: AgentTool },
    readonly started: BashProcess[],
  ) {}

  async bash(command: string, size: { rows?: number; cols?: number } = {}): Promise<string> {
    const reply = await this.tools.bash.execute({
      command,
      description: "Run",
      terminal: true,
      ...size,
    });
    assert.equal(reply.isError, false, reply.text);
    this.#census();
    this.seen.push(reply.text);
    return reply.text.match(/^started background task (bash-\d+)/)?.[1] as string;
  }

  /**
   * Types `input` (after a resize to `size`, if given) and reads again (typing
   * nothing) until `pattern` is in what was read since the typing: each wait
   * starts from the reply before it.
   */
  async type(
    id: string,
    input: string,
    pattern: RegExp,
    size: { rows?: number; cols?: number } = {},
  ): Promise<string> {
    const ms = 20_000;
    const deadline = performance.now() + ms;
    let since = "";
    let next: Record<string, unknown> = { input, ...size };
    for (;;) {
      const reply = await this.tools.taskInput.execute({ task_id: id, wait_ms: 250, ...next });
      assert.equal(reply.isError, false, reply.text);
      this.#census();
      this.seen.push(reply.text);
      since += `${reply.text}\n`;
      if (pattern.test(since)) return reply.text;
      if (performance.now() > deadline) {
        throw new Error(`no ${pattern} within ${ms} ms; read: ${since.slice(-3000)}`);
      }
      next = { input: "" };
    }
  }

  /** Pids of every process below the tasks, each time the model looked. */
  #census(): void {
    for (const process of this.started) {
      for (const pid of processTree(process.pid)) this.#trees.add(pid);
    }
  }

  /** The processes seen below the tasks that are still alive. */
  left(): number[] {
    return alive([...this.#trees]);
  }
}

/** Where the tools run: an executor (made per test), and how to census what it left. */
interface Backend {
  name: string;
  make: (dir: string) => BashExecutor & AsyncDisposable;
  skip: string | false;
  before?: () => Promise<void>;
  after?: () => Promise<void>;
  /** Live processes of the backend's that no process tree from here reaches (a remote host's). */
  left?: () => number[];
}

async function session(
  backend: Backend,
  body: (session: Session, dir: string) => Promise<void>,
): Promise<void> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "terminal-tools-")));
  const executor = backend.make(dir);
  const { started } = watched(executor);
  try {
    await using tasks = new TaskRegistry();
    const set = createBashTools({
      executor,
      tasks,
      owner: taskOwner("model"),
      workdir: dir,
      enableTerminal: true,
    });
    const taskInput = set.taskInput;
    assert.ok(taskInput !== undefined);
    const model = new Session({ bash: set.bash, taskInput, taskKill: set.taskKill }, started);
    await body(model, dir);
    await Promise.all(started.map((process) => process.done));
    assert.deepEqual(model.left(), [], "processes left running");
    assert.ok(started.length > 0);
    if (backend.left !== undefined) {
      // The remote host's: its sessions (the connection's too) end with the executor.
      await executor[Symbol.asyncDispose]();
      const deadline = performance.now() + 10_000;
      while (backend.left().length > 0 && performance.now() < deadline) {
        await new Promise((done) => setTimeout(done, 50));
      }
      assert.deepEqual(backend.left(), [], "processes left running on the remote host");
    }
  } finally {
    await executor[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  }
}

const statuses = await probeHere();

/** A sandbox whose workspace is the session's folder (the tools' workdir), under `backend` alone. */
function sandbox(backend: "bwrap" | "landlock"): (dir: string) => SandboxBashExecutor {
  return (dir) =>
    new SandboxBashExecutor({
      workspaceRoot: dir,
      backends: [backend],
      defaultMode: "workspace-write",
    });
}

/**
 * The remote host of the SSH case: a test sshd on this machine, whose sessions all carry
 * `SSH_MARK` in their environment, so the census finds what they left.
 */
const SSH_MARK = "TERMINAL_TOOLS_SSH";
const sshMark = randomUUID();
let sshd: TestSshd | undefined;

/** Live processes of the test sshd's sessions (their environment carries the mark). */
function sshSessionProcesses(): number[] {
  return alive(
    readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, "latin1").includes(`${SSH_MARK}=${sshMark}\0`);
      } catch {
        return false;
      }
    }),
  );
}

/**
 * On Node, the local case alone: over a sandbox or SSH the tools and the
 * registry are the same runtime-free code, and the runtime's part (spawns,
 * pipes, ssh's streams) is what the conformance suites run on Node (see
 * `DENO_ONLY_TESTS` in scripts/test_node.ts).
 */
const localOnNode = "Deno" in globalThis
  ? false
  : "over a sandbox or SSH the tools run the code of the local case; the Deno suite runs it";

const EXECUTORS: Backend[] = [
  { name: "the local executor", make: () => new LocalBashExecutor(), skip: false },
  {
    name: "the bwrap sandbox",
    make: sandbox("bwrap"),
    skip: localOnNode || skipUnless(statuses, "bwrap"),
  },
  {
    name: "the Landlock sandbox",
    make: sandbox("landlock"),
    skip: localOnNode || skipUnless(statuses, "landlock"),
  },
  {
    name: "the SSH executor",
    make: () => new SshBashExecutor(sshd!.config),
    skip: localOnNode || sshdMissing,
    before: async () => {
      sshd = await startSshd({ env: { [SSH_MARK]: sshMark } });
    },
    after: () => sshd?.dispose() ?? Promise.resolve(),
    // The remote processes are no children of this one: found by the sessions' mark.
    left: sshSessionProcesses,
  },
];

for (const backend of EXECUTORS) {
  const { name, skip } = backend;
  describe(`terminal sessions through the tools, on ${name}`, { skip }, () => {
    if (backend.before !== undefined) before(backend.before);
    if (backend.after !== undefined) after(backend.after);
    it("a y/N prompt is answered", async () => {
      await session(backend, async (model) => {
        const id = await model.bash("read -p 'Continue? [y/N] ' a; echo \"answered $a\"");
        await model.type(id, "", /Continue\? \[y\/N\]/);
        const reply = await model.type(id, "y\r", /status: completed, exit code: 0/);
        assert.match(reply, /\[screen\]\nContinue\? \[y\/N\] y\nanswered y\n/);
      });
    });

    it("python3's REPL adds 1+1, and exit() ends it", async () => {
      await session(backend, async (model) => {
        const id = await model.bash("python3 -q");
        await model.type(id, "", /^>>> ?$/m);
        const reply = await model.type(id, "1+1\r", /^2$/m);
        assert.match(reply, /\[screen\]\n>>> 1\+1\n2\n>>>/);
        await model.type(id, "exit()\r", /status: completed, exit code: 0/);
      });
    });

    it("vi opens a file, takes text, and :wq saves it to disk", async () => {
      await session(backend, async (model, dir) => {
        const id = await model.bash("vi -u NONE -N -i NONE notes.txt");
        await model.type(id, "", /full-screen program[\s\S]*"notes.txt"/);
        const typed = await model.type(id, "ihello from the model\u001b", /hello from the model/);
        assert.match(typed, /\[screen \(a full-screen program\)\]\nhello from the model\n~\n/);
        await model.type(id, ":wq\r", /status: completed, exit code: 0/);
        assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "hello from the model\n");
      });
    });

    it("top shows a screen that names itself and quits on q", async () => {
      await session(backend, async (model) => {
        const id = await model.bash("top -d 0.5");
        const reply = await model.type(id, "", /\[screen\]\ntop - \d\d:\d\d:\d\d up /);
        assert.match(reply, /\n +PID USER /);
        assert.ok(!reply.includes("\x1b"), "no escape sequence reaches the model");
        await model.type(id, "q", /status: completed, exit code: 0/);
      });
    });

    it("less pages and quits", async () => {
      await session(backend, async (model) => {
        const id = await model.bash("seq 1 100 | less");
        await model.type(id, "", /full-screen program\)\]\n1\n2\n/);
        await model.type(id, " ", /full-screen program\)\]\n2[3-5]\n/);
        await model.type(id, "q", /status: completed, exit code: 0/);
      });
    });

    it("Ctrl-C stops a sleep", async () => {
      await session(backend, async (model) => {
        const id = await model.bash("echo sleeping; sleep 60");
        await model.type(id, "", /sleeping/);
        const reply = await model.type(id, "\u0003", /status: completed, exit code: 130/);
        assert.match(reply, /\^C/);
      });
    });

    it("a program that checks isatty sees a terminal", async () => {
      await session(backend, async (model) => {
        const id = await model.bash("[ -t 0 ] && [ -t 1 ] && echo is-a-tty; tput cols");
        await model.type(id, "", /is-a-tty\n80\n[\s\S]*status: completed, exit code: 0/);
      });
    });

    it("starts at the size asked for, and a resize through task_input changes stty size, tput cols and the screen", async () => {
      await session(backend, async (model) => {
        const id = await model.bash(
          "while read -r line; do stty size; tput cols; printf '%0110d\\n' 0; done",
          { rows: 30, cols: 100 },
        );
        assert.match(model.seen[0] ?? "", /^started background task bash-\d+ in a 30x100 terminal/);
        // At 100 columns the 110 zeros wrap.
        await model.type(id, "\r", /^30 100\n100\n0{100}\n0{10}$/m);
        const resized = await model.type(id, "\r", /^40 120\n120\n0{110}$/m, {
          rows: 40,
          cols: 120,
        });
        assert.doesNotMatch(resized, /not resized/);
        const narrow = await model.type(id, "\r", /^40 60\n60\n0{60}\n0{50}$/m, { cols: 60 });
        assert.doesNotMatch(narrow, /not resized/);
        await model.type(id, "\u0004", /status: completed, exit code: 0/);
      });
    });

    it("task_kill stops a terminal task that ignores hangups, and task_input then says it ended", async () => {
      await session(backend, async (model) => {
        const id = await model.bash(
          "trap '' HUP TERM INT; (trap '' HUP TERM; sleep 60) & echo up; sleep 60",
        );
        await model.type(id, "", /up/);
        const killed = await model.tools.taskKill.execute({ task_id: id });
        assert.match(killed.text, /status: killed/);
        const after = await model.tools.taskInput.execute({ task_id: id, input: "more\r" });
        assert.match(after.text, /^\[input not sent: the task has ended\]/);
      });
    });
  });
}

describe("task_input's fences", () => {
  it("refuses another owner's task and a task without a terminal, without typing", async () => {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    const mine = createBashTools({ executor, tasks, owner: taskOwner("a"), enableTerminal: true });
    const theirs = createBashTools({
      executor,
      tasks,
      owner: taskOwner("b"),
      enableTerminal: true,
    });
    const started = await mine.bash.execute({
      command: "read line; echo got $line",
      description: "Wait",
      terminal: true,
    });
    const id = started.text.match(/bash-\d+/)?.[0] as string;
    const refused = await theirs.taskInput?.execute({ task_id: id, input: "x\r" });
    assert.deepEqual(refused, {
      text: `Task "${id}" belongs to another session; use task_list to see the ids of your tasks`,
      isError: true,
    });
    const plain = await mine.bash.execute({
      command: "sleep 30",
      description: "Sleep",
      run_in_background: true,
    });
    const plainId = plain.text.match(/bash-\d+/)?.[0] as string;
    const noTerminal = await mine.taskInput?.execute({ task_id: plainId, input: "x" });
    assert.equal(noTerminal?.isError, true);
    assert.match(noTerminal?.text ?? "", /has no terminal to type into/);
    const answered = await mine.taskInput?.execute({ task_id: id, input: "ok\r", wait_ms: 5000 });
    assert.match(answered?.text ?? "", /got ok\n/);
    await mine.taskKill.execute({ task_id: plainId });
  });

  for (const later of [false, true]) {
    const name = later
      ? "waits for a renderer that draws later: its snapshot is a promise"
      : "renders with the screen renderer the options give, made for the terminal's size";
    it(name, async () => {
      await using executor = new LocalBashExecutor();
      await using tasks = new TaskRegistry();
      const sizes: BashTerminalSize[] = [];
      let fed = "";
      const drawn = (): ScreenSnapshot => ({
        lines: [`fed ${JSON.stringify(fed)}`],
        scrolledOff: [],
        droppedLines: 0,
        alternate: false,
      });
      const set = createBashTools({
        executor,
        tasks,
        owner: taskOwner("a"),
        enableTerminal: true,
        screen: (size) => {
          sizes.push(size);
          return {
            write: (text) => fed += text,
            resize: () => {},
            // Drawn on a later turn of the event loop, as @xterm/headless parses.
            snapshot: later
              ? () => new Promise((done) => setTimeout(() => done(drawn()), 10))
              : drawn,
          };
        },
      });
      const started = await set.bash.execute({
        // Output only after the input, whenever it comes: the order is the same on a loaded machine.
        command: "read line; printf 'hello'",
        description: "Greet",
        terminal: true,
      });
      assert.match(started.text, /\n\[screen\]\nfed ""\n/);
      const id = started.text.match(/bash-\d+/)?.[0] as string;
      assert.deepEqual(sizes, [{ rows: 24, cols: 80 }]);
      const reply = await set.taskInput?.execute({ task_id: id, input: "\r", wait_ms: 5000 });
      assert.equal(fed, "\r\nhello");
      assert.match(reply?.text ?? "", /^\[screen\]\nfed "\\r\\nhello"\n/);
      const again = await set.taskOutput.execute({ task_id: id });
      assert.match(again.text, /^\[screen\]\nfed "\\r\\nhello"\n/);
    });
  }

  it("says when the screen renderer failed, and shows the raw output from then on", async () => {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    let fed = "";
    const set = createBashTools({
      executor,
      tasks,
      owner: taskOwner("a"),
      enableTerminal: true,
      screen: () => ({
        write: (text) => {
          if (text.includes("boom")) throw new RangeError("a sequence it cannot parse");
          fed += text;
        },
        resize: () => {},
        snapshot: () => ({
          lines: fed.split("\r\n").filter((line) => line !== ""),
          scrolledOff: [],
          droppedLines: 0,
          alternate: false,
        }),
      }),
    });
    // Each answer comes after what is typed: the screens are the same however late the shell starts.
    const started = await set.bash.execute({
      command: "read a; printf 'drawn %s\\n' \"$a\"; read b; printf 'boom after %s\\n' \"$b\"",
      description: "Fail the renderer",
      terminal: true,
    });
    const id = started.text.match(/bash-\d+/)?.[0] as string;
    const drawn = await set.taskInput?.execute({ task_id: id, input: "one\r", wait_ms: 10_000 });
    assert.match(drawn?.text ?? "", /^\[screen\]\none\ndrawn one\n/);
    const reply = await set.taskInput?.execute({ task_id: id, input: "two\r", wait_ms: 10_000 });
    assert.match(
      reply?.text ?? "",
      /^\[the screen renderer failed: a sequence it cannot parse; the raw output follows\]\n.*boom after two/s,
    );
  });

  it("is offered only with enableTerminal, and bash's terminal field with it", async () => {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    const plain = createBashTools({ executor, tasks, owner: taskOwner("a") });
    assert.deepEqual(plain.tools.map((tool) => tool.name), [
      "bash",
      "task_output",
      "task_list",
      "task_kill",
    ]);
    assert.equal("terminal" in plain.bash.inputSchema.properties, false);
    const terminal = createBashTools({
      executor,
      tasks,
      owner: taskOwner("a"),
      enableTerminal: true,
    });
    assert.deepEqual(terminal.tools.map((tool) => tool.name), [
      "bash",
      "task_output",
      "task_list",
      "task_kill",
      "task_input",
    ]);
    assert.equal(terminal.bash.inputSchema.properties.terminal?.type, "boolean");
    // The descriptions say when to use a terminal, its size, how to quit and resize, and what stays off.
    const bash = terminal.bash.description;
    assert.match(
      bash,
      /set terminal: true: it starts in the background in a terminal \(24x80, or rows and cols\)/,
    );
    assert.match(bash, /git and gh still never ask for credentials/);
    const input = terminal.taskInput?.description ?? "";
    assert.match(
      input,
      /The reply comes once the program answered and went quiet, or after wait_ms/,
    );
    assert.match(input, /rows and cols resize the terminal first/);
    assert.match(input, /less, top and man with "q"/);
    assert.match(input, /"\\u0003" \(Ctrl-C\)/);
  });
});

/** `promise`, or a rejection once `ms` passed: a test's own bound, far above what it waits for. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not come within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe("task_input's wait and size", () => {
  async function tools(run: (set: ReturnType<typeof createBashTools>) => Promise<void>) {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    const set = createBashTools({ executor, tasks, owner: taskOwner("a"), enableTerminal: true });
    await run(set);
  }
  const start = async (set: ReturnType<typeof createBashTools>, command: string) => {
    const started = await set.bash.execute({ command, description: "Run", terminal: true });
    return started.text.match(/bash-\d+/)?.[0] as string;
  };

  const answers = [
    {
      name: "replies once the program answered and went quiet, long before a wait_ms of a minute",
      command: 'read line; echo "got $line"; sleep 60',
      answer: "got x",
    },
    {
      // The echo comes at once, the answer a second later: the reply waits for the answer.
      name: "does not reply on the echo of the input alone, but on the answer that follows",
      command: 'read line; sleep 1; echo "late $line"; sleep 60',
      answer: "late x",
    },
  ];
  for (const { name, command, answer } of answers) {
    it(name, async () => {
      await tools(async (set) => {
        const id = await start(set, command);
        const reply = await bounded(
          set.taskInput!.execute({ task_id: id, input: "x\r", wait_ms: 60_000 }),
          30_000,
          "the reply",
        );
        // The answer, while the program still runs: the reply did not wait for its end.
        assert.match(
          reply.text,
          new RegExp(`\\[screen\\]\\nx\\n${answer}\\n[\\s\\S]*\\[status: running`),
        );
        await set.taskKill.execute({ task_id: id });
      });
    });
  }

  it("refuses a size out of bounds or without a terminal, and says when the task ended", async () => {
    await tools(async (set) => {
      const tooWide = await set.bash.execute({
        command: "true",
        description: "Run",
        terminal: true,
        cols: 1001,
      });
      assert.deepEqual(tooWide, {
        text: "Invalid arguments for bash: cols must be at most 1000; got 1001",
        isError: true,
      });
      const noTerminal = await set.bash.execute({ command: "true", description: "Run", rows: 10 });
      assert.equal(noTerminal.isError, true);
      assert.match(noTerminal.text, /rows and cols are the size of a terminal: add terminal: true/);
      const id = await start(set, "echo bye");
      const flat = await set.taskInput!.execute({ task_id: id, input: "", rows: 0 });
      assert.deepEqual(flat, {
        text: "Invalid arguments for task_input: rows must be a positive integer; got 0",
        isError: true,
      });
      await set.taskOutput.execute({ task_id: id, wait: true });
      const ended = await set.taskInput!.execute({ task_id: id, input: "", rows: 10 });
      assert.match(ended.text, /^\[not resized: the task has ended\]\n/);
    });
  });
});

describe(
  "a terminal under the Landlock sandbox",
  { skip: skipUnless(statuses, "landlock") },
  () => {
    it("is one of the sandbox's own: the host's terminals are neither listed nor writable", async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "terminal-landlock-")));
      // A terminal of the host's: a shell that util-linux script runs on one.
      const host = spawn("script", ["-q", "-c", "echo on-host; sleep 60", "/dev/null"], {
        stdio: ["pipe", "pipe", "ignore"],
      });
      try {
        for await (const chunk of host.stdout) if (String(chunk).includes("on-host")) break;
        const holder = terminalHolderOf(host.pid as number);
        assert.ok(holder !== null);
        assert.match(readlinkSync(`/proc/${holder}/fd/0`), /^\/dev\/pts\/\d+$/);
        await using executor = sandbox("landlock")(dir);
        const process = await executor.start({
          command: `ls /dev/pts; echo probe > /proc/${holder}/fd/0 || echo refused`,
          workdir: dir,
          terminal: { rows: 24, cols: 80 },
        });
        const watch = new TerminalWatch(process);
        await process.done;
        await watch.ended;
        assert.match(watch.text, /^0 +ptmx\r\n.*Permission denied\r\nrefused\r\n$/s);
      } finally {
        host.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

const PROBE = fileURLToPath(new URL("./_terminal_probe.ts", import.meta.url));
const nobodySkip = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0 || findOnPath("setpriv") === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : false;

describe("a terminal for a user who is not root", { skip: nobodySkip }, () => {
  it("answers, resizes and leaves nothing, locally and under each sandbox backend", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "terminal-nobody-")));
    const kinds = [
      "local",
      ...(["bwrap", "landlock"] as const).filter((backend) =>
        skipUnless(statuses, backend) === false
      ),
    ];
    try {
      chownSync(dir, 65534, 65534);
      const ran = spawnSync("setpriv", [
        "--reuid=nobody",
        "--regid=nogroup",
        "--clear-groups",
        "env",
        `DENO_DIR=${join(dir, ".deno")}`,
        `HOME=${dir}`,
        process.execPath,
        "run",
        "--allow-all",
        "--no-lock",
        PROBE,
        dir,
        ...kinds,
      ], { encoding: "utf8", timeout: 120_000 });
      assert.equal(ran.status, 0, ran.stderr);
      const lines = ran.stdout.trim().split("\n").map((line) =>
        JSON.parse(line) as { kind: string; text: string; tree: number; alive: number[] }
      );
      assert.deepEqual(lines.map((line) => line.kind), kinds);
      for (const line of lines) {
        assert.match(line.text, /^nobody\r\ntty\r\ngo\? y\r\ngot=y\r\n[\s\S]*cols=123\r\n/);
        assert.ok(line.tree >= 2, `${line.kind}: the census saw ${line.tree} processes`);
        assert.deepEqual(line.alive, [], `${line.kind}: processes left`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
