// What an executor starts ahead at construction, off the first call's path:
// the first call's standby, and the first backend's probe unless that call's
// launch proves the backend. Seen through an injected runtime that records
// every spawn.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runtime } from "../../local/mod.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { WATCHDOG_NAME } from "../../engine/_watchdog.ts";
import { pause } from "../local/_helpers.ts";
import { withPlan } from "../engine/_plan.ts";
import {
  executorFor,
  probeHere,
  recording,
  SET_UP_TOKEN,
  skipUnless,
  STANDBY_TOKENS,
  tempWorkspace,
  until,
  type Workspace,
} from "./_fixtures.ts";
import type { SandboxBashExecutor, SandboxBashExecutorConfig } from "../../sandbox/mod.ts";

const statuses = await probeHere();
const skip = skipUnless(statuses, "bwrap");
const support = cgroupSupport();
const noCgroup = "unavailable" in support.processes
  ? `no cgroup for "processes" here (standbys hold cgroups): ${support.processes.unavailable}`
  : false;

const probing = (line: string) => line.includes("bwrap") && line.endsWith("-c true");

/** An executor on bwrap over `workspace` with `config`, and every process it spawns. */
function recorded(
  workspace: Workspace,
  config: Partial<SandboxBashExecutorConfig>,
): { executor: SandboxBashExecutor; spawned: { pid: number; line: string }[] } {
  const { runtime, spawned } = recording();
  return { executor: executorFor("bwrap", workspace, { runtime, ...config }), spawned };
}

describe("SandboxBashExecutor started ahead", () => {
  it("runs no probe of bwrap once its first call's launch said its command started", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    const { executor: made, spawned } = recorded(workspace, { defaultMode: "workspace-write" });
    await using executor = made;
    const result = await executor.run(executor.resolve({ command: "echo hi" }));
    assert.deepEqual([result.stdout.text, result.sandbox?.backend], ["hi\n", "bwrap"]);
    // The launch proved the backend: its status is the probe's, and no probe ran or runs now.
    const [status] = await executor.probeBackends();
    assert.equal(status?.works, true, status?.reason);
    assert.deepEqual(status?.enforcement, result.sandbox?.enforcement);
    assert.deepEqual(spawned.filter(({ line }) => probing(line)), [], "probed");
  });

  it("probes bwrap at construction when its first call cannot prove it", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    // Under a network allow-list no reporter says when a command starts.
    const { executor: made, spawned } = recorded(workspace, {
      network: { allow: ["allowed.test"] },
    });
    await using executor = made;
    await until(() => spawned.some(({ line }) => probing(line)), 30_000, "the probe");
    const [status] = await executor.probeBackends();
    assert.equal(status?.works, true, status?.reason);
    assert.equal(spawned.filter(({ line }) => probing(line)).length, 1, "probed again");
  });

  it("starts the first call's standby, which a call made at once takes while it starts", {
    skip: skip || noCgroup,
  }, async () => {
    using workspace = tempWorkspace();
    const { runtime: recorder, spawned } = recording();
    const standby = (line: string) =>
      line.includes(STANDBY_TOKENS.bwrap) || line.includes(SET_UP_TOKEN);
    // A standby's spawn is held a second: the call, made at once, comes while it starts.
    const runtime: typeof recorder = {
      ...recorder,
      spawn: async (request) => {
        if (standby([request.program, ...request.args].join(" "))) await pause(1000);
        return await recorder.spawn(request);
      },
    };
    await using executor = executorFor("bwrap", workspace, {
      runtime,
      defaultMode: "workspace-write",
    });
    const result = await executor.run(executor.resolve({ command: "echo hi" }));
    assert.deepEqual([result.stdout.text, result.sandbox?.backend], ["hi\n", "bwrap"]);
    assert.ok(spawned.some(({ line }) => standby(line)), "no standby");
    const launches = spawned.filter(({ line }) =>
      !line.includes(WATCHDOG_NAME) && !probing(line) && !standby(line)
    );
    assert.deepEqual(launches, [], "the call was launched cold");
  });

  it("plans a call made at once only once the first call's standby was spawned", {
    skip: skip || noCgroup,
  }, async () => {
    using workspace = tempWorkspace();
    const { runtime: recorder } = recording();
    const standby = (line: string) => line.includes(STANDBY_TOKENS.bwrap);
    const events: string[] = [];
    // The standby's spawn is held: a call planned beside it would be planned meanwhile.
    const runtime: typeof recorder = {
      ...recorder,
      spawn: async (request) => {
        if (!standby([request.program, ...request.args].join(" "))) {
          return await recorder.spawn(request);
        }
        await pause(500);
        const child = await recorder.spawn(request);
        events.push("standby spawned");
        return child;
      },
    };
    await using executor = executorFor("bwrap", workspace, {
      runtime,
      defaultMode: "workspace-write",
      ...withPlan(async (spec, launch, limits, inner) => {
        const plan = await inner.plan(spec, launch, limits);
        events.push("call planned");
        return plan;
      }),
    });
    const result = await executor.run(executor.resolve({ command: "echo hi" }));
    assert.deepEqual([result.stdout.text, result.sandbox?.backend], ["hi\n", "bwrap"]);
    // Its standby's start comes first: the call waits for that standby anyway.
    assert.deepEqual(events.slice(0, 2), ["standby spawned", "call planned"]);
  });

  it("leaves nothing running when disposed while the probe runs", { skip }, async () => {
    using workspace = tempWorkspace();
    const { runtime: recorder, spawned } = recording();
    const executor = executorFor("bwrap", workspace, { runtime: recorder });
    executor.probeBackends().catch(() => {});
    await until(() => spawned.some(({ line }) => probing(line)), 30_000, "the probe");
    await executor[Symbol.asyncDispose]();
    for (const { pid, line } of spawned) {
      assert.equal(runtime.kill(pid, 0), false, `${pid} (${line}) still runs`);
    }
    await assert.rejects(executor.run(executor.resolve({ command: "true" })), /disposed/);
  });
});
