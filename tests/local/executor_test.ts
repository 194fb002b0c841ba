import { describe } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { LocalBashExecutor, type LocalBashExecutorConfig } from "../../local/mod.ts";
import type { Launch, LaunchOutcome } from "../../engine/mod.ts";
import { withPlan } from "../engine/_plan.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { renderRunResult } from "../../tool/mod.ts";
import { marker, processesWith, waitForSleep } from "./_helpers.ts";
import { it } from "./_executor.ts";

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

describe("LocalBashExecutor's launch plan", () => {
  /** What a planning test sees and sets: the launches, their outcomes, a failure to plan. */
  interface Seen {
    launches: Launch[];
    outcomes: LaunchOutcome[];
    fail: Error | null;
  }

  /** An executor whose confiner's plan `seen` watches. */
  class Planned extends LocalBashExecutor {
    readonly #seen: Seen;

    constructor(config: LocalBashExecutorConfig = {}) {
      const seen: Seen = { launches: [], outcomes: [], fail: null };
      super({
        ...config,
        ...withPlan((spec, launch) => {
          seen.launches.push(launch);
          if (seen.fail) return Promise.reject(seen.fail);
          return Promise.resolve({
            launch: { ...launch, args: ["-c", `echo planned; ${spec.command}`] },
            describe: (outcome) => {
              seen.outcomes.push(outcome);
              return { mode: "read-only", backend: "none", denied: outcome.exitCode === 3 };
            },
          });
        }),
      });
      this.#seen = seen;
    }
    get launches(): Launch[] {
      return this.#seen.launches;
    }
    get outcomes(): LaunchOutcome[] {
      return this.#seen.outcomes;
    }
    set fail(error: Error | null) {
      this.#seen.fail = error;
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
    await using executor = new LocalBashExecutor({
      ...withPlan((spec, launch) => {
        if (spec.command === "true") launch.env.LEAKED = "yes";
        return Promise.resolve({ launch });
      }),
    });
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
