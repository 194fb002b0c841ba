import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";
import { LocalBashExecutor, runtime } from "../../local/mod.ts";
import { findOnPath, findSetsid } from "../../engine/_session.ts";
import { Watchdog } from "../../engine/_watchdog.ts";
import { PRIVATE_DIR_PREFIX } from "../../engine/_private_dir.ts";
import { ProcessControl } from "../../engine/_control.ts";
import {
  assertNoneLeft,
  marker,
  pause,
  spawnLoneThread,
  spawnSleep,
  STRATEGIES,
  waitForSleep,
} from "../local/_helpers.ts";
import { skipWithoutPython } from "../sandbox/_fixtures.ts";

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function startTime(pid: number | "self"): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

function watchdogIn(tempRoot: string, session: (typeof STRATEGIES)[number]): Watchdog {
  const bash = findOnPath("bash");
  assert.ok(bash !== null);
  return new Watchdog({
    runtime,
    bash,
    setsidPath: session === "setsid-binary" ? findSetsid() : null,
    session,
    tempRoot,
  });
}

class Peek extends LocalBashExecutor {
  folder(): Promise<string> {
    return this.privateDir();
  }
}

for (const session of STRATEGIES) {
  describe(`the watchdog (${session})`, () => {
    it("takes a census of a session and sends signals for the host", async () => {
      const watchdog = watchdogIn(tmpdir(), session);
      const token = marker();
      const child = await spawnSleep(token);
      try {
        assert.deepEqual(await watchdog.census(child.pid), [child.pid]);
        assert.deepEqual(await watchdog.signal("SIGKILL", [-child.pid]), [true]);
        assert.equal((await child.exited).signal, "SIGKILL");
        assert.deepEqual(await watchdog.census(child.pid), []);
        assert.deepEqual(await watchdog.signal("SIGKILL", [child.pid]), [false]);
      } finally {
        runtime.kill(-child.pid, "SIGKILL");
        await watchdog.close();
      }
      await assertNoneLeft(token);
    });

    it("finds the processes whose environment holds an entry, exactly", async () => {
      const watchdog = watchdogIn(tmpdir(), session);
      const token = marker();
      const child = await runtime.spawn({
        program: "/bin/sh",
        args: ["-c", `exec sleep ${token}`],
        cwd: "/",
        env: { SHELLSEAM_WATCHDOG: `t-${token}.1` },
        stdin: "null",
        session: "detached",
      });
      await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
      try {
        await waitForSleep(token);
        assert.deepEqual(await watchdog.marked(`SHELLSEAM_WATCHDOG=t-${token}.1`), [child.pid]);
        assert.deepEqual(await watchdog.marked(`SHELLSEAM_WATCHDOG=t-${token}.`), []);
      } finally {
        runtime.kill(child.pid, "SIGKILL");
        await child.exited;
        await watchdog.close();
      }
    });

    it("counts a process whose leader ended alone, and kills it on disposal", {
      skip: skipWithoutPython(),
    }, async () => {
      const watchdog = watchdogIn(tmpdir(), session);
      const token = marker();
      const entry = `SHELLSEAM_WATCHDOG=${watchdog.token}.1`;
      await watchdog.ready();
      const child = await spawnLoneThread(token, { SHELLSEAM_WATCHDOG: `${watchdog.token}.1` });
      try {
        assert.deepEqual(await watchdog.census(child.pid), [child.pid]);
        assert.deepEqual(await watchdog.marked(entry), [child.pid]);
        // Closing sends "q": whatever still carries the token is killed.
        await watchdog.close();
        assert.equal((await child.exited).signal, "SIGKILL");
      } finally {
        runtime.kill(child.pid, "SIGKILL");
        await child.exited;
        await watchdog.close();
      }
      await assertNoneLeft(token);
    });

    it("starts again when it died, and answers", async () => {
      const watchdog = watchdogIn(tmpdir(), session);
      await watchdog.ready();
      const first = watchdog.pid;
      assert.ok(first !== null);
      runtime.kill(first, "SIGKILL");
      const deadline = Date.now() + 5000;
      while (watchdog.pid !== null && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 10));
      }
      assert.deepEqual(await watchdog.census(2 ** 22 + 5), []);
      assert.ok(watchdog.pid !== null && watchdog.pid !== first);
      await watchdog.close();
    });
  });
}

describe("disposal", () => {
  it("kills a process that left its command's session but kept its environment", async () => {
    const token = marker();
    const executor = new LocalBashExecutor();
    // Still running at disposal (the sweep after a command that ended would kill the escapee).
    const task = await executor.start(executor.resolve({
      command: `setsid sleep ${token} >/dev/null 2>&1 & echo "$SHELLSEAM_WATCHDOG"; sleep ${token}`,
    }));
    await waitForSleep(token, 2);
    // The echo ran before the sleeps, but its bytes may still be on their way through the pipe.
    let stdout = "";
    for (let tries = 0; stdout === "" && tries < 200; tries++) {
      stdout = task.readOutput().stdout.text;
      if (stdout === "") await pause(25);
    }
    assert.match(stdout, /^[0-9a-f-]{36}\.1\n$/);
    await executor[Symbol.asyncDispose]();
    await assertNoneLeft(token);
  });
});

