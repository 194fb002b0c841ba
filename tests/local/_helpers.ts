import { createHash, randomInt } from "node:crypto";
import { closeSync, openSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import assert from "node:assert/strict";
import { LocalBashExecutor, runtime } from "../../local/mod.ts";
import type { SpawnedChild } from "../../runtime/mod.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { shellQuote } from "../../seam/shell_quote.ts";

/** An executor that shows its private directory (where the spill files are). */
export class PeekExecutor extends LocalBashExecutor {
  /** The private directory, created on first use. */
  dir(): Promise<string> {
    return this.privateDir();
  }
}

/** Both session strategies, so core behaviours run under each. */
export const STRATEGIES = ["setsid-binary", "detached"] as const;

/** Resolves after `ms` milliseconds. */
export const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Aborts `controller` after `depth` more microtasks, to land an abort between two awaits. */
export function abortAfterMicrotasks(controller: AbortController, depth: number): void {
  queueMicrotask(() =>
    depth === 0 ? controller.abort() : abortAfterMicrotasks(controller, depth - 1)
  );
}

/** A unique `sleep` duration that marks a test's processes in /proc/<pid>/cmdline. */
export function marker(): string {
  return `313.${randomInt(100_000, 999_999)}`;
}

/** The pid of the watchdog that `host` started (its child named shellseam-watchdog). */
export function watchdogOf(host: number): number {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1");
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (cmdline.includes("shellseam-watchdog") && parent === host) return Number(name);
    } catch {
      // It ended while we looked.
    }
  }
  throw new Error(`host ${host} has no watchdog`);
}

/**
 * Live pids whose command line contains `token`: not zombies, except a leader
 * that ended alone while another of its threads runs (that thread's command
 * line is read).
 */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const live = liveTask(`/proc/${name}`) ??
        readdirSync(`/proc/${name}/task`).map((tid) => liveTask(`/proc/${name}/task/${tid}`))
          .find((task) => task !== null);
      if (live != null && readFileSync(`${live}/cmdline`, "latin1").includes(token)) {
        found.push(Number(name));
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * Polls until `probe` is true, failing with `what` (a text, or a function
 * that tells what it saw) after `ms`: 60 s unless given, since a start on a
 * loaded machine is slow, and the wait ends as soon as the probe holds.
 */
export async function until(
  probe: () => boolean,
  what: string | (() => string),
  ms = 60_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) {
      assert.fail(`Timed out waiting for ${typeof what === "string" ? what : what()}`);
    }
    await pause(25);
  }
}

/** The command line of process `pid` (NULs between its words), or "" once it is gone. */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1");
  } catch {
    return "";
  }
}

/** `folder` (a process's or a thread's in /proc) when its task is not a zombie or dead, else null. */
function liveTask(folder: string): string | null {
  const stat = readFileSync(`${folder}/stat`, "latin1");
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X" ? null : folder;
}

/**
 * Fails unless no live process carries `token` within `ms` (a second covers
 * /proc catching up; work left to another process, such as a watchdog's
 * after its host died, gets longer).
 */
export async function assertNoneLeft(token: string, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  let left = processesWith(token);
  while (left.length > 0 && Date.now() < deadline) {
    await pause(50);
    left = processesWith(token);
  }
  assert.deepEqual(left, [], `processes carrying "${token}" were left behind`);
}

/**
 * A command whose `&` child stays in the command's session and group until
 * it is signalled, then leaves them: its TERM trap waits 0.3 s (a read that
 * times out, no process) and execs `setsid sleep <token>` (the same process,
 * now in a session of its own, still carrying the marker). The shell ends
 * once the trap is set. A sweep's census finds the child in the session,
 * and it leaves well after the group's signal.
 */
export function leavesOnTermCommand(token: string): string {
  return `d=$(mktemp -d); (exec {z}<> <(:); trap 'read -t 0.3 -u $z; exec setsid sleep ${token}' TERM; ` +
    `: >"$d/ready"; while :; do sleep 0.05; done) >/dev/null 2>&1 & ` +
    `until [ -e "$d/ready" ]; do sleep 0.01; done; rm -rf "$d"; echo started`;
}

/**
 * A python3 program (for `python3 -c`) whose main thread starts a thread and
 * then calls SYS_exit (60), which ends the main thread alone: its leader is a
 * zombie while the other thread runs on. Its arguments: how many seconds the
 * thread sleeps, then a shell command the thread runs after the sleep ("" for
 * none), then a file the thread creates before it sleeps ("" for none). A
 * marker among the sleep's digits marks the command line.
 */
export const LONE_THREAD_PY: string = "import ctypes, os, sys, threading, time\n" +
  "started = threading.Event()\n" +
  "def run():\n" +
  "    if sys.argv[3]: open(sys.argv[3], 'w').close()\n" +
  "    started.set()\n" +
  "    time.sleep(float(sys.argv[1]))\n" +
  "    if sys.argv[2]: os.system(sys.argv[2])\n" +
  "threading.Thread(target=run).start()\n" +
  "started.wait()\n" +
  "ctypes.CDLL(None).syscall(60, 0)\n";

