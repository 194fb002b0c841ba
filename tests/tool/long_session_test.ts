import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { taskOwner, TaskRegistry, type TaskRegistryOptions } from "../../tasks/mod.ts";
import { type BashTools, createBashTools } from "../../tool/mod.ts";
import { assertNoneLeft, marker, pause, PeekExecutor, waitForSleep } from "../local/_helpers.ts";
import { FakeSandboxExecutor, lingeringProcess } from "./_fakes.ts";
import { stressSized } from "../_stress.ts";

interface LongSession extends BashTools {
  executor: PeekExecutor;
  tasks: TaskRegistry;
  spillFiles(): Promise<number>;
}

async function withLongSession(
  registry: TaskRegistryOptions,
  fn: (session: LongSession) => Promise<void>,
): Promise<void> {
  const executor = new PeekExecutor({ cwd: "/tmp" });
  const tasks = new TaskRegistry(registry);
  const tools = createBashTools({ executor, tasks, owner: taskOwner("alice") });
  const spillFiles = async () => readdirSync(await executor.dir()).length;
  try {
    await fn({ executor, tasks, spillFiles, ...tools });
  } finally {
    await tasks[Symbol.asyncDispose]();
    await executor[Symbol.asyncDispose]();
  }
}

/** Starts a background command through the tool and returns its task id. */
async function startTask(tools: BashTools, command: string): Promise<string> {
  const started = await tools.bash.execute({
    command,
    description: "Work in the background",
    run_in_background: true,
  });
  const id = /^started background task (\S+)$/.exec(started.text)?.[1];
  assert.ok(id !== undefined, started.text);
  return id;
}

/** Each task prints this many bytes: more than memory keeps, so each one spills. */
const PRINTED = 270_000;
const PRINT = `head -c ${PRINTED} /dev/zero | tr '\\0' x`;

/**
 * The tasks of each of the two rounds below: 50, so 100 in all, four times
 * the 25 kept (most tasks are let go, and the bound still holds); 500 under
 * `deno task test:stress`.
 */
const ROUND = stressSized(50, 500);

describe("a long session stays bounded", () => {
  // At full size, 1,000 real tasks take minutes on a loaded machine: its own
  // limit stops a hang (the Node leg's default of two minutes would stop a
  // slow pass).
  it(`keeps a bounded number of tasks, spill files and task_list lines over ${2 * ROUND} tasks`, {
    timeout: 900_000,
  }, async () => {
    const kept = 25;
    await withLongSession({ maxSettledTasksPerOwner: kept }, async (session) => {
      const after: { retained: number; spillFiles: number; listLines: number }[] = [];
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < ROUND; i++) {
          const id = await startTask(session, PRINT);
          const read = await session.taskOutput.execute({ task_id: id, wait: true });
          assert.match(read.text, /\[status: completed, exit code: 0\]$/);
        }
        const list = (await session.taskList.execute({})).text.split("\n");
        after.push({
          retained: session.tasks.list(taskOwner("alice")).length,
          spillFiles: await session.spillFiles(),
          listLines: list.length,
        });
        assert.equal(list.at(-1), `(${kept - 20} older finished tasks not shown)`);
      }
      const bounded = { retained: kept, spillFiles: kept, listLines: 21 };
      assert.deepEqual(after, [bounded, bounded]);
      assert.deepEqual(session.takeNotices(), [], "every task was seen");
    });
  });

  it("keeps a task whose end was not seen through any churn, until its notice is taken", async () => {
    await withLongSession({ maxSettledTasksPerOwner: 2 }, async (session) => {
      const unseen = await startTask(session, `${PRINT}; echo " end"`);
      // Observed with get(), which does not count as seeing the end (a wait would).
      while (session.tasks.get(unseen, taskOwner("alice")).status === "running") await pause(20);
      for (let i = 0; i < 40; i++) {
        await session.taskOutput.execute({ task_id: await startTask(session, PRINT), wait: true });
      }
      assert.equal(await session.spillFiles(), 3, "its spill file and those of the 2 kept");
      const [notice] = session.takeNotices();
      assert.match(notice ?? "", new RegExp(`^background task ${unseen} .* finished`));
      const read = await session.taskOutput.execute({ task_id: unseen });
      assert.match(read.text, /x end\n\[output lost: .*\]\n\[status: completed, exit code: 0\]$/);
      for (let i = 0; i < 2; i++) {
        await session.taskOutput.execute({ task_id: await startTask(session, "true"), wait: true });
      }
      assert.deepEqual(await session.taskOutput.execute({ task_id: unseen }), {
        text:
          `Task "${unseen}" is no longer kept: a finished task is let go a while after its final state was seen, and its output with it; run the command again if you need that output, and use task_list to see the tasks still kept`,
        isError: true,
      });
      assert.equal(await session.spillFiles(), 0, "released with the task");
    });
  });

  it("stops a task at the registry's maximum lifetime, with the reason in task_output", async () => {
    const token = marker();
    await withLongSession({ maxTaskLifetimeMs: 300 }, async (session) => {
      const id = await startTask(session, `echo up; sleep ${token}`);
      await waitForSleep(token);
      const read = await session.taskOutput.execute({ task_id: id, wait: true });
      assert.equal(
        read.text,
        'up\n[status: killed, signal: SIGTERM, kill reason: "ran longer than the maximum lifetime of 300 ms"]',
      );
      await assertNoneLeft(token);
    });
  });
});

describe("the running-task cap", () => {
  it("refuses a background command past the cap before starting it, naming task_kill", async () => {
    const executor = new FakeSandboxExecutor(null);
    executor.startProcess = (spec) => lingeringProcess(spec, 1);
    await using tasks = new TaskRegistry({ maxRunningTasksPerOwner: 2 });
    const tools = createBashTools({ executor, tasks, owner: taskOwner("alice") });
    await startTask(tools, "serve a");
    await startTask(tools, "serve b");
    const refused = await tools.bash.execute({
      command: "serve c",
      description: "One too many",
      run_in_background: true,
    });
    assert.equal(refused.isError, true);
    assert.equal(
      refused.text,
      "The command was not started: This session already has 2 running background tasks, the most allowed, so no new one was started; stop one you no longer need with task_kill (task_list shows them), then try again",
    );
    assert.equal(executor.starts.length, 2, "nothing was started");
    await tools.taskKill.execute({ task_id: "bash-1" });
    await startTask(tools, "serve c");
    assert.equal(executor.starts.length, 3);
  });
});
