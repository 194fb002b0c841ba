import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { runtime } from "../../local/mod.ts";
import {
  forkCount,
  inPidInterval,
  liveProcessSession,
  liveSession,
  membersOfSessions,
  outsideGroup,
  processesWithEnv,
  processesWithEnvBetween,
  processesWithEnvs,
  recentMembersAndMarked,
  recentProcessesWithEnv,
  recentSessionMembers,
  sessionMembers,
  sessionMembersBetween,
} from "../../engine/_census.ts";
import {
  assertNoneLeft,
  marker,
  processesWith,
  spawnLoneThread,
  spawnSleep,
  waitForSleep,
} from "../local/_helpers.ts";
import { skipWithoutPython } from "../sandbox/_fixtures.ts";

/** A stat line as the kernel writes it, with a command name that holds spaces and parentheses. */
function statLine(state: string, flags: number): string {
  return `4242 (we (ird) name) ${state} 1 4240 4200 0 -1 ${flags} 97 0 0 0 0 0 0 0 20 0 1 0 712401`;
}

describe("liveSession", () => {
  it("reads the session after a command name with spaces and parentheses", () => {
    assert.equal(liveSession(statLine("S", 0x400000)), 4200);
    assert.equal(liveSession(statLine("R", 0)), 4200);
  });

  it("does not count zombies, dead tasks or processes already inside exit()", () => {
    assert.equal(liveSession(statLine("Z", 0x400000)), null);
    assert.equal(liveSession(statLine("X", 0)), null);
    assert.equal(liveSession(statLine("R", 0x400004)), null, "PF_EXITING is set");
    assert.equal(liveSession(statLine("D", 0x4)), null, "PF_EXITING is set");
  });

  it("returns null for a truncated line", () => {
    assert.equal(liveSession("4242 (sh) S 1 4240"), null);
  });
});

describe("inPidInterval", () => {
  it("covers the pids from first to last, across the wrap of the pid space", () => {
    assert.deepEqual([99, 100, 150, 200, 201].map((pid) => inPidInterval(pid, 100, 200)), [
      false,
      true,
      true,
      true,
      false,
    ]);
    // Handed out from 32000 up to pid_max, then again from 300 up to 500.
    assert.deepEqual(
      [31999, 32000, 32767, 300, 500, 501].map((pid) => inPidInterval(pid, 32000, 500)),
      [
        false,
        true,
        true,
        true,
        true,
        false,
      ],
    );
  });
});

describe("forkCount", () => {
  it("counts every task the kernel creates", async () => {
    const before = forkCount();
    assert.ok(before !== null && before > 0);
    const child = await runtime.spawn({
      program: "/bin/sh",
      args: ["-c", "true"],
      cwd: "/",
      env: {},
      stdin: "null",
      session: "detached",
    });
    await Promise.all([child.stdout.cancel(), child.stderr.cancel(), child.exited]);
    assert.ok((forkCount() ?? 0) > before);
  });
});

describe("sessionMembers", () => {
  it("finds a live process in its own session and drops it once it is gone", async () => {
    const token = marker();
    const child = await spawnSleep(token);
    assert.equal(liveSession(readFileSync(`/proc/${child.pid}/stat`, "latin1")), child.pid);
    assert.deepEqual(sessionMembers(child.pid), [child.pid]);
    assert.deepEqual(sessionMembers(child.pid, (pid) => pid !== child.pid), [], "among limits");
    for (const forks of [forkCount(), null, (forkCount() ?? 0) - 2 ** 23]) {
      assert.deepEqual(recentSessionMembers(child.pid, forks), [child.pid], `forks ${forks}`);
    }
    runtime.kill(child.pid, "SIGKILL");
    await child.exited;
    assert.deepEqual(sessionMembers(child.pid), []);
    await assertNoneLeft(token);
  });
});

