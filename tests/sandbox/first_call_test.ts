// An executor whose first possible backend is bwrap launches its first call
// beside the backend's probe (SandboxBackend.launchesBeforeProbe): a launch
// that said its command started needs no verdict; one that did not gets the
// probe's. A broken backend is the probe's SandboxUnavailableError, with
// nothing run and nothing left running, or, with the default backends, the
// call planned again under Landlock. The probe here is a fake bwrap held
// until the test lets it go, so the call certainly comes while it runs.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type BashExecSpec, BashSpawnError, SandboxUnavailableError } from "../../seam/mod.ts";
import { type SandboxBackendName, SandboxBashExecutor } from "../../sandbox/mod.ts";
import { runtime } from "../../local/mod.ts";
import { WATCHDOG_NAME } from "../../engine/_watchdog.ts";
import { findOnPath } from "../../engine/_session.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import {
  fakeProgram,
  oneStandby,
  probeHere,
  recording,
  SET_UP_TOKEN,
  skipUnless,
  STANDBY_TOKENS,
  tempWorkspace,
  until,
  type Workspace,
} from "./_fixtures.ts";

const statuses = await probeHere();
const noBwrap = skipUnless(statuses, "bwrap");
const noLandlock = skipUnless(statuses, "landlock");
const support = cgroupSupport();
const noCgroup = "unavailable" in support.processes
  ? `no cgroup for "processes" here (standbys hold cgroups): ${support.processes.unavailable}`
  : false;

/** What the fake bwrap does, for the probe and for a call's launch (which runs the namespace's reporter). */
interface FakeBwrap {
  probe: string;
  call: string;
}

/** bwrap's failure where it cannot make its namespaces. */
const BROKEN = "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1";

/**
 * A fake bwrap first on a search path: a call's launch touches `called`,
 * then does `call`; the probe waits until `release` exists (for at most
 * 10 s, then fails as held), then does `probe`. Given `--args 4` (a
 * standby's), it first reads its options there to their end, as bwrap
 * does before anything else (so a standby's waits for its call), and
 * gives them on to what `call` runs on descriptor 4 again.
 */
function heldBwrap(workspace: Workspace, { probe, call }: FakeBwrap) {
  const called = join(workspace.base, "called");
  const release = join(workspace.base, "release");
  const options = join(workspace.base, "options");
  const dir = fakeProgram(
    workspace,
    "bwrap",
    `[ "$1" = --args ] && [ "$2" = 4 ] && { o=$(mktemp '${options}.XXXXXX'); cat <&4 >"$o"; ` +
      `exec 4<"$o"; }; ` +
      `case "$*" in *shellseam-strays*) touch '${called}'; ${call} ;; esac; i=0; ` +
      `while [ ! -e '${release}' ]; do i=$((i+1)); ` +
      `[ $i -gt 500 ] && { echo 'bwrap: the probe was held' >&2; exit 1; }; sleep 0.02; done; ` +
      probe,
  );
  return {
    searchPath: `${dir}:${process.env.PATH}`,
    called: () => existsSync(called),
    release: () => writeFileSync(release, ""),
  };
}

/**
 * A `workspace-write` executor over `workspace` with `backends` (the
 * default when undefined), its programs looked up on `searchPath`, and
 * every process it spawns; with cgroups (and so a standby started at
 * construction, see `SandboxConfiner`) when `cgroups`.
 */
function recordedExecutor(
  workspace: Workspace,
  searchPath: string,
  backends?: SandboxBackendName[],
  cgroups = false,
): { executor: SandboxBashExecutor; spawned: { pid: number; line: string }[] } {
  const { runtime: recorder, spawned } = recording();
  const executor = new SandboxBashExecutor({
    workspaceRoot: workspace.root,
    defaultMode: "workspace-write",
    ...(backends === undefined ? {} : { backends }),
    searchPath,
    useCgroups: cgroups,
    runtime: recorder,
  });
  return { executor, spawned };
}

/** Asserts that a call of `spec` made now fails with `error`, word for word (its probes have ended). */
async function assertLaterError(
  executor: SandboxBashExecutor,
  spec: BashExecSpec,
  error: SandboxUnavailableError,
): Promise<void> {
  await assert.rejects(executor.run(spec), (later: unknown) => {
    assert.ok(later instanceof SandboxUnavailableError);
    assert.deepEqual([later.message, later.attempts], [error.message, error.attempts]);
    return true;
  });
}

/** Asserts that every process spawned but the watchdog has ended. */
function assertNoneLeft(spawned: readonly { pid: number; line: string }[]): void {
  for (const { pid, line } of spawned) {
    if (line.includes(WATCHDOG_NAME)) continue;
    assert.equal(runtime.kill(pid, 0), false, `${pid} (${line}) still runs`);
  }
}

