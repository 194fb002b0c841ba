// A kill (a timeout, an abort, task_kill, disposal) reaches a command's
// processes outside its session too: found by the SHELLSEAM_WATCHDOG marker
// in their environment (a child that called setsid; the processes of a
// bubblewrap pid namespace whose setup a kill interrupted).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import {
  assertNoneLeft,
  leavesOnTermCommand,
  marker,
  pause,
  processesWith,
  waitForSleep,
} from "../local/_helpers.ts";
import { probeHere, skipUnless } from "../sandbox/_fixtures.ts";

const probes = await probeHere();

describe("a kill", () => {
  it("reaches a child that left the command's session, and counts it", async () => {
    await using executor = new LocalBashExecutor();
    const token = marker();
    const controller = new AbortController();
    const running = executor.run(executor.resolve({
      command: `setsid sleep ${token} >/dev/null 2>&1 & sleep 100`,
      signal: controller.signal,
    }));
    // The kill comes once the child has left the session (a clock from the call,
    // a 300 ms timeout, came first on a loaded machine: nothing had left yet).
    await waitForSleep(token);
    controller.abort();
    const result = await running;
    assert.equal(result.aborted, true);
    // The shell, its sleep 100 and the escapee.
    assert.ok(result.strays.killed >= 1, JSON.stringify(result.strays));
    assert.deepEqual(result.strays.survivors, []);
    await assertNoneLeft(token);
  });

  it("after a command that ended by itself, still reaches its setsid child, and counts it", async () => {
    await using executor = new LocalBashExecutor();
    const token = marker();
    const result = await executor.run(executor.resolve({
      command: `setsid sleep ${token} >/dev/null 2>&1 & echo started`,
    }));
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.text, "started\n");
    assert.equal(result.strays.killed, 1, JSON.stringify(result.strays));
    assert.deepEqual(result.strays.survivors, []);
    await assertNoneLeft(token);
    // A background command too; an escapee that dropped the marker is out of reach.
    const kept = marker();
    const unmarked = marker();
    // The shell ends only once both children left its session: on a loaded machine a child
    // still in the session when the shell exits is killed as a member, which is not this case.
    const task = await executor.start(executor.resolve({
      command: `setsid sleep ${kept} >/dev/null 2>&1 & a=$!; ` +
        `env -u SHELLSEAM_WATCHDOG setsid sleep ${unmarked} >/dev/null 2>&1 & b=$!; ` +
        `sid() { ps -o sid= -p "$1" | tr -d ' '; }; ` +
        `while [ "$(sid $a)" = $$ ] || [ "$(sid $b)" = $$ ]; do sleep 0.01; done; echo started`,
    }));
    try {
      await task.done;
      assert.equal(task.strays?.killed, 1, JSON.stringify(task.strays));
      await assertNoneLeft(kept);
      assert.equal(processesWith(unmarked).length, 1, "the unmarked escapee is out of reach");
    } finally {
      for (const pid of processesWith(unmarked)) process.kill(pid, "SIGKILL");
    }
  });

  it("after a command that ended by itself, kills a child that left the session at the group's signal", async () => {
    // Without a cgroup, whose cleanup would kill it too: the census alone must find it.
    await using executor = new LocalBashExecutor({ useCgroups: false });
    const token = marker();
    const result = await executor.run(executor.resolve({ command: leavesOnTermCommand(token) }));
    assert.equal(result.stdout.text, "started\n");
    assert.deepEqual(result.strays.survivors, []);
    await assertNoneLeft(token);
  });

  it("leaves nothing of a bubblewrap command aborted as it starts", {
    skip: skipUnless(probes, "bwrap"),
  }, async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-kill-")));
    try {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: base,
        defaultMode: "workspace-write",
        backends: ["bwrap"],
      });
      // Aborted while bubblewrap may still be setting up its namespace, which
      // could leave the namespace's processes in a session of their own.
      for (let round = 0; round < 8; round++) {
        const token = `kill-reach-${crypto.randomUUID()}`;
        const controller = new AbortController();
        const running = executor.run(executor.resolve({
          command: `sleep 300; : ${token}`,
          signal: controller.signal,
        }));
        while (processesWith(token).length === 0) await pause(5);
        controller.abort();
        assert.equal((await running).aborted, true);
        assert.deepEqual(processesWith(token), [], `round ${round} left processes`);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
