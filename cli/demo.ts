/**
 * `shellseam demo` (and `deno task demo`): a short tour of shellseam that
 * runs real commands and prints what each one returned.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type BashRunResult, BashSpawnError } from "@shellseam/bash";
import { LocalBashExecutor } from "@shellseam/bash/local";
import { taskOwner, TaskRegistry } from "@shellseam/bash/tasks";
import { createBashTools, renderRunResult } from "@shellseam/bash/tool";
import { parseFlags } from "./_args.ts";
import { formatDoctorReport, SandboxBashExecutor, shellseamDoctor } from "@shellseam/bash/sandbox";

function section(title: string): void {
  console.log(`\n== ${title}`);
}

function facts(result: BashRunResult): void {
  const out = result.stdout;
  console.log(
    `exitCode=${result.exitCode} signal=${result.signal} timedOut=${result.timedOut} ` +
      `aborted=${result.aborted} durationMs=${Math.round(result.durationMs)} ` +
      `strays.killed=${result.strays.killed}`,
  );
  console.log(
    `stdout: ${out.totalBytes} bytes, truncated=${out.truncated}, ` +
      `omitted=${out.omittedBytes}, spill=${out.spillPath ?? "(none)"}`,
  );
}

function show(result: BashRunResult): void {
  console.log(renderRunResult(result).text.replace(/^/gm, "  | "));
  facts(result);
}

/** The usage of `shellseam demo`. */
export const DEMO_USAGE: string = `Usage: shellseam demo

Runs a short tour: real commands through the local executor, the model-facing
tools and the sandbox, printing what each returned.
`;

/** `shellseam demo`: runs the tour in a temporary workspace, removed afterwards. */
export async function demoCommand(args: string[] = []): Promise<number> {
  if (parseFlags(args, {}, DEMO_USAGE).values.help) {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const workspace = mkdtempSync(join(tmpdir(), "shellseam-demo-"));
  try {
    await using local = new LocalBashExecutor({ cwd: workspace });
    const run = (command: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
      local.run({ command, ...extra });

    section("A command, its output and its exit code");
    show(await run("echo hello from $(basename $PWD); echo oops >&2; exit 3"));

    section("Large output: head and tail in memory, every byte in a spill file");
    await using small = new LocalBashExecutor({
      cwd: workspace,
      maxOutputBytes: 120,
      headBytes: 40,
    });
    show(await small.run({ command: "seq 1 200000" }));

    section("A wall-clock timeout kills the process group");
    show(await run("echo starting; sleep 30", { timeoutMs: 1000 }));

    section("An abort kills it too");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    show(await run("sleep 30", { signal: controller.signal }));

    section("A foreground command leaves nothing behind");
    show(await run("sleep 60 & echo started a background sleep"));

    section("A missing workdir is a typed error, not a result");
    try {
      await local.run({ command: "true", workdir: "/nonexistent/dir" });
    } catch (error) {
      console.log(`${(error as Error).name}: ${(error as Error).message}`);
      console.log(`instanceof BashSpawnError: ${error instanceof BashSpawnError}`);
    }

    section("Model-facing tools: a background task, its notice and its output");
    await using tasks = new TaskRegistry();
    const tools = createBashTools({ executor: local, tasks, owner: taskOwner("demo-session") });
    const started = await tools.bash.execute({
      command: "for i in 1 2 3; do echo tick $i; sleep 0.2; done",
      description: "Print three ticks",
      run_in_background: true,
    });
    console.log(started.text);
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
    console.log(notices.join("\n"));
    console.log((await tools.taskOutput.execute({ task_id: taskId })).text);

    section("The sandbox: what this machine can enforce");
    const report = await shellseamDoctor({ workspaceRoot: workspace });
    console.log(formatDoctorReport(report));
    for (const status of report.backends.filter((b) => b.works)) {
      await using sandboxed = new SandboxBashExecutor({
        workspaceRoot: workspace,
        defaultMode: "workspace-write",
        backends: [status.backend],
      });
      const command =
        "echo inside > inside.txt && cat inside.txt; echo outside > /etc/shellseam-demo";
      console.log(`\n[${status.backend}, workspace-write] $ ${command}`);
      const result = await sandboxed.run({ command });
      console.log(renderRunResult(result).text.replace(/^/gm, "  | "));
      console.log(`sandbox: ${JSON.stringify(result.sandbox)}`);
    }

    if (report.selected !== null) {
      section("Escalation: a denial, then one approved retry");
      await using readOnly = new SandboxBashExecutor({ workspaceRoot: workspace });
      const session = createBashTools({
        executor: readOnly,
        tasks,
        owner: taskOwner("demo-session"),
        approve: (request) => {
          console.log(`  (a person is asked: ${JSON.stringify(request)} -> allow-once)`);
          return Promise.resolve("allow-once");
        },
      });
      const write = {
        command: "echo note > notes.txt && cat notes.txt",
        description: "Write notes",
      };
      console.log((await session.bash.execute(write)).text.replace(/^/gm, "  | "));
      const retry = {
        ...write,
        sandbox_permissions: "workspace-write",
        justification: "The task asks for a notes file in the workspace",
      };
      console.log((await session.bash.execute(retry)).text.replace(/^/gm, "  | "));
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  return 0;
}
