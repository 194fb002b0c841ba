import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LaunchPlan } from "../../engine/mod.ts";
import { SandboxBashExecutor, type SandboxBashExecutorConfig } from "../../sandbox/mod.ts";
import { withPlan } from "../engine/_plan.ts";
import { probeHere, tempWorkspace } from "./_fixtures.ts";

const statuses = await probeHere();

/** Counts the launches its confiner plans (the probes take their own path). */
class Counting extends SandboxBashExecutor {
  readonly planned: string[];

  constructor(config: SandboxBashExecutorConfig) {
    const planned: string[] = [];
    super({
      ...config,
      ...withPlan((spec, launch, limits, inner) => {
        planned.push(spec.command);
        return inner.plan(spec, launch, limits);
      }),
    });
    this.planned = planned;
  }
}

/** Keeps the plans its confiner makes. */
class Recording extends SandboxBashExecutor {
  readonly plans: LaunchPlan[];

  constructor(config: SandboxBashExecutorConfig) {
    const plans: LaunchPlan[] = [];
    super({
      ...config,
      ...withPlan(async (spec, launch, limits, inner) => {
        const plan = await inner.plan(spec, launch, limits);
        plans.push(plan);
        return plan;
      }),
    });
    this.plans = plans;
  }
}

describe("the sandbox's launch plan", () => {
  it("applies the limits it is given", {
    skip: statuses.bwrap.works ? false : "bwrap does not work here",
  }, async () => {
    using workspace = tempWorkspace();
    await using counting = new Counting({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      limits: { fileSizeBytes: 4096 },
    });
    const result = await counting.run({ command: "ulimit -f" });
    assert.equal(result.stdout.text, "4\n");
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
    it(`takes its own path, not the confiner's plan (${backend})`, {
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