/**
 * With a working bwrap whose probe is held, the first call of an executor
 * with `backends` (the default when undefined) has its result before the
 * probe ends, and reports what a call after the probe does; with cgroups
 * (`cgroups`), that call runs in the standby started at construction.
 */
async function notWaitingForProbe(
  backends: SandboxBackendName[] | undefined,
  cgroups = false,
): Promise<void> {
  using workspace = tempWorkspace();
  const bwrap = findOnPath("bwrap", process.env.PATH);
  const real = `exec '${bwrap}' "$@"`;
  const fake = heldBwrap(workspace, { probe: real, call: real });
  await using executor = new SandboxBashExecutor({
    workspaceRoot: workspace.root,
    defaultMode: "workspace-write",
    ...(backends === undefined ? {} : { backends }),
    searchPath: fake.searchPath,
    useCgroups: cgroups,
  });
  assert.equal(executor.backends[0], "bwrap");
  // The probe is held until after the result: a result that waited for it would fail.
  const first = await executor.run(
    executor.resolve({ command: "echo hi > out.txt; cat out.txt" }),
  );
  assert.deepEqual([first.exitCode, first.stdout.text], [0, "hi\n"], first.stderr.text);
  assert.deepEqual(
    [first.sandbox?.backend, first.sandbox?.runnerFailed, first.sandbox?.denied],
    ["bwrap", false, false],
  );
  fake.release();
  const [status] = await executor.probeBackends();
  assert.equal(status?.works, true, status?.reason);
  assert.ok(status?.enforcement !== undefined);
  // What it enforced is what a call after the probe reports.
  const later = await executor.run(executor.resolve({ command: "true" }));
  assert.equal(later.sandbox?.backend, "bwrap");
  assert.deepEqual(first.sandbox?.enforcement, later.sandbox?.enforcement);
}

describe("the first call of an executor with one possible backend", () => {
  const cases: [string, SandboxBackendName[], "run" | "start", boolean][] = [
    ["bwrap alone", ["bwrap"], "run", false],
    ["bwrap alone, in the background", ["bwrap"], "start", false],
    ["bwrap, and seatbelt, which is not for this platform", ["bwrap", "seatbelt"], "run", false],
    ["bwrap alone, its standby started at construction", ["bwrap"], "run", true],
  ];
  for (const [name, backends, method, cgroups] of cases) {
    it(`is the probe's SandboxUnavailableError when the backend is broken (${name})`, {
      skip: process.platform !== "linux" ? "bwrap is a Linux backend" : cgroups && noCgroup,
    }, async () => {
      using workspace = tempWorkspace();
      const fake = heldBwrap(workspace, { probe: BROKEN, call: BROKEN });
      const { executor: made, spawned } = recordedExecutor(
        workspace,
        fake.searchPath,
        backends,
        cgroups,
      );
      await using executor = made;
      // The standby is there before the call, which takes it (its bwrap fails as the probe's).
      if (cgroups) await oneStandby("bwrap");
      let settled = false;
      const spec = executor.resolve({ command: "touch ran" });
      const call = (method === "run" ? executor.run(spec) : executor.start(spec))
        .finally(() => (settled = true));
      await until(fake.called, 30_000, "the call's launch");
      // Its launch failed; its result waits for the probe's verdict.
      assert.equal(settled, false);
      fake.release();
      const error = await call.then(
        () => assert.fail("the call ran on a broken backend"),
        (error: unknown) => error,
      );
      assert.ok(error instanceof SandboxUnavailableError, String(error));
      assert.deepEqual(error.attempts[0], {
        backend: "bwrap",
        reason: "probe exited 1: bwrap: setting up uid map: Permission denied",
      });
      assert.equal(existsSync(join(workspace.root, "ran")), false, "the command ran");
      // A standby may wait for a next call (none takes it while the backend is refused): it
      // has run nothing, and disposal ends it.
      assertNoneLeft(
        spawned.filter(({ line }) =>
          !line.includes(STANDBY_TOKENS.bwrap) && !line.includes(SET_UP_TOKEN)
        ),
      );
      await assertLaterError(executor, spec, error);
      await executor[Symbol.asyncDispose]();
      assertNoneLeft(spawned);
    });
  }

  it("does not wait for the probe once its launch said its command started", {
    skip: noBwrap,
  }, () => notWaitingForProbe(["bwrap"]));

  it("does not wait for the probe once its standby said its command started", {
    skip: noBwrap || noCgroup,
  }, () => notWaitingForProbe(["bwrap"], true));
});

