import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Runtime, runtime } from "../../local/mod.ts";
import { GroupReaper } from "../../engine/_reaper.ts";
import { type KillSignal, ProcessControl } from "../../engine/_control.ts";
import { assertNoneLeft, marker, spawnSleep } from "../local/_helpers.ts";

/** A runtime whose `kill` records each call (pid and signal) in `sent` and sends nothing. */
function recordingKills(): { sent: [number, string][]; recording: Runtime } {
  const sent: [number, string][] = [];
  const recording: Runtime = {
    ...runtime,
    kill: (pid, signal) => {
      sent.push([pid, String(signal)]);
      return true;
    },
  };
  return { sent, recording };
}

describe("GroupReaper", () => {
  it("reports processes that would not die as survivors", async () => {
    const token = marker();
    const child = await spawnSleep(token);
    const signals: string[] = [];
    const deaf: Runtime = {
      ...runtime,
      kill: (pid, signal) => {
        if (signal === 0) return runtime.kill(pid, 0);
        signals.push(signal);
        return true;
      },
    };
    try {
      const reaper = new GroupReaper(new ProcessControl(deaf, null), child.pid, 100);
      const report = await reaper.sweep(true);
      assert.deepEqual(report, { killed: 0, survivors: [child.pid] });
      assert.ok(signals.includes("SIGTERM") && signals.includes("SIGKILL"));
    } finally {
      runtime.kill(-child.pid, "SIGKILL");
      await child.exited;
    }
    await assertNoneLeft(token);
  });

  it("reports nothing when nothing was killed and no process of the session is left", async () => {
    let probes = 0;
    const counting: Runtime = {
      ...runtime,
      kill: (pid, signal) => {
        if (signal === 0) probes++;
        else assert.fail(`unexpected ${signal} to ${pid}`);
        return false;
      },
    };
    const report = await new GroupReaper(new ProcessControl(counting, null), 2 ** 22 + 999, 100)
      .sweep(false);
    assert.deepEqual(report, { killed: 0, survivors: [] });
    // The census alone decides; the group is not probed.
    assert.equal(probes, 0);
  });

  it("reads only the pids handed out since the spawn until a kill is requested", async () => {
    const recent: boolean[] = [];
    class Recording extends ProcessControl {
      override members(sid: number, forksAtSpawn?: number | null): Promise<number[]> {
        recent.push(forksAtSpawn !== undefined);
        return super.members(sid, forksAtSpawn);
      }
    }
    const token = marker();
    const child = await spawnSleep(token);
    // Its pipes open and its group alive: still every member is younger than the leader.
    const reaper = new GroupReaper(new Recording(runtime, null), child.pid, 3000);
    const report = await reaper.sweep(true);
    await child.exited;
    assert.deepEqual(report, { killed: 1, survivors: [] });
    // The first census found the sleep; the ones after the kill read every pid.
    assert.equal(recent[0], true);
    assert.ok(recent.slice(1).length > 0 && recent.slice(1).every((was) => !was), `${recent}`);
    await assertNoneLeft(token);
  });

  it("sends SIGTERM once and SIGKILL once, after the grace, however often it is asked", async () => {
    const { sent, recording } = recordingKills();
    const sid = 2 ** 22 + 777;
    const reaper = new GroupReaper(new ProcessControl(recording, null), sid, 300);
    reaper.terminate();
    reaper.terminate();
    // Its group exists (the probe says so): the group alone, so no process gets it twice.
    const term: [number, string][] = [[-sid, "0"], [-sid, "SIGTERM"]];
    assert.deepEqual(sent, term);
    await new Promise((done) => setTimeout(done, 150));
    reaper.terminate();
    assert.deepEqual(sent, term);
    reaper.leaderExited();
    const deadline = Date.now() + 5000;
    while (sent.length < 3 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
    }
    // Once the program was reaped its pid may be reused: only the group gets SIGKILL.
    assert.deepEqual(sent, [...term, [-sid, "SIGKILL"]]);
    reaper.dispose();
  });

  it("signals the group once when its census finds members in it, and each member outside it once", async () => {
    const { sent, recording } = recordingKills();
    const sid = 2 ** 22 + 781;
    const outside = 2 ** 22 + 790;
    // The census finds the program and a child in the group, and one that left it.
    class Census extends ProcessControl {
      override members(): Promise<number[]> {
        return Promise.resolve([sid, sid + 1, outside]);
      }
      override outsideGroup(pids: readonly number[]): number[] {
        return pids.filter((pid) => pid === outside);
      }
    }
    const reaper = new GroupReaper(new Census(recording, null), sid, 60_000);
    reaper.terminate();
    const deadline = Date.now() + 5000;
    while (!sent.some(([pid]) => pid === outside) && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 5));
    }
    // A second TERM to the group could run a trap twice (a cleanup run twice).
    assert.deepEqual(sent.filter(([, signal]) => signal === "SIGTERM"), [
      [-sid, "SIGTERM"],
      [outside, "SIGTERM"],
    ]);
    reaper.dispose();
  });

  it("signals the program itself until it has made its group, never both", () => {
    const sent: [number, string][] = [];
    const groupless: Runtime = {
      ...runtime,
      kill: (pid, signal) => {
        sent.push([pid, String(signal)]);
        return signal !== 0;
      },
    };
    const sid = 2 ** 22 + 778;
    const reaper = new GroupReaper(new ProcessControl(groupless, null), sid, 60_000);
    reaper.terminate();
    assert.deepEqual(sent, [[-sid, "0"], [sid, "SIGTERM"]]);
    reaper.dispose();
  });

  it("kills a live process of the session and counts it", async () => {
    const token = marker();
    const child = await spawnSleep(token);
    const reaper = new GroupReaper(new ProcessControl(runtime, null), child.pid, 3000);
    const report = await reaper.sweep(false);
    await child.exited;
    assert.deepEqual(report, { killed: 1, survivors: [] });
    await assertNoneLeft(token);
  });

  it("kills a member that left the session between the census and the signal to its group", async () => {
    // The race a loaded machine showed: the census finds a `setsid sleep &` child still in the
    // session, it calls setsid() before the group's signal, which then misses it.
    const sid = 2 ** 22 + 779;
    const escapee = 2 ** 22 + 780;
    let alive = true;
    let inSession = true;
    const direct: string[] = [];
    class Racing extends ProcessControl {
      override recentMembersAndMarked(): { members: number[]; marked: number[] } {
        return { members: inSession ? [escapee] : [], marked: inSession ? [] : [escapee] };
      }
      override members(): Promise<number[]> {
        return Promise.resolve(alive && inSession ? [escapee] : []);
      }
      override marked(): Promise<number[]> {
        return Promise.resolve(alive ? [escapee] : []);
      }
      override outsideGroup(pids: readonly number[]): number[] {
        return inSession ? [] : [...pids];
      }
      override exists(target: number): boolean {
        return target === -sid;
      }
      override signal(signal: KillSignal, targets: readonly number[]): Promise<void> {
        // The group's signal comes just after the escapee left it.
        inSession = false;
        if (targets.includes(escapee)) direct.push(signal);
        if (targets.includes(escapee) && signal === "SIGKILL") alive = false;
        return Promise.resolve();
      }
    }
    const reaper = new GroupReaper(new Racing(runtime, null), sid, 60_000, "m", 0);
    reaper.leaderExited();
    const report = await reaper.sweep(false);
    assert.deepEqual(report, { killed: 1, survivors: [] });
    assert.deepEqual(direct, ["SIGKILL"]);
    assert.equal(alive, false, "the escapee was counted as killed and left running");
  });

  it("kills the process group when no census can be taken, and says the census failed", async () => {
    const token = marker();
    const child = await spawnSleep(token);
    class Blind extends ProcessControl {
      override members(): Promise<number[]> {
        return Promise.reject(new Error("no /proc here"));
      }
    }
    const reaper = new GroupReaper(new Blind(runtime, null), child.pid, 3000);
    const report = await reaper.sweep(false);
    assert.deepEqual(report, { killed: 0, survivors: [], censusFailed: "no /proc here" });
    assert.equal((await child.exited).signal, "SIGTERM");
    await assertNoneLeft(token);
  });
});
