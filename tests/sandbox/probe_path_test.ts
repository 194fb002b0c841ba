import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BashExecSpec } from "../../seam/mod.ts";
import type { Launch, LaunchPlan } from "../../local/mod.ts";
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