/**
 * A bash command that starts {@linkcode LONE_THREAD_PY} in the background
 * (`prefix` before `python3`, e.g. `setsid`), its output to /dev/null, and
 * exits once its leader is a zombie (or it is gone): the thread outlives the
 * shell. `seconds`, `then`, `started`: the program's arguments.
 */
export function loneThreadCommand(
  seconds: string,
  { then = "", started = "", prefix = "" }: { then?: string; started?: string; prefix?: string } =
    {},
): string {
  const words = shellQuote([LONE_THREAD_PY, seconds, then, started]);
  return `${prefix} python3 -c ${words} >/dev/null 2>&1 & p=$!; ` +
    `until grep -qs ') Z ' /proc/$p/stat || ! [ -e /proc/$p ]; do sleep 0.02; done`;
}

/**
 * Spawns {@linkcode LONE_THREAD_PY} in a session of its own (with `env` added
 * to its environment), its thread sleeping `token` seconds (so the token marks
 * its command line). Resolves once the leader is a zombie and the other
 * thread runs on: a process the old census took for dead.
 */
export async function spawnLoneThread(
  token: string,
  env: Record<string, string> = {},
): Promise<SpawnedChild> {
  const child = await runtime.spawn({
    program: "python3",
    args: ["-c", LONE_THREAD_PY, token, "", ""],
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdin: "null",
    session: "detached",
  });
  await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const stat = readFileSync(`/proc/${child.pid}/stat`, "latin1");
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) break;
    if (Date.now() > deadline) {
      runtime.kill(child.pid, "SIGKILL");
      await child.exited;
      assert.fail(`the leader of python3 (pid ${child.pid}) did not end alone within 30 s`);
    }
    await pause(10);
  }
  const threads = readdirSync(`/proc/${child.pid}/task`).map(Number);
  assert.ok(threads.some((tid) => tid !== child.pid), `no other thread runs: ${threads}`);
  return child;
}

/** Waits until some live process carries `token`. */
export async function waitForProcess(token: string): Promise<number[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = processesWith(token);
    if (found.length > 0) return found;
    assert.ok(Date.now() < deadline, `no process carrying "${token}" appeared`);
    await pause(20);
  }
}

/** Hex sha256 of bytes or text. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The text `seq 1 n` prints. */
export function seqText(n: number): string {
  let text = "";
  for (let i = 1; i <= n; i++) text += `${i}\n`;
  return text;
}

/**
 * Waits until `count` processes run `sleep <token>` themselves (not merely a
 * shell whose command line mentions it), so traps set before the sleep are in place.
 */
export async function waitForSleep(token: string, count = 1): Promise<number[]> {
  // Long enough for a start on a loaded machine: the wait ends when they are there.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = processesWith(`sleep\0${token}\0`).filter((pid) =>
      cmdline(pid).startsWith("sleep\0")
    );
    if (found.length >= count) return found;
    assert.ok(Date.now() < deadline, `fewer than ${count} "sleep ${token}" processes appeared`);
    await pause(20);
  }
}

/**
 * Spawns `sleep <token>` straight through the runtime in a session of its
 * own (its pid is the session id), with its pipes cancelled, once it runs.
 */
export async function spawnSleep(token: string): Promise<SpawnedChild> {
  const child = await runtime.spawn({
    program: "/bin/sh",
    args: ["-c", `exec sleep ${token}`],
    cwd: "/",
    env: {},
    stdin: "null",
    session: "detached",
  });
  await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
  await waitForSleep(token);
  return child;
}

/** A heredoc of about 440 KB (over the kernel's 128 KiB per argument), multi-byte characters included. */
export function largeHeredoc(file: string): { command: string; body: string } {
  const body = Array.from(
    { length: 4000 },
    (_, i) => `line ${i} ${"é€😀".repeat(10)} $HOME \`x\` '\\'`,
  ).join("\n");
  const command = `cat > ${file} <<'EOF'\n${body}\nEOF\necho "$0 $# $LINENO"; wc -c < ${file}`;
  return { command, body };
}

/**
 * Does what a cleanup script (or systemd) may do to this process's
 * executors' cgroups: removes every one that is empty (a cgroup that holds a
 * process refuses), then their executor folders when emptied so. Returns
 * how many it removed.
 */
export function removeIdleCgroups(): number {
  const support = cgroupSupport();
  const dirs = new Set(
    [support.processes, support.memoryBytes].flatMap((found) => "dir" in found ? [found.dir] : []),
  );
  let removed = 0;
  const remove = (path: string): void => {
    try {
      rmdirSync(path);
      removed++;
    } catch {
      // Not empty: it stays.
    }
  };
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(`shellseam-exec-${process.pid}-`)) continue;
      const folder = join(dir, name);
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        if (entry.isDirectory()) remove(join(folder, entry.name));
      }
      remove(folder);
    }
  }
  return removed;
}

/** Opens /dev/null until this process has no descriptor left; returns them to close. */
export function exhaustDescriptors(): number[] {
  const held: number[] = [];
  try {
    for (;;) held.push(openSync("/dev/null", "r"));
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EMFILE") {
      for (const fd of held) closeSync(fd);
      throw error;
    }
  }
  return held;
}
