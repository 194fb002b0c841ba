// Resource limits held by a cgroup per command: the real path where this
// process can make cgroups (here: cgroup v1 pids/memory as root), and the
// cgroup v2 file handling against a fake cgroup folder.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { CommandCgroup, ExecutorCgroups } from "../../engine/_cgroup.ts";
import { cgroupFolders, cgroupSupport } from "../../engine/_cgroup_support.ts";
import { removeTree, sweepStaleCgroups } from "../../engine/_cgroup_sweep.ts";
import { assertNoneLeft, marker, processesWith, removeIdleCgroups } from "../local/_helpers.ts";
import { skipWithoutPython } from "../sandbox/_fixtures.ts";

const support = cgroupSupport();
const readText = (path: string): string => readFileSync(path, "utf8");
const skipFor = (limit: "processes" | "memoryBytes"): string | false => {
  const found = support[limit];
  return "unavailable" in found ? `no cgroup for "${limit}" here: ${found.unavailable}` : false;
};

/**
 * The folders of this process's executors (`shellseam-exec-<pid>-*`) in the
 * cgroup folder of `limit`; other processes' test runs may add and remove
 * theirs meanwhile.
 */
function executorFolders(limit: "processes" | "memoryBytes"): string[] {
  const found = support[limit];
  if ("unavailable" in found) return [];
  return readdirSync(found.dir).filter((name) => name.startsWith(`shellseam-exec-${process.pid}-`))
    .map((name) => join(found.dir, name));
}

/** Kills what carries `token` and removes this test's leftover cgroups, whatever happened. */
async function cleanUp(
  token: string,
  before: Set<string>,
  limit: "processes" | "memoryBytes",
): Promise<void> {
  for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
  for (const folder of executorFolders(limit)) {
    if (!before.has(folder)) await removeTree(folder, (pid) => process.kill(pid, "SIGKILL"));
  }
}

/** An executor's cgroups in `root`, a fake cgroup v2 folder that holds both controllers. */
function fakeV2Cgroups(root: string): ExecutorCgroups {
  const v2 = { version: 2 as const, dir: root };
  return new ExecutorCgroups(
    { processes: v2, memoryBytes: v2 },
    "shellseam-exec-1-2-token",
    () => {},
  );
}

