/**
 * `shellseam demo` (and `deno task demo`): a short tour of shellseam that
 * runs real commands and prints what each one returned.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BashRunResult, BashSpawnError } from "@shellseam/bash";
import { LocalBashExecutor } from "@shellseam/bash/local";
import { taskOwner, TaskRegistry } from "@shellseam/bash/tasks";
import { createBashTools, renderRunResult } from "@shellseam/bash/tool";
import { parseFlags } from "./_args.ts";
import type { CliIo, CliStream } from "./_io.ts";
import { StatusLine } from "./_status_line.ts";
import { styleFor } from "./_style.ts";
import { formatDoctorReport, SandboxBashExecutor, shellseamDoctor } from "@shellseam/bash/sandbox";

/**
 * Where the tour prints: stdout for what it shows, and (stderr a terminal)
 * a status line that names the section and the seconds since the start.
 */
class Tour implements Disposable {
  #title = "starting";
  readonly #stdout: CliStream;
  readonly #status: StatusLine;

  /** A tour printing to `io`'s streams. */
  constructor(io: CliIo) {
    this.#stdout = io.stdout;
    this.#status = new StatusLine(
      io.stderr,
      (seconds) => `shellseam demo: ${this.#title} (${seconds} s)`,
    );
  }

  /** Prints `text` and a newline on stdout, below the status line. */
  say(text: string): void {
    this.#status.write(this.#stdout, `${text}\n`);
  }

  /** Starts a section: its title, bold on a terminal. */
  section(title: string): void {
    this.#title = title;
    this.say(`\n${styleFor(this.#stdout).bold(`== ${title}`)}`);
  }

  /** What the model would see of `result`, then its facts. */
  show(result: BashRunResult): void {
    this.say(renderRunResult(result).text.replace(/^/gm, "  | "));
    const out = result.stdout;
    this.say(
      `exitCode=${result.exitCode} signal=${result.signal} timedOut=${result.timedOut} ` +
        `aborted=${result.aborted} durationMs=${Math.round(result.durationMs)} ` +
        `strays.killed=${result.strays.killed}`,
    );
    this.say(
      `stdout: ${out.totalBytes} bytes, truncated=${out.truncated}, ` +
        `omitted=${out.omittedBytes}, spill=${out.spillPath ?? "(none)"}`,
    );
  }

  /** Clears the status line. */
  [Symbol.dispose](): void {
    this.#status[Symbol.dispose]();
  }
}

/** The usage of `shellseam demo`. */
export const DEMO_USAGE: string = `Usage: shellseam demo

Runs a short tour: real commands through the local executor, the model-facing
tools and the sandbox, printing what each returned.
`;

/**
 * `shellseam demo`: runs the tour in a temporary workspace, removed
 * afterwards, printing to `io`.
 */
export async function demoCommand(args: string[], io: CliIo): Promise<number> {
  if (parseFlags(args, {}, DEMO_USAGE).values.help) {
    io.stdout.write(DEMO_USAGE);
    return 0;
  }
  const workspace = mkdtempSync(join(tmpdir(), "shellseam-demo-"));
  using tour = new Tour(io);
  try {
    await using local = new LocalBashExecutor({ cwd: workspace });
    const run = (command: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
      local.run({ command, ...extra });

    tour.section("A command, its output and its exit code");
    tour.show(await run("echo hello from $(basename $PWD); echo oops >&2; exit 3"));

    tour.section("Large output: head and tail in memory, every byte in a spill file");
    await using small = new LocalBashExecutor({
      cwd: workspace,
      maxOutputBytes: 120,
      headBytes: 40,
    });
    tour.show(await small.run({ command: "seq 1 200000" }));

    tour.section("A wall-clock timeout kills the process group");
    tour.show(await run("echo starting; sleep 30", { timeoutMs: 1000 }));

    tour.section("An abort kills it too");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    tour.show(await run("sleep 30", { signal: controller.signal }));

    tour.section("A foreground command leaves nothing behind");
    tour.show(await run("sleep 60 & echo started a background sleep"));

    tour.section("A missing workdir is a typed error, not a result");
    try {
      await local.run({ command: "true", workdir: "/nonexistent/dir" });
    } catch (error) {
      tour.say(`${(error as Error).name}: ${(error as Error).message}`);
      tour.say(`instanceof BashSpawnError: ${error instanceof BashSpawnError}`);
    }

    tour.section("Model-facing tools: a background task, its notice and its output");
    await using tasks = new TaskRegistry();
    const tools = createBashTools({ executor: local, tasks, owner: taskOwner("demo-session") });
    const started = await tools.bash.execute({
      command: "for i in 1 2 3; do echo tick $i; sleep 0.2; done",
      description: "Print three ticks",
      run_in_background: true,
    });
    tour.say(started.text);
    const taskId = started.text.match(/bash-\d+/)?.[0];
    if (taskId === undefined) {
      throw new Error(`No task id in the bash tool's answer: ${started.text}`);
    }
    // A harness checks for notices between model turns; here, every 100 ms.
    let notices: string[] = [];
    while (notices.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      notices = tools.takeNotices();
    }
    tour.say(notices.join("\n"));
    tour.say((await tools.taskOutput.execute({ task_id: taskId })).text);

    tour.section("The sandbox: what this machine can enforce");
    const report = await shellseamDoctor({ workspaceRoot: workspace });
    tour.say(formatDoctorReport(report));
    for (const status of report.backends.filter((b) => b.works)) {
      await using sandboxed = new SandboxBashExecutor({
        workspaceRoot: workspace,
        defaultMode: "workspace-write",
        backends: [status.backend],
      });
      const command =
        "echo inside > inside.txt && cat inside.txt; echo outside > /etc/shellseam-demo";
      tour.say(`\n[${status.backend}, workspace-write] $ ${command}`);
      const result = await sandboxed.run({ command });
      tour.say(renderRunResult(result).text.replace(/^/gm, "  | "));
      tour.say(`sandbox: ${JSON.stringify(result.sandbox)}`);
    }

    if (report.selected !== null) {
      tour.section("Escalation: a denial, then one approved retry");
      await using readOnly = new SandboxBashExecutor({ workspaceRoot: workspace });
      const session = createBashTools({
        executor: readOnly,
        tasks,
        owner: taskOwner("demo-session"),
        approve: (request) => {
          tour.say(`  (a person is asked: ${JSON.stringify(request)} -> allow-once)`);
          return Promise.resolve("allow-once");
        },
      });
      const write = {
        command: "echo note > notes.txt && cat notes.txt",
        description: "Write notes",
      };
      tour.say((await session.bash.execute(write)).text.replace(/^/gm, "  | "));
      const retry = {
        ...write,
        sandbox_permissions: "workspace-write",
        justification: "The task asks for a notes file in the workspace",
      };
      tour.say((await session.bash.execute(retry)).text.replace(/^/gm, "  | "));
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  return 0;
}