describe("the first call of an executor with the default backends (bwrap, then landlock)", () => {
  it("does not wait for bwrap's probe once its launch said its command started", {
    skip: noBwrap,
  }, () => notWaitingForProbe(undefined));

  it("runs once, under Landlock, when bwrap is broken", {
    skip: process.platform !== "linux" ? "bwrap is a Linux backend" : noLandlock,
  }, async () => {
    using workspace = tempWorkspace();
    const fake = heldBwrap(workspace, { probe: BROKEN, call: BROKEN });
    const { executor: made, spawned } = recordedExecutor(workspace, fake.searchPath);
    await using executor = made;
    let settled = false;
    const call = executor.run(executor.resolve({ command: "echo ran >> runs; cat runs" }))
      .finally(() => (settled = true));
    await until(fake.called, 30_000, "the call's bwrap launch");
    // Its launch failed; the call waits for the probe's verdict.
    assert.equal(settled, false);
    fake.release();
    const result = await call;
    // The half-started bwrap's words do not reach the result.
    assert.deepEqual([result.exitCode, result.stdout.text, result.stderr.text], [0, "ran\n", ""]);
    assert.deepEqual(
      [result.sandbox?.backend, result.sandbox?.runnerFailed, result.sandbox?.denied],
      ["landlock", false, false],
    );
    assertNoneLeft(spawned);
    // A call after the probe: the command had run once, and is reported the same way.
    const later = await executor.run(executor.resolve({ command: "cat runs" }));
    assert.deepEqual([later.stdout.text, later.sandbox?.backend], ["ran\n", "landlock"]);
    assert.deepEqual(result.sandbox?.enforcement, later.sandbox?.enforcement);
  });

  it(
    "is a BashSpawnError naming Landlock when bwrap is refused after a launch not known to start",
    {
      skip: process.platform !== "linux" ? "bwrap is a Linux backend" : noLandlock,
    },
    async () => {
      using workspace = tempWorkspace();
      const fake = heldBwrap(workspace, { probe: BROKEN, call: "sleep 30" });
      const { executor: made, spawned } = recordedExecutor(workspace, fake.searchPath);
      await using executor = made;
      // Aborted while the executor waits for the launch to say its command started.
      const abort = new AbortController();
      const call = executor.run(executor.resolve({ command: "touch ran", signal: abort.signal }));
      await until(fake.called, 30_000, "the call's bwrap launch");
      abort.abort();
      fake.release();
      const error = await call.then(
        () => assert.fail("the call has a result from a refused backend"),
        (error: unknown) => error,
      );
      assert.ok(error instanceof BashSpawnError, String(error));
      assert.ok(!(error instanceof SandboxUnavailableError), "Landlock works here");
      assert.equal(
        error.message,
        'The command was launched under "bwrap" while its probe still ran, and the probe then ' +
          "found that it cannot confine commands here (probe exited 1: bwrap: setting up uid " +
          "map: Permission denied), so the launch was stopped (whether its command started is " +
          'unknown); run the command again, and "landlock" confines it',
      );
      assert.equal(existsSync(join(workspace.root, "ran")), false, "the command ran");
      assertNoneLeft(spawned);
      // As it says, the next call is Landlock's.
      const later = await executor.run(executor.resolve({ command: "echo ok" }));
      assert.deepEqual([later.stdout.text, later.sandbox?.backend], ["ok\n", "landlock"]);
    },
  );

  it("is today's SandboxUnavailableError when Landlock is broken too", {
    skip: process.platform === "linux" ? false : "bwrap is a Linux backend",
  }, async () => {
    using workspace = tempWorkspace();
    const fake = heldBwrap(workspace, { probe: BROKEN, call: BROKEN });
    // A perl that fails the Perl launcher's self-check, then a deno that cannot run.
    fakeProgram(workspace, "perl", "exit 1");
    fakeProgram(workspace, "deno", "echo 'deno: cannot run here' >&2; exit 1");
    const { executor: made, spawned } = recordedExecutor(workspace, fake.searchPath);
    await using executor = made;
    let settled = false;
    const spec = executor.resolve({ command: "touch ran" });
    const call = executor.run(spec).finally(() => (settled = true));
    await until(fake.called, 30_000, "the call's bwrap launch");
    assert.equal(settled, false);
    fake.release();
    const error = await call.then(
      () => assert.fail("the call ran on a broken backend"),
      (error: unknown) => error,
    );
    assert.ok(error instanceof SandboxUnavailableError, String(error));
    assert.deepEqual(error.attempts.map((attempt) => attempt.backend), ["bwrap", "landlock"]);
    assert.equal(existsSync(join(workspace.root, "ran")), false, "the command ran");
    assertNoneLeft(spawned);
    await assertLaterError(executor, spec, error);
  });
});