describe("resource limits in a cgroup", () => {
  it("stops a fork bomb as root at its process limit, reports it, and empties the cgroup", {
    skip: skipFor("processes"),
  }, async () => {
    const before = new Set(executorFolders("processes"));
    const token = marker();
    try {
      const executor = new LocalBashExecutor({ limits: { processes: 64 } });
      const result = await executor.run(executor.resolve({
        // It ends once a fork of the bomb failed, not after a fixed time: under load
        // the bomb may not reach the limit in half a second. Bash says so on the
        // bomb's stderr, a pipe opened before the bomb that the shell reads (read -t
        // starts no process).
        command: `exec 3<> <(:); bomb() { sleep ${token} & bomb | bomb & }; bomb 2>&3; ` +
          "for i in {1..1200}; do read -r -t 0.05 -u 3 && break; done; echo survived",
        timeoutMs: 90_000,
      }));
      assert.deepEqual(result.limitHit, { limit: "processes", evidence: "cgroup", certain: true });
      assert.equal(result.limits?.mechanisms.processes, result.limits?.mechanism);
      assert.match(result.limits?.mechanism ?? "", /^cgroup v[12]$/);
      assert.deepEqual(result.limits?.gaps, []);
      assert.ok(result.strays.killed > 0, JSON.stringify(result.strays));
      assert.deepEqual(result.strays.survivors, []);
      await assertNoneLeft(token);
      const mine = executorFolders("processes").filter((folder) => !before.has(folder));
      assert.equal(mine.length, 1, "one folder for the executor");
      const cgroups = readdirSync(mine[0] as string, { withFileTypes: true })
        .filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      assert.deepEqual(cgroups, ["1"], "the command's cgroup waits for the next command");
      assert.equal(readText(join(mine[0] as string, "1", "cgroup.procs")).trim(), "", "emptied");
      const next = await executor.run(executor.resolve({ command: "echo fine" }));
      assert.equal(next.limitHit, undefined, "the bomb's refusals are not the next command's");
      await executor[Symbol.asyncDispose]();
      assert.deepEqual(executorFolders("processes").filter((folder) => !before.has(folder)), []);
    } finally {
      await cleanUp(token, before, "processes");
    }
  });

  it("kills a memory hog at the memory limit and reports it", {
    skip: skipFor("memoryBytes"),
  }, async () => {
    const before = new Set(executorFolders("memoryBytes"));
    const token = marker();
    try {
      await using executor = new LocalBashExecutor({ limits: { memoryBytes: 32 * 1024 * 1024 } });
      // 200 MB in bash itself: the cgroup's OOM killer ends it.
      const result = await executor.run(executor.resolve({
        command: `: ${token}; s=$(head -c 200000000 /dev/zero | tr '\\0' x); echo \${#s}`,
        timeoutMs: 20_000,
      }));
      assert.deepEqual(result.limitHit, { limit: "memory", evidence: "cgroup", certain: true });
      assert.notEqual(result.stdout.text, "200000000\n");
      assert.match(result.limits?.mechanisms.memoryBytes ?? "", /^cgroup v[12]$/);
      const fine = await executor.run(executor.resolve({ command: "s=$(head -c 1000 /dev/zero)" }));
      assert.equal(fine.limitHit, undefined);
    } finally {
      await cleanUp(token, before, "memoryBytes");
    }
  });

  it("writes a memory limit again when a signal interrupted its write (a host under a profiler)", {
    skip: skipFor("memoryBytes") ||
      (!("Deno" in globalThis) && "Deno only: Node's libuv writes again by itself"),
  }, async () => {
    const before = new Set(executorFolders("memoryBytes"));
    const dir = mkdtempSync(join(tmpdir(), "eintr-"));
    try {
      // Each call changes the memory limit, so each writes memory.limit_in_bytes; V8's sampling
      // profiler sends this process SIGPROF every 20 µs. Without writing again, 12 to 18 of 100
      // calls failed here with EINTR.
      const script = join(dir, "calls.ts");
      const library = new URL("../../local/mod.ts", import.meta.url).href;
      writeFileSync(
        script,
        `import { LocalBashExecutor } from ${JSON.stringify(library)};
await using executor = new LocalBashExecutor({});
const failures = [];
let limited = 0;
for (let i = 0; i < 100; i++) {
  const memoryBytes = (64 + (i % 2) * 64) * 1024 * 1024;
  try {
    const result = await executor.run(executor.resolve({ command: "true", limits: { memoryBytes } }));
    if (/^cgroup/.test(result.limits?.mechanisms.memoryBytes ?? "")) limited++;
  } catch (error) {
    failures.push(String(error));
  }
}
console.log(JSON.stringify({ failures, limited }));
`,
      );
      const child = spawn(process.execPath, [
        "run",
        "--allow-all",
        "--no-check",
        "--v8-flags=--prof,--logfile=/dev/null,--prof-sampling-interval=20",
        script,
      ], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.on("close", done));
      assert.equal(code, 0);
      const { failures, limited } = JSON.parse(stdout) as { failures: string[]; limited: number };
      assert.deepEqual(failures, []);
      assert.equal(limited, 100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      for (const folder of executorFolders("memoryBytes")) {
        if (!before.has(folder)) await removeTree(folder, (pid) => process.kill(pid, "SIGKILL"));
      }
    }
  });

  it("holds processes that left the session and dropped the marker, and kills them", {
    skip: skipFor("processes"),
  }, async () => {
    const before = new Set(executorFolders("processes"));
    const token = marker();
    try {
      await using executor = new LocalBashExecutor({ limits: { processes: 64 } });
      const result = await executor.run(executor.resolve({
        command: `env -u SHELLSEAM_WATCHDOG setsid sleep ${token} >/dev/null 2>&1 & echo started`,
      }));
      assert.equal(result.stdout.text, "started\n");
      assert.equal(result.strays.killed, 1, JSON.stringify(result.strays));
      await assertNoneLeft(token);
    } finally {
      await cleanUp(token, before, "processes");
    }
  });

  it("kills a thread group whose leader exited alone, and empties the cgroup before it is reused", {
    skip: skipFor("processes") || skipWithoutPython(),
  }, async () => {
    const before = new Set(executorFolders("processes"));
    const dir = mkdtempSync(join(tmpdir(), "shellseam-zombie-leader-"));
    try {
      await using executor = new LocalBashExecutor({ cwd: dir, limits: { processes: 64 } });
      // The leader calls exit() alone (a zombie while its other thread runs); the
      // shell ends once it is one, and no census of live processes sees the thread.
      const result = await executor.run({
        command: "python3 -c 'import threading, time, ctypes, os\n" +
          'open("pid", "w").write(str(os.getpid()))\n' +
          "threading.Thread(target=time.sleep, args=(60,)).start()\n" +
          "ctypes.CDLL(None).syscall(60, 0)' & " +
          'until [ "$(cut -d" " -f3 /proc/$!/stat 2>/dev/null)" = Z ]; do sleep 0.02; done; ' +
          "echo started",
        timeoutMs: 30_000,
      });
      assert.equal(result.stdout.text, "started\n", result.stderr.text);
      const pid = readText(join(dir, "pid"));
      const threads = (): string[] => {
        try {
          return readdirSync(`/proc/${pid}/task`).filter((tid) => {
            const stat = readText(`/proc/${pid}/task/${tid}/stat`);
            return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? "");
          });
        } catch {
          return [];
        }
      };
      assert.deepEqual(threads(), [], "no thread of it runs once the call returned");
      assert.ok(result.strays.killed >= 1, JSON.stringify(result.strays));
      assert.deepEqual(result.strays.survivors, []);
      const mine = executorFolders("processes").filter((folder) => !before.has(folder));
      assert.equal(readText(join(mine[0] as string, "1", "cgroup.procs")), "", "emptied");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("does not count again a process the sweep killed and counted", {
    skip: skipFor("processes"),
  }, async () => {
    const token = marker();
    const found = support.processes as { version: 1 | 2; dir: string };
    const cgroups = new ExecutorCgroups(
      { ...support, processes: found },
      `shellseam-unowned-${token}`,
      (pid) => process.kill(pid, "SIGKILL"),
    );
    try {
      const command = await cgroups.create({ processes: 64 }, () => {});
      const [procs] = command.procsFiles as [string];
      // Two live processes in the cgroup; the sweep before the cleanup killed
      // (and counted) the first, which is still on its way out.
      const swept = spawn("sleep", [token], { stdio: "ignore" });
      const left = spawn("sleep", [token], { stdio: "ignore" });
      writeFileSync(procs, String(swept.pid));
      writeFileSync(procs, String(left.pid));
      const strays = await command.close(new Set([swept.pid as number]));
      assert.deepEqual(strays, { hit: undefined, killed: 1, survivors: [] });
      await assertNoneLeft(token);
    } finally {
      for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
      await removeTree(join(found.dir, `shellseam-unowned-${token}`), () => {});
    }
  });

  it(
    "never reuses a cgroup that could not be emptied",
    { skip: skipFor("processes") },
    async () => {
      const token = marker();
      const found = support.processes as { version: 1 | 2; dir: string };
      // A kill that does nothing: what the cgroup holds stays.
      const cgroups = new ExecutorCgroups(
        { ...support, processes: found },
        `shellseam-unowned-${token}`,
        () => {},
      );
      try {
        const first = await cgroups.create({ processes: 64 }, () => {});
        const [procs] = first.procsFiles as [string];
        const child = spawn("sleep", [token], { stdio: "ignore" });
        writeFileSync(procs, String(child.pid));
        const strays = await first.close();
        assert.deepEqual(strays.survivors, [child.pid]);
        const next = await cgroups.create({ processes: 64 }, () => {});
        assert.notDeepEqual(next.procsFiles, first.procsFiles, "a cgroup of its own");
        await next.close();
        process.kill(child.pid as number, "SIGKILL");
        // Emptied now, it is still never used again.
        assert.notDeepEqual((await cgroups.create({ processes: 64 }, () => {})).procsFiles, [
          procs,
        ]);
      } finally {
        for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
        await removeTree(join(found.dir, `shellseam-unowned-${token}`), () => {});
      }
    },
  );

  it("runs every call when its idle cgroups and folder were removed, again and again", {
    skip: skipFor("processes"),
  }, async () => {
    await using executor = new LocalBashExecutor({ limits: { processes: 64 } });
    for (let round = 0; round < 4; round++) {
      const result = await executor.run({ command: `echo round-${round}` });
      assert.deepEqual(
        [result.exitCode, result.stdout.text],
        [0, `round-${round}\n`],
        result.stderr.text,
      );
      assert.match(result.limits?.mechanisms.processes ?? "", /^cgroup v[12]$/);
      // What a cleanup script (or systemd) does to empty cgroups.
      assert.ok(removeIdleCgroups() >= 2, "the idle cgroup and its folder were removed");
    }
  });

  it("is not used with useCgroups: false, and the gaps say why", async () => {
    await using executor = new LocalBashExecutor({
      limits: { processes: 64, memoryBytes: 10 ** 9 },
      useCgroups: false,
    });
    const { limits } = await executor.run(executor.resolve({ command: "true" }));
    assert.equal(limits?.mechanism, "rlimit");
    assert.ok(limits?.gaps.includes("memoryBytes: no cgroup: turned off (useCgroups: false)"));
  });
});

describe("cgroup v2 file handling (a fake cgroup folder: no delegated v2 cgroup here)", () => {
  it("finds a delegated v2 cgroup from /proc/self/cgroup and mountinfo", () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-cgroup-"));
    try {
      const mine = join(root, "user.slice", "app.scope");
      mkdirSync(mine, { recursive: true });
      writeFileSync(join(mine, "cgroup.subtree_control"), "cpu memory pids\n");
      const mountinfo = `31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n` +
        `41 31 0:38 /user.slice ${root}/user.slice rw,relatime - cgroup2 cgroup2 rw\n` +
        `39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n`;
      const read = (path: string): string => readFileSync(path, "utf8");
      const found = cgroupFolders("0::/user.slice/app.scope\n8:pids:/\n", mountinfo, read);
      assert.deepEqual(found.processes, { version: 2, dir: mine });
      assert.deepEqual(found.memoryBytes, { version: 2, dir: mine });
      // Not delegated (no pids in subtree_control): v1 where mounted, else why not.
      writeFileSync(join(mine, "cgroup.subtree_control"), "cpu\n");
      const fallback = cgroupFolders("0::/user.slice/app.scope\n8:pids:/\n", mountinfo, read);
      assert.deepEqual(fallback.processes, { version: 1, dir: "/sys/fs/cgroup/pids" });
      assert.match(
        (fallback.memoryBytes as { unavailable: string }).unavailable,
        /no cgroup v2 delegates "memory" to this process/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("writes pids.max and memory.max, joins by cgroup.procs, reads pids.events and memory.events", async () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-cgroup-"));
    try {
      const cgroups = fakeV2Cgroups(root);
      const folders: string[] = [];
      const command = await cgroups.create(
        { processes: 64, memoryBytes: 1000 },
        (f) => folders.push(f),
      );
      const cgroup = join(root, "shellseam-exec-1-2-token", "1");
      assert.deepEqual(folders, [join(root, "shellseam-exec-1-2-token")]);
      assert.equal(readText(join(cgroup, "pids.max")), "64");
      assert.equal(readText(join(cgroup, "memory.max")), "1000");
      // One v2 cgroup holds both; its folder hands both controllers down.
      assert.deepEqual(command.procsFiles, [join(cgroup, "cgroup.procs")]);
      assert.equal(
        readText(join(root, "shellseam-exec-1-2-token", "cgroup.subtree_control")),
        "+pids +memory",
      );
      assert.equal(command.hit(), undefined);
      writeFileSync(join(cgroup, "memory.events"), "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
      assert.deepEqual(command.hit(), { limit: "memory", evidence: "cgroup", certain: true });
      writeFileSync(join(cgroup, "pids.events"), "max 5\n");
      assert.deepEqual(command.hit(), { limit: "processes", evidence: "cgroup", certain: true });
      // A second command while the first runs gets cgroups of its own.
      const other = await cgroups.create({ processes: 64 }, () => {});
      assert.notDeepEqual(other.procsFiles, command.procsFiles);
      // Emptied, the first cgroup waits for the next command with the same controllers, which
      // gets its own limits and counts only its own refusals and kills.
      assert.equal((await command.close()).hit?.limit, "processes");
      const next = await cgroups.create({ processes: 32, memoryBytes: 2000 }, () => {});
      assert.deepEqual(next.procsFiles, command.procsFiles);
      assert.equal(readText(join(cgroup, "pids.max")), "32");
      assert.equal(readText(join(cgroup, "memory.max")), "2000");
      assert.equal(next.hit(), undefined, "the earlier command's hits are not this one's");
      writeFileSync(join(cgroup, "pids.events"), "max 6\n");
      assert.deepEqual(next.hit(), { limit: "processes", evidence: "cgroup", certain: true });
      assert.deepEqual(folders, [join(root, "shellseam-exec-1-2-token")], "one folder, made once");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("makes its folder once for cgroups made at once (a standby's beside a call's)", async () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-cgroup-"));
    try {
      const cgroups = fakeV2Cgroups(root);
      const folders: string[] = [];
      const made = await Promise.all(
        [1, 2].map(() => cgroups.create({ processes: 64 }, (folder) => folders.push(folder))),
      );
      assert.deepEqual(folders, [join(root, "shellseam-exec-1-2-token")], "made once");
      assert.notDeepEqual(made[0]?.procsFiles, made[1]?.procsFiles, "each its own cgroup");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("removes the executor folders of hosts that are gone, not of live ones", async () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-cgroup-"));
    try {
      const stat = readText(`/proc/${process.pid}/stat`);
      const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      const live = join(root, `shellseam-exec-${process.pid}-${start}-a`);
      const reused = join(root, `shellseam-exec-${process.pid}-1-b`);
      const other = join(root, "unrelated");
      for (const dir of [live, reused, other]) mkdirSync(dir);
      assert.equal(await sweepStaleCgroups(root, () => {}), 1);
      assert.equal(existsSync(live), true);
      assert.equal(existsSync(reused), false);
      assert.equal(existsSync(other), true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("says its census failed when a cgroup's process list cannot be read, never 'nothing left'", async () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-cgroup-"));
    try {
      // A folder where the list should be: reading it fails (EISDIR), as a refused read would.
      mkdirSync(join(root, "cgroup.procs"));
      const strays = await new CommandCgroup(
        [{ limit: "processes", version: 2, cgroup: root }],
        () => {},
        { counts: [0], release: () => assert.fail("released unread"), write: () => {} },
      ).close();
      assert.match(strays.censusFailed ?? "", /^cannot read the command's cgroup \(.*EISDIR/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