describe("the private folder", () => {
  it("is named after its owner: this process's pid and start time", async () => {
    await using executor = new Peek();
    const name = basename(await executor.folder());
    assert.match(
      name,
      new RegExp(`^${PRIVATE_DIR_PREFIX}${process.pid}-${startTime("self")}-\\w{6}$`),
    );
  });

  it("has its owner even when made while the watchdog is still starting", async () => {
    // A bash that takes a moment to start: the watchdog's process is up (it has
    // a pid) well before it names the owner.
    const dir = mkdtempSync(join(tmpdir(), "watchdog-slow-"));
    try {
      const slow = join(dir, "bash");
      writeFileSync(slow, `#!/bin/sh\nsleep 0.3\nexec ${findOnPath("bash")} "$@"\n`, {
        mode: 0o755,
      });
      const watchdog = new Watchdog({
        runtime,
        bash: slow,
        setsidPath: null,
        session: "detached",
        tempRoot: tmpdir(),
      });
      try {
        const first = watchdog.ready();
        while (watchdog.pid === null) await pause(5);
        assert.equal(watchdog.owner, null, "still starting");
        await watchdog.ready();
        assert.match(watchdog.owner ?? "", new RegExp(`^${process.pid}-${startTime("self")}$`));
        await first;
      } finally {
        await watchdog.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("carries no owner when it is kept, so no one removes it", async () => {
    const executor = new Peek({ keepSpillFiles: true });
    const folder = await executor.folder();
    await executor[Symbol.asyncDispose]();
    assert.match(basename(folder), new RegExp(`^${PRIVATE_DIR_PREFIX}\\w{6}$`));
    rmSync(folder, { recursive: true });
  });

  it("of a dead owner is removed by the next watchdog; a live owner's, and others, stay", async () => {
    const root = mkdtempSync(join(tmpdir(), "watchdog-root-"));
    try {
      const token = marker();
      const gone = await spawnSleep(token);
      const goneStart = startTime(gone.pid);
      runtime.kill(gone.pid, "SIGKILL");
      await gone.exited;
      const folders = {
        dead: `${PRIVATE_DIR_PREFIX}${gone.pid}-${goneStart}-aaaaaa`,
        // A pid in use by another process than the one that made it.
        reused: `${PRIVATE_DIR_PREFIX}${process.pid}-${Number(startTime("self")) + 1}-bbbbbb`,
        live: `${PRIVATE_DIR_PREFIX}${process.pid}-${startTime("self")}-cccccc`,
        ownerless: `${PRIVATE_DIR_PREFIX}dddddd`,
      };
      for (const name of Object.values(folders)) mkdirSync(join(root, name));
      mkdirSync(join(root, "target"));
      const link = `${PRIVATE_DIR_PREFIX}${gone.pid}-${goneStart}-eeeeee`;
      symlinkSync(join(root, "target"), join(root, link));
      const watchdog = watchdogIn(root, "detached");
      // Answers come after the sweep, which runs first.
      await watchdog.census(2 ** 22 + 5);
      await watchdog.close();
      assert.equal(existsSync(join(root, folders.dead)), false, "a dead owner's folder stayed");
      assert.equal(existsSync(join(root, folders.reused)), false, "a reused pid's folder stayed");
      assert.equal(existsSync(join(root, folders.live)), true, "a live owner's folder went");
      assert.equal(existsSync(join(root, folders.ownerless)), true, "a folder without owner went");
      assert.equal(existsSync(join(root, link)), true, "a symlink was followed or removed");
      assert.equal(existsSync(join(root, "target")), true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** Runs `action` with every free descriptor of this process taken (EMFILE on any open). */
async function withoutDescriptors<T>(action: () => Promise<T>): Promise<T> {
  const held: number[] = [];
  try {
    for (;;) {
      try {
        held.push(openSync("/dev/null", "r"));
      } catch (error) {
        assert.equal((error as NodeJS.ErrnoException).code, "EMFILE");
        break;
      }
    }
    return await action();
  } finally {
    for (const fd of held) closeSync(fd);
  }
}

describe("a census under EMFILE", () => {
  it("is taken by the watchdog, which also sends the signal", async () => {
    const watchdog = watchdogIn(tmpdir(), "detached");
    const control = new ProcessControl(runtime, watchdog);
    const token = marker();
    const child = await spawnSleep(token);
    await watchdog.ready();
    try {
      const members = await withoutDescriptors(() => control.members(child.pid));
      assert.deepEqual(members, [child.pid]);
      await control.signal("SIGKILL", [-child.pid]);
      assert.equal((await child.exited).signal, "SIGKILL");
    } finally {
      runtime.kill(-child.pid, "SIGKILL");
      await watchdog.close();
    }
    await assertNoneLeft(token);
  });

  it("fails with both reasons when the watchdog cannot answer either", async () => {
    const watchdog = watchdogIn(tmpdir(), "detached");
    const control = new ProcessControl(runtime, watchdog);
    await watchdog.ready();
    runtime.kill(watchdog.pid!, "SIGKILL");
    // Once its death is handled: its pipes close then, and descriptors freed while the census
    // waits for its turn would let the in-process census run after all.
    for (const deadline = Date.now() + 30_000; watchdog.pid !== null;) {
      assert.ok(Date.now() < deadline, "the watchdog's death was not noticed");
      await pause(10);
    }
    await assert.rejects(
      withoutDescriptors(() => control.members(2 ** 22 + 5)),
      (error: Error) => /EMFILE/.test(error.message) && /watchdog/.test(error.message),
    );
    await watchdog.close();
  });
});
