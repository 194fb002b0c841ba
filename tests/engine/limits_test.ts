import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { LocalBashExecutor, type LocalBashExecutorConfig } from "../../local/mod.ts";
import { BashConfigError, type BashExecRequest } from "../../seam/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { APPLY_LIMITS, limitArgs } from "../../engine/_limits.ts";
import { renderRunResult } from "../../tool/mod.ts";

const root = process.getuid?.() === 0;

/** True when this process has CAP_SYS_RESOURCE (bit 24 of its effective capabilities). */
function canRaiseLimits(): boolean {
  const line = readFileSync("/proc/self/status", "latin1").match(/^CapEff:\s*([0-9a-f]+)$/m);
  return line !== null && (BigInt(`0x${line[1]}`) & (1n << 24n)) !== 0n;
}

// These run the rlimit path (useCgroups: false) wherever cgroups are available;
// tests/local/cgroup_test.ts runs the cgroup path.
describe("resource limits as rlimits", () => {
  it("applies each limit to the command as an rlimit, and reports them", async () => {
    await using executor = new LocalBashExecutor({
      limits: { cpuSeconds: 50, processes: 999 },
      useCgroups: false,
    });
    const result = await executor.run(executor.resolve({
      command: "ulimit -S -u; ulimit -S -d; ulimit -S -t; ulimit -S -f; ulimit -H -t",
      limits: { processes: 77, memoryBytes: 10 ** 9, fileSizeBytes: 2000 },
    }));
    // A hard CPU limit a second above the soft one: SIGXCPU comes before SIGKILL.
    assert.equal(result.stdout.text, `77\n${Math.ceil(10 ** 9 / 1024)}\n50\n2\n51\n`);
    assert.deepEqual(result.limits?.limits, {
      processes: 77,
      memoryBytes: 10 ** 9,
      cpuSeconds: 50,
      fileSizeBytes: 2000,
    });
    assert.equal(result.limits?.mechanism, "rlimit");
    assert.deepEqual(result.limits?.mechanisms, {
      processes: "rlimit",
      memoryBytes: "rlimit",
      cpuSeconds: "rlimit",
      fileSizeBytes: "rlimit",
    });
    assert.equal(result.limitHit, undefined);
    const lifted = await executor.run(
      executor.resolve({ command: "ulimit -t", limits: { cpuSeconds: null } }),
    );
    assert.equal(lifted.stdout.text, "unlimited\n");
    assert.deepEqual(lifted.limits?.limits, { processes: 999 });
    await using plain = new LocalBashExecutor({ useCgroups: false });
    const none = await plain.run(plain.resolve({ command: "ulimit -H -u" }));
    assert.equal(none.limits, undefined);
    // A limit above the one in force: the kernel refuses to raise it, except
    // for a process with CAP_SYS_RESOURCE.
    const higher = await executor.run(executor.resolve({
      command: "ulimit -H -u",
      limits: { processes: 2 ** 40 },
    }));
    assert.equal(higher.stdout.text, canRaiseLimits() ? `${2 ** 40}\n` : none.stdout.text);
  });

  it("names what it cannot enforce here in gaps", async () => {
    await using executor = new LocalBashExecutor({
      limits: { processes: 100, memoryBytes: 10 ** 9 },
      useCgroups: false,
    });
    const { limits } = await executor.run(executor.resolve({ command: "true" }));
    assert.ok(limits !== undefined);
    assert.ok(limits.gaps.includes(
      "processes, memoryBytes: apply to each process on its own, not to the command's processes together (rlimits)",
    ));
    assert.ok(limits.gaps.includes("processes: no cgroup: turned off (useCgroups: false)"));
    assert.ok(limits.gaps.includes(
      root
        ? "processes: not enforced for root (the kernel exempts uid 0 from RLIMIT_NPROC)"
        : "processes: RLIMIT_NPROC counts every process of the user, not only this command's",
    ));
    assert.equal(
      limits.gaps.includes(
        "root with CAP_SYS_RESOURCE and no sandbox: a limit above one in force raises it, and the command can raise its own",
      ),
      root,
    );
  });

  it("a CPU-bound command is stopped by SIGXCPU: a fact, and the rendering says so", async () => {
    await using executor = new LocalBashExecutor();
    const result = await executor.run(
      executor.resolve({ command: "while :; do :; done", limits: { cpuSeconds: 1 } }),
    );
    assert.equal(result.signal, "SIGXCPU");
    assert.deepEqual(result.limitHit, { limit: "cpu", evidence: "signal", certain: true });
    const rendered = renderRunResult(result);
    assert.ok(rendered.text.includes(
      "[resource limit: the command ran into its CPU time limit (the shell received the limit's signal)]",
    ));
    assert.equal(rendered.isError, true);
  });

  it("a write past the file size limit is cut there; a child's SIGXFSZ is judged from stderr", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-limits-"));
    try {
      await using executor = new LocalBashExecutor({ cwd: dir, limits: { fileSizeBytes: 10_000 } });
      const child = await executor.run(
        executor.resolve({ command: "head -c 100000 /dev/zero > out; echo after" }),
      );
      assert.equal(statSync(join(dir, "out")).size, 10 * 1024);
      assert.equal(child.exitCode, 0);
      assert.match(child.stderr.text, /File size limit exceeded/);
      assert.deepEqual(child.limitHit, { limit: "fileSize", evidence: "stderr", certain: false });
      assert.ok(
        renderRunResult(child).text.includes(
          "[resource limit: the command ran into its file size limit (judged from its stderr)]",
        ),
      );
      const shell = await executor.run(
        executor.resolve({ command: "exec head -c 100000 /dev/zero > out2" }),
      );
      assert.equal(shell.signal, "SIGXFSZ");
      assert.deepEqual(shell.limitHit, { limit: "fileSize", evidence: "signal", certain: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an allocation past the memory limit fails, judged from stderr", async () => {
    await using executor = new LocalBashExecutor({
      limits: { memoryBytes: 8 * 1024 * 1024 },
      useCgroups: false,
    });
    const result = await executor.run(
      executor.resolve({ command: "s=$(printf '%*s' 40000000 '')" }),
    );
    assert.notEqual(result.exitCode, 0);
    assert.match(result.stderr.text, /cannot allocate/);
    assert.deepEqual(result.limitHit, { limit: "memory", evidence: "stderr", certain: false });
    await using unlimited = new LocalBashExecutor();
    const fine = await unlimited.run(
      unlimited.resolve({ command: "s=$(printf '%*s' 40000000 ''); echo ${#s}" }),
    );
    assert.equal(fine.stdout.text, "40000000\n");
  });

  const setpriv = findOnPath("setpriv");
  it("a fork past the process limit fails, for a user the kernel counts", {
    skip: setpriv === null ? 'no "setpriv" (util-linux) to run the command as nobody' : false,
  }, async () => {
    await using executor = new LocalBashExecutor({ limits: { processes: 3 }, useCgroups: false });
    // As nobody (rlimits survive the switch), in dash, which does not retry a failed fork.
    const result = await executor.run(executor.resolve({
      command: `${setpriv} --reuid=65534 --regid=65534 --clear-groups /bin/sh -c ` +
        `'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1 & done; wait'`,
    }));
    assert.notEqual(result.exitCode, 0);
    // dash's own fork fails, or, when nobody runs more processes elsewhere
    // already, the exec after setpriv's switch to nobody (EAGAIN).
    assert.match(result.stderr.text, /Cannot fork|Resource temporarily unavailable/);
    assert.deepEqual(result.limitHit, { limit: "processes", evidence: "stderr", certain: false });
  });

  it("rejects unknown limits and values that are not whole numbers >= 1 or null", async () => {
    await using executor = new LocalBashExecutor();
    const bad: [unknown, RegExp][] = [
      [{ cpu: 5 }, /^"limits" has no limit "cpu"; the known limits are "processes", /],
      [
        { cpuSeconds: 0 },
        /^"limits.cpuSeconds" must be a whole number >= 1, or null for no limit; got 0$/,
      ],
      [{ memoryBytes: 1.5 }, /^"limits.memoryBytes" must be a whole number >= 1/],
      [{ processes: "9" }, /^"limits.processes" must be a whole number >= 1, .*; got string$/],
      [5, /^"limits" must be an object such as \{ cpuSeconds: 60 \}; got number$/],
    ];
    for (const [limits, message] of bad) {
      assert.throws(
        () => executor.resolve({ command: "true", limits } as BashExecRequest),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(limits),
      );
      assert.throws(
        () => new LocalBashExecutor({ limits } as LocalBashExecutorConfig),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
      );
    }
  });
});

describe("APPLY_LIMITS", () => {
  it("joins a v1 cgroup by 0 in its tasks file (no global lock), else by its pid in cgroup.procs", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-join-"));
    try {
      const v1 = join(dir, "v1");
      const v2 = join(dir, "v2");
      for (const folder of [v1, v2]) mkdirSync(folder);
      writeFileSync(join(v1, "tasks"), "");
      const bash = findOnPath("bash", process.env.PATH ?? "")!;
      const run = spawnSync(bash, [
        "-c",
        `${APPLY_LIMITS}echo "$$"`,
        "x",
        ...limitArgs({}, [join(v1, "cgroup.procs"), join(v2, "cgroup.procs")]),
      ], { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(join(v1, "tasks"), "utf8"), "0\n");
      assert.equal(existsSync(join(v1, "cgroup.procs")), false);
      assert.equal(readFileSync(join(v2, "cgroup.procs"), "utf8"), run.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
