// What the engine does by the platform's facts (runtime/_platform.ts), each
// platform said through an injected runtime: Windows refused at
// construction, macOS's limits and census gaps said once per executor, no
// cgroup looked for where there are none.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LocalBashExecutor, platformFacts, runtime } from "../../local/mod.ts";
import { BashConfigError } from "../../seam/mod.ts";
import { cgroupSupportFor } from "../../engine/_cgroup_support.ts";
import { MACOS_MEMORY_GAP, platformGaps } from "../../engine/_limits.ts";
import { hostPlatform } from "../../runtime/mod.ts";
import { withPlan } from "./_plan.ts";

const on = (os: string, proc = false) => ({ ...runtime, platform: platformFacts(os, proc) });

describe("the platform's facts", () => {
  it("are Linux's with /proc here, and each other platform's without", () => {
    assert.deepEqual(hostPlatform, {
      os: "linux",
      proc: true,
      ps: "procps",
      enforcesDataLimit: true,
    });
    assert.deepEqual(platformFacts("darwin", true), {
      os: "darwin",
      proc: false,
      ps: "bsd",
      enforcesDataLimit: false,
    });
    assert.equal(platformFacts("linux", false).proc, false);
  });
});

describe("an executor on native Windows", () => {
  it("fails at construction with BashConfigError saying to run under WSL2", () => {
    assert.throws(
      () => new LocalBashExecutor({ runtime: on("win32") }),
      (error: unknown) => error instanceof BashConfigError && /WSL2/.test(error.message),
    );
  });
});

describe("the gaps of a platform without /proc", () => {
  it("name the stray that cleared its environment (a memory limit is each call's to hear of)", () => {
    const darwin = platformGaps(platformFacts("darwin", false));
    assert.equal(darwin.length, 1);
    assert.match(darwin[0]!, /clears its environment cannot be found on macOS/);
    assert.deepEqual(platformGaps(hostPlatform), []);
  });

  it("look for no cgroup on macOS, and say why", () => {
    const support = cgroupSupportFor(true, { processes: 10 }, "darwin");
    assert.deepEqual(support.processes, { unavailable: "there are no cgroups on macOS" });
  });

  it("are said on the first result's strays, and on no later one; a memory limit on each call that asks for it", async () => {
    await using executor = new LocalBashExecutor({
      runtime: on("darwin"),
      limits: { memoryBytes: 2 ** 30, cpuSeconds: 60 },
    });
    const first = await executor.run(executor.resolve({ command: "true" }));
    const second = await executor.run(executor.resolve({ command: "true" }));
    assert.deepEqual(first.strays.gaps, platformGaps(platformFacts("darwin", false)));
    assert.equal(second.strays.gaps, undefined);
    const gaps = first.limits?.gaps ?? [];
    assert.ok(gaps.includes(MACOS_MEMORY_GAP), gaps.join(" | "));
    assert.ok(!gaps.some((gap) => gap.startsWith("memory: RLIMIT_DATA")), gaps.join(" | "));
    assert.ok(!gaps.some((gap) => gap.includes("/proc/self")), gaps.join(" | "));
    const later = second.limits?.gaps ?? [];
    assert.ok(later.length > 0, "the per-process rlimit gap is still said");
    // This call asked for a memory limit too: it is told the limit does not hold.
    assert.ok(later.includes(MACOS_MEMORY_GAP), later.join(" | "));
  });

  it("reach an executor without limits too, on its first command, background or not", async () => {
    await using executor = new LocalBashExecutor({ runtime: on("darwin") });
    const process = await executor.start(executor.resolve({ command: "true" }));
    await process.done;
    const second = await executor.run(executor.resolve({ command: "true" }));
    assert.equal(second.limits, undefined);
    assert.deepEqual(process.strays?.gaps, platformGaps(platformFacts("darwin", false)));
    assert.equal(second.strays.gaps, undefined);
    // A confined result says it in its enforcement's gaps too, once.
    await using confined = new LocalBashExecutor({
      runtime: on("linux"),
      ...withPlan((_spec, launch) =>
        Promise.resolve({
          launch,
          describe: () => ({
            mode: "read-only",
            backend: "bwrap",
            denied: false,
            enforcement: { filesystem: "full", network: "full", gaps: [] },
          }),
        })
      ),
    });
    const [one, two] = [
      await confined.run(confined.resolve({ command: "true" })),
      await confined.run(confined.resolve({ command: "true" })),
    ];
    assert.deepEqual(one.sandbox?.enforcement?.gaps, platformGaps(platformFacts("linux", false)));
    assert.deepEqual(two.sandbox?.enforcement?.gaps, []);
    // Linux reads /proc: nothing to say.
    await using linux = new LocalBashExecutor();
    assert.equal((await linux.run(linux.resolve({ command: "true" }))).strays.gaps, undefined);
  });
});