describe("sessionMembersBetween and processesWithEnvBetween", () => {
  it("read the pids one by one and count a process, never its threads", async () => {
    // This runtime's own binary, idle: a process of several threads in a session of its own.
    const idle = "setTimeout(() => {}, 60000)";
    const entry = `SHELLSEAM_WATCHDOG=t-${marker()}.3`;
    const child = await runtime.spawn({
      program: process.execPath,
      args: runtime.name === "deno" ? ["eval", idle] : ["-e", idle],
      cwd: "/",
      env: { SHELLSEAM_WATCHDOG: entry.slice(entry.indexOf("=") + 1) },
      stdin: "null",
      session: "detached",
    });
    try {
      await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
      let threads: number[] = [];
      for (let tries = 0; threads.length === 0 && tries < 100; tries++) {
        await new Promise((done) => setTimeout(done, 20));
        threads = readdirSync(`/proc/${child.pid}/task`).map(Number).filter((id) => id > child.pid);
      }
      assert.ok(threads.length > 0, "no thread started");
      // Read by its id, a thread says it is in the session.
      assert.equal(liveSession(readFileSync(`/proc/${threads[0]}/stat`, "latin1")), child.pid);
      const last = Math.max(...threads);
      assert.deepEqual(sessionMembersBetween(child.pid, child.pid, last), [child.pid]);
      assert.deepEqual(sessionMembersBetween(child.pid, child.pid + 1, last), []);
      // Read by its id, a thread shows its process's environment.
      assert.ok(readFileSync(`/proc/${threads[0]}/environ`, "latin1").includes(entry));
      assert.deepEqual(processesWithEnvBetween(entry, child.pid, last), [child.pid]);
      assert.deepEqual(processesWithEnvBetween(entry, child.pid + 1, last), []);
    } finally {
      runtime.kill(child.pid, "SIGKILL");
      await child.exited;
    }
    assert.deepEqual(sessionMembersBetween(child.pid, child.pid, child.pid), []);
  });
});

describe("outsideGroup", () => {
  it("leaves out the members of the group (a signal to it reaches them), keeps the rest", async () => {
    const token = marker();
    const child = await spawnSleep(token);
    try {
      assert.deepEqual(outsideGroup([child.pid], child.pid), []);
      assert.deepEqual(outsideGroup([child.pid], child.pid + 1), [child.pid]);
    } finally {
      runtime.kill(child.pid, "SIGKILL");
      await child.exited;
    }
    assert.deepEqual(outsideGroup([child.pid], child.pid), [child.pid], "gone: kept, harmless");
  });
});

describe("processesWithEnv", () => {
  it("finds a process by one exact entry of its environment, not by a prefix of it", async () => {
    const token = marker();
    const child = await runtime.spawn({
      program: "/bin/sh",
      args: ["-c", `exec sleep ${token}`],
      cwd: "/",
      env: { A: "1", SHELLSEAM_WATCHDOG: `t-${token}.12`, Z: "2" },
      stdin: "null",
      session: "detached",
    });
    await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
    try {
      assert.deepEqual(processesWithEnv(`SHELLSEAM_WATCHDOG=t-${token}.12`), [child.pid]);
      assert.deepEqual(processesWithEnv(`SHELLSEAM_WATCHDOG=t-${token}.1`), []);
      // Whichever entry comes first or last in the block is found too.
      assert.ok(processesWithEnv("A=1").includes(child.pid));
      assert.ok(processesWithEnv("Z=2").includes(child.pid));
      // Among the pids handed out since the spawn: one by one, from a listing, or all.
      const entry = `SHELLSEAM_WATCHDOG=t-${token}.12`;
      for (const forks of [forkCount(), null, (forkCount() ?? 0) - 2 ** 23]) {
        assert.deepEqual(recentProcessesWithEnv(entry, child.pid, forks), [child.pid]);
      }
      assert.deepEqual(recentProcessesWithEnv(`${entry}3`, child.pid, forkCount()), []);
    } finally {
      runtime.kill(child.pid, "SIGKILL");
      await child.exited;
    }
    await assertNoneLeft(token);
  });
});

