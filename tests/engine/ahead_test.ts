// A plan's process started ahead (LaunchPlan.takeAhead) and its hook after
// the call (LaunchPlan.afterSettle), as any confiner may use them: the
// engine runs the call in the process the plan takes, or spawns the plan's
// cold launch when it takes none, and calls afterSettle once the caller has
// the result. The sandbox's standby is built on these (tests/sandbox/standby_test.ts).
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { runtime } from "../../runtime/mod.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import type { CgroupSlot } from "../../engine/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { type AheadParts, startAhead } from "../../engine/_ahead.ts";
import { resolveConfig } from "../../engine/mod.ts";
import { ProcessControl } from "../../engine/_control.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { withPlan } from "./_plan.ts";
import { it } from "../local/_executor.ts";

const support = cgroupSupport();
const noCgroup = "unavailable" in support.processes
  ? `no cgroup for "processes" here: ${support.processes.unavailable}`
  : undefined;

describe("a process started ahead", () => {
  it("vets what it runs unconfined besides its own program, and spawns nothing when one is refused", async () => {
    const vetted: string[][] = [];
    const spawned: string[] = [];
    const config = resolveConfig({});
    const parts: AheadParts = {
      config: () => ({
        ...config,
        runtime: {
          ...runtime,
          spawn: (request) => {
            spawned.push(request.program);
            return runtime.spawn(request);
          },
        },
      }),
      watchdog: () => null,
      control: () => {
        throw new Error("nothing was spawned to control");
      },
      disposed: () => false,
      vet: (programs) => {
        vetted.push([...programs]);
        if (programs.includes("/planted/bwrap")) throw new BashSpawnError("refused");
      },
    };
    const launch = { program: "/usr/bin/bash", args: ["-c", "true"], cwd: "/", env: {} };
    await assert.rejects(startAhead(parts, launch, ["/planted/bwrap"]), /refused/);
    assert.deepEqual(spawned, []);
    assert.deepEqual(vetted.length, 1);
    assert.ok(vetted[0]!.includes("/usr/bin/bash") && vetted[0]!.includes("/planted/bwrap"));
  });

  it("starts through the setsid binary only where the runtime's own session costs more", async () => {
    const config = resolveConfig({ sessionStrategy: "setsid-binary" });
    const setsid = config.setsidPath!;
    const launch = { program: "/usr/bin/bash", args: ["-c", "exit 0"], cwd: "/", env: {} };
    const started = async (autoSession: "detached" | "setsid-binary") => {
      const spawned: { program: string; session: string }[] = [];
      const vetted: string[][] = [];
      const parts: AheadParts = {
        config: () => ({
          ...config,
          runtime: {
            ...runtime,
            autoSession,
            spawn: (request) => {
              spawned.push({ program: request.program, session: request.session });
              return runtime.spawn(request);
            },
          },
        }),
        watchdog: () => null,
        control: () => new ProcessControl(runtime, null),
        disposed: () => false,
        vet: (programs) => void vetted.push([...programs]),
      };
      const { child } = await startAhead(parts, launch);
      child.ref();
      await child.stdin?.close();
      await Promise.all([child.exited, child.stdout.cancel(), child.stderr.cancel()]);
      return { spawned, vetted };
    };
    // Node's: every spawn forks, and `detached` adds a setsid() in the child, no exec.
    assert.deepEqual(await started("detached"), {
      spawned: [{ program: "/usr/bin/bash", session: "detached" }],
      vetted: [["/usr/bin/bash"]],
    });
    // Deno's: `detached` forks the whole process, where the setsid binary execs.
    assert.deepEqual(await started("setsid-binary"), {
      spawned: [{ program: setsid, session: "setsid-binary" }],
      vetted: [[setsid, "/usr/bin/bash"]],
    });
  });
});

describe("a plan's process started ahead", () => {
  it("spawns the cold launch when takeAhead takes none, and calls afterSettle after the result", async () => {
    const steps: string[] = [];
    await using executor = new LocalBashExecutor(withPlan((_spec, launch) =>
      Promise.resolve({
        launch,
        takeAhead: () => {
          steps.push("take");
          return Promise.resolve(undefined);
        },
        afterSettle: () => void steps.push("after"),
      })
    ));
    const result = await executor.run({ command: "echo cold" });
    steps.push("result");
    assert.deepEqual([result.stdout.text, result.exitCode], ["cold\n", 0]);
    await new Promise((done) => setTimeout(done, 50));
    assert.deepEqual(steps, ["take", "result", "after"]);
  });

  it("fails the call when takeAhead rejects, and runs the next one", async () => {
    let calls = 0;
    await using executor = new LocalBashExecutor(withPlan((_spec, launch) =>
      Promise.resolve({
        launch,
        takeAhead: () =>
          ++calls === 1 ? Promise.reject(new Error("broken")) : Promise.resolve(undefined),
      })
    ));
    await assert.rejects(executor.run({ command: "echo never" }), /broken/);
    const after = await executor.run({ command: "echo next" });
    assert.equal(after.stdout.text, "next\n");
  });

  const skip = noCgroup ?? false;
  nodeIt(
    "runs the call in the process takeAhead gives, in the cgroups it joined, never making the cold launch",
    { skip },
    async () => {
      const slots: CgroupSlot[] = [];
      // A confiner may make its launch only when it is read (the sandbox does).
      let launchReads = 0;
      await using executor = new LocalBashExecutor({
        limits: { processes: 64 },
        ...withPlan((_spec, launch, limits) => {
          if (limits.cgroups !== undefined) slots.push(limits.cgroups);
          return Promise.resolve({
            get launch() {
              launchReads++;
              return { ...launch, args: [...launch.args.slice(0, -1), "echo cold"] };
            },
            takeAhead: async () => {
              const cgroup = await limits.cgroups!.make();
              const child = await runtime.spawn({
                program: "/bin/sh",
                args: [
                  "-c",
                  `for f in "$@"; do echo $$ > "$f" || exit 9; done; ` +
                  "grep -c shellseam- /proc/self/cgroup",
                  "ahead",
                  ...cgroup.procsFiles,
                ],
                cwd: "/",
                env: {},
                stdin: "null",
                session: "detached",
              });
              return { child, cgroup, forksAtSpawn: null };
            },
          });
        }),
      });
      const result = await executor.run({ command: "echo planned" });
      // Not the cold launch: the process ahead ran, in the cgroups the slot made (the pids one at least).
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.ok(Number(result.stdout.text.trim()) >= 1, result.stdout.text);
      assert.deepEqual(slots.map((slot) => [slot.key, slot.limits.processes]), [["processes", 64]]);
      assert.equal(launchReads, 0);
    },
  );
});
