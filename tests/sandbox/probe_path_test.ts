import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BashExecSpec } from "../../seam/mod.ts";
import type { Launch, LaunchLimits, LaunchPlan } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { probeHere, tempWorkspace } from "./_fixtures.ts";

const statuses = await probeHere();

/** Counts the launches planned through planLaunch. */
class Counting extends SandboxBashExecutor {
  planned: string[] = [];
  protected override planLaunch(spec: BashExecSpec, launch: Launch): Promise<LaunchPlan> {
    this.planned.push(spec.command);
    return super.planLaunch(spec, launch);
  }
}

/** Keeps the plans it makes. */
class Recording extends SandboxBashExecutor {
  plans: LaunchPlan[] = [];
  protected override async planLaunch(
    spec: BashExecSpec,
    launch: Launch,
    limits?: LaunchLimits,
  ): Promise<LaunchPlan> {
    const plan = await super.planLaunch(spec, launch, limits);
    this.plans.push(plan);
    return plan;
  }
}

describe("the sandbox's launch plan", () => {
  it("applies the limits it is given, and leaves them to the executor when not given", {
    skip: statuses.bwrap.works ? false : "bwrap does not work here",
  }, async () => {
    using workspace = tempWorkspace();
    await using counting = new Counting({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      limits: { fileSizeBytes: 4096 },
    });
    const result = await counting.run({ command: "ulimit -f" });
    assert.equal(result.stdout.text, "4\n", "an override that drops them still gets them");
  });

  for (const backend of ["bwrap", "landlock"] as const) {
    it(`says whether the command lives in a pid namespace of its own (${backend})`, {
      skip: statuses[backend].works ? false : `${backend} does not work here`,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = new Recording({ workspaceRoot: workspace.root, backends: [backend] });
      await executor.run({ command: "true" });
      await executor.run({
        command: "true",
        sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
      });
      // Under Landlock a process that called setsid is found only by its marker.
      assert.deepEqual(
        executor.plans.map((plan) => plan.pidNamespace === true),
        [backend === "bwrap", false],
      );
      assert.equal(executor.plans[0]?.limitsApplied, true);
    });
  }
});

describe("the sandbox's backend probe", () => {
  for (const backend of ["bwrap", "landlock"] as const) {
    it(`takes its own path, not planLaunch (${backend})`, {
      skip: statuses[backend].works ? false : `${backend} does not work here`,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = new Counting({ workspaceRoot: workspace.root, backends: [backend] });
      const result = await executor.run({ command: "echo confined" });
      assert.equal(result.stdout.text, "confined\n");
      assert.equal(result.sandbox?.backend, backend);
      assert.deepEqual((await executor.probeBackends()).map((status) => status.works), [true]);
      assert.deepEqual(executor.planned, ["echo confined"]);
    });
  }
});
