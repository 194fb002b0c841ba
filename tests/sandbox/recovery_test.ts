// Confined calls after a fault outside the executor's control: its pooled
// cgroups removed by a cleanup script, its standby killed while it waits,
// a cgroup the launch cannot join.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import process from "node:process";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { SandboxBashExecutor, type SandboxBashExecutorConfig } from "../../sandbox/mod.ts";
import { withPlan } from "../engine/_plan.ts";
import { removeIdleCgroups } from "../local/_helpers.ts";
import {
  executorFor,
  oneStandby,
  probeHere,
  SANDBOX_BACKENDS_HERE,
  skipUnless,
  tempWorkspace,
} from "./_fixtures.ts";

const statuses = await probeHere();
const support = cgroupSupport();
const noCgroup = "unavailable" in support.processes
  ? `no cgroup for "processes" here (standbys hold cgroups): ${support.processes.unavailable}`
  : false;

/** Waits until process `pid` (a standby) is in this executor's cgroups. */
async function joined(pid: number): Promise<void> {
  for (const deadline = Date.now() + 30_000;;) {
    const groups = readFileSync(`/proc/${pid}/cgroup`, "utf8");
    if (groups.includes(`shellseam-exec-${process.pid}-`)) return;
    assert.ok(Date.now() < deadline, `the standby ${pid} never joined its cgroups: ${groups}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Plans every launch with a cgroup that does not exist, so that joining it fails. */
class UnjoinableCgroup extends SandboxBashExecutor {
  constructor(config: SandboxBashExecutorConfig) {
    super({
      ...config,
      ...withPlan((spec, launch, limits, inner) =>
        inner.plan(spec, launch, {
          rlimits: limits.rlimits,
          cgroupProcs: ["/nonexistent-shellseam/cgroup.procs"],
        })
      ),
    });
  }
}

for (const backend of SANDBOX_BACKENDS_HERE) {
  const skip = skipUnless(statuses, backend);
  describe(`${backend} after a fault outside the executor`, () => {
    it("runs every call when its idle cgroups were removed, again and again", {
      skip: skip || noCgroup,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { limits: { processes: 64 } });
      await executor.run({ command: "true" });
      for (let round = 0; round < 4; round++) {
        // With stdin, a cold start in a cgroup of its own, idle afterwards (the standby
        // waits on); without, the standby runs it, and the next standby takes an idle one.
        for (const stdin of ["in", undefined]) {
          const result = await executor.run({
            command: `cat; echo round-${round}`,
            ...(stdin === undefined ? {} : { stdin }),
          });
          assert.deepEqual(
            [result.exitCode, result.stdout.text, result.sandbox?.runnerFailed],
            [0, `${stdin ?? ""}round-${round}\n`, false],
            result.stderr.text,
          );
          assert.match(result.limits?.mechanisms.processes ?? "", /^cgroup v[12]$/);
          // A waiting standby holds its cgroups (so they stay) once it joined them; every idle
          // one goes. Before its join its cgroups are empty, and a removal then would be a
          // different fault (the standby's join fails and the next call starts cold).
          await joined(await oneStandby(backend));
          const removed = removeIdleCgroups();
          if (stdin !== undefined) assert.ok(removed > 0, "an idle cgroup was removed");
        }
      }
    });

    it("starts the call as usual when its standby died just before, 10 times in a row", {
      skip: skip || noCgroup,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      await executor.run({ command: "true" });
      for (let round = 0; round < 10; round++) {
        process.kill(await oneStandby(backend), "SIGKILL");
        const result = await executor.run({ command: `echo round-${round}` });
        assert.deepEqual(
          [result.exitCode, result.signal, result.stdout.text, result.sandbox?.runnerFailed],
          [0, null, `round-${round}\n`, false],
          `round ${round}: ${result.stderr.text}`,
        );
      }
    });

    it("says the runner failed when the launch could not join its cgroup", { skip }, async () => {
      using workspace = tempWorkspace();
      await using executor = new UnjoinableCgroup({
        workspaceRoot: workspace.root,
        backends: [backend],
      });
      const result = await executor.run({ command: "echo ran" });
      assert.equal(result.exitCode, 125);
      assert.equal(result.stdout.text, "");
      assert.match(result.stderr.text, /could not move the command into the cgroup/);
      assert.equal(result.sandbox?.runnerFailed, true);
    });
  });
}
