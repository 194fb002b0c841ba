import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import { bashTaskHooks } from "../../tool/mod.ts";
import { renderTaskOutput } from "../../tool/render/mod.ts";
import { fakeProcess } from "./_fakes.ts";
import { marker } from "../local/_helpers.ts";

const spec = {
  command: "make",
  workdir: "/",
  timeoutMs: 1,
  stdoutMaxBytes: 1,
  sandboxPolicy: null,
};

describe("bashTaskHooks", () => {
  it("settles a completed process as completed with its exit code", async () => {
    const hooks = bashTaskHooks(fakeProcess(spec));
    assert.deepEqual(await hooks.done, { status: "completed", exitCode: 0, signal: null });
  });

  it("settles a process ended by a signal as killed", async () => {
    const hooks = bashTaskHooks(fakeProcess(spec, { status: "killed" }));
    assert.deepEqual(await hooks.done, { status: "killed", exitCode: null, signal: "SIGTERM" });
  });

  it("settles a sandbox runner failure as failed, with the backend named", async () => {
    const process = fakeProcess(spec, {
      sandbox: { mode: "read-only", backend: "landlock", denied: false, runnerFailed: true },
    });
    const settlement = await bashTaskHooks(process).done;
    assert.equal(settlement.status, "failed");
    assert.equal(settlement.error, "the landlock sandbox itself failed to run the command");
  });

  it("says disposed in the read, and the task rendering shows it, once disposal killed it", async () => {
    const executor = new LocalBashExecutor();
    const process = await executor.start(executor.resolve({ command: "sleep 30" }));
    const hooks = bashTaskHooks(process);
    assert.equal(hooks.readOutput?.().disposed, undefined);
    await executor[Symbol.asyncDispose]();
    const output = hooks.readOutput?.();
    assert.equal(output?.disposed, true);
    const snapshot = {
      id: "bash-1",
      kind: "bash",
      label: "sleep 30",
      status: "killed" as const,
      exitCode: null,
      signal: "SIGTERM",
      startedAt: 0,
    };
    assert.match(
      renderTaskOutput({ snapshot, output }),
      /^\(no new output\)\n\[stopped: the executor was shut down \(disposed\) before the command finished\]\n\[status: killed/,
    );
  });

  it("cancels by killing the process group", async () => {
    const process = fakeProcess(spec);
    await bashTaskHooks(process).cancel("stop");
    assert.equal(process.kills, 1);
  });

  it("reads consumingly and carries the sandbox facts", () => {
    const sandbox = { mode: "read-only" as const, backend: "bwrap" as const, denied: true };
    const hooks = bashTaskHooks(fakeProcess(spec, { stdout: "once\n", sandbox }));
    const first = hooks.readOutput?.();
    assert.equal(first?.stdout.text, "once\n");
    assert.deepEqual(first?.sandbox, sandbox);
    assert.equal(hooks.readOutput?.().stdout.text, "");
  });

  it("adds no sandbox key for an unsandboxed process", () => {
    const read = bashTaskHooks(fakeProcess(spec, { stdout: "x" })).readOutput?.();
    assert.equal(read !== undefined && "sandbox" in read, false);
  });

  it("carries the stray report of a settled process of the local executor", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start(
      executor.resolve({ command: `sleep ${marker()} >/dev/null 2>&1 & exit 0` }),
    );
    const hooks = bashTaskHooks(process);
    await hooks.done;
    assert.deepEqual(hooks.readOutput?.().strays, { killed: 1, survivors: [] });
  });
});