describe("recentMembersAndMarked", () => {
  it("finds in one census what the session's and the marker's censuses find", async () => {
    const token = marker();
    const entry = `SHELLSEAM_WATCHDOG=t-${token}.7`;
    // The leader sleeps in its session; a child of it calls setsid and sleeps outside it.
    const child = await runtime.spawn({
      program: "/bin/bash",
      args: ["-c", `(exec setsid sleep ${token}) & exec sleep ${token}`],
      cwd: "/",
      env: { SHELLSEAM_WATCHDOG: entry.slice(entry.indexOf("=") + 1) },
      stdin: "null",
      session: "detached",
    });
    const forks = forkCount();
    await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
    try {
      const sleeps = await waitForSleep(token, 2);
      const outside = sleeps.filter((pid) => pid !== child.pid);
      assert.equal(outside.length, 1, `${sleeps}`);
      // One by one, from a listing, or all of /proc.
      for (const since of [forks, null, (forkCount() ?? 0) - 2 ** 23]) {
        assert.deepEqual(recentMembersAndMarked(child.pid, since, entry), {
          members: recentSessionMembers(child.pid, since),
          marked: outside,
        }, `forks ${since}`);
      }
      assert.deepEqual(recentSessionMembers(child.pid, forks), [child.pid]);
      assert.deepEqual(recentMembersAndMarked(child.pid, forks, `${entry}3`), {
        members: [child.pid],
        marked: [],
      });
    } finally {
      runtime.kill(-child.pid, "SIGKILL");
      for (const pid of processesWith(token)) runtime.kill(pid, "SIGKILL");
      await child.exited;
    }
    await assertNoneLeft(token);
  });
});

describe("a process whose leader ended alone while another thread runs", {
  skip: skipWithoutPython(),
}, () => {
  it("is live: every census finds it, by its session and by its marker", async () => {
    const token = marker();
    const entry = `SHELLSEAM_WATCHDOG=t-${token}.5`;
    const child = await spawnLoneThread(token, { SHELLSEAM_WATCHDOG: `t-${token}.5` });
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, "latin1");
      assert.equal(liveSession(stat), null, "the leader's own line reads as dead");
      const threads = readdirSync(`/proc/${child.pid}/task`).map(Number);
      assert.ok(threads.some((tid) => tid !== child.pid), `no other thread: ${threads}`);
      assert.equal(liveProcessSession(child.pid), child.pid);
      assert.deepEqual(sessionMembers(child.pid), [child.pid]);
      const last = Math.max(...threads);
      assert.deepEqual(sessionMembersBetween(child.pid, child.pid, last), [child.pid]);
      assert.deepEqual(processesWithEnv(entry), [child.pid]);
      assert.deepEqual(processesWithEnvBetween(entry, child.pid, last), [child.pid]);
      for (const forks of [forkCount(), null, (forkCount() ?? 0) - 2 ** 23]) {
        assert.deepEqual(recentSessionMembers(child.pid, forks), [child.pid], `forks ${forks}`);
        assert.deepEqual(recentProcessesWithEnv(entry, child.pid, forks), [child.pid]);
      }
      // The censuses taken once for several sessions or entries at a time see it too.
      assert.deepEqual(membersOfSessions(new Set([child.pid])).get(child.pid), [child.pid]);
      assert.deepEqual(processesWithEnvs(new Set([entry])).get(entry), [child.pid]);
      assert.deepEqual(processesWith(token), [child.pid], "the test helper sees it too");
    } finally {
      // A signal to the leader's pid ends the whole thread group.
      runtime.kill(child.pid, "SIGKILL");
      await child.exited;
    }
    assert.equal(liveProcessSession(child.pid), null);
    assert.deepEqual(sessionMembers(child.pid), []);
    await assertNoneLeft(token);
  });
});
