import { createHash, randomInt } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { LocalBashExecutor, runtime } from "../../local/mod.ts";
import type { SpawnedChild } from "../../local/runtime/_types.ts";

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

/** Live (non-zombie) pids whose command line contains `token`. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1");
      if (!cmdline.includes(token)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && state !== "X") found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Fails unless no live process carries `token` (a short wait covers /proc catching up). */
export async function assertNoneLeft(token: string): Promise<void> {
  const deadline = Date.now() + 1000;
  let left = processesWith(token);
  while (left.length > 0 && Date.now() < deadline) {
    await pause(50);
    left = processesWith(token);
  }
  assert.deepEqual(left, [], `processes carrying "${token}" were left behind`);
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
      readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith("sleep\0")
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
