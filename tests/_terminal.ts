import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import type { BashProcess } from "../seam/mod.ts";

/**
 * Follows a terminal process's output (its `output()` iterator) and waits for
 * text to appear in it: each wait starts from what the command said, never
 * from a fixed sleep.
 */
export class TerminalWatch {
  text = "";
  readonly #waiters = new Set<() => void>();
  readonly ended: Promise<void>;

  constructor(process: BashProcess) {
    this.ended = (async () => {
      for await (const event of process.output()) {
        if (!("text" in event) || event.stream !== "stdout") continue;
        this.text += event.text;
        for (const wake of this.#waiters) wake();
      }
    })();
  }

  /** Resolves once the output holds `pattern` (after `from` characters); rejects after `ms`. */
  async until(pattern: RegExp, ms = 10_000, from = 0): Promise<string> {
    const deadline = performance.now() + ms;
    while (!pattern.test(this.text.slice(from))) {
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(
          `no ${pattern} within ${ms} ms; the output ends: ${
            JSON.stringify(this.text.slice(-2000))
          }`,
        );
      }
      await new Promise<void>((wake) => {
        const done = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(done);
          wake();
        };
        const timer = setTimeout(done, left);
        this.#waiters.add(done);
      });
    }
    return this.text;
  }
}

/** Whether this host has /proc (Linux); else processes are listed by `ps` (macOS). */
const hasProc = process.platform === "linux";

/** Every live process as pid, parent pid and state, by `ps` (where there is no /proc). */
function psListing(): { pid: number; ppid: number; state: string }[] {
  const listed = spawnSync("ps", ["-A", "-o", "pid=,ppid=,state="], { encoding: "utf8" });
  return listed.stdout.split("\n").map((line) => line.trim().split(/\s+/)).filter((words) =>
    words.length === 3
  ).map(([pid, ppid, state]) => ({ pid: Number(pid), ppid: Number(ppid), state: state ?? "" }));
}

/** The pids of `pid` and every process below it, now (read from /proc on the host, else by `ps`). */
export function processTree(pid: number): number[] {
  if (!hasProc) {
    const listing = psListing();
    const found = [pid];
    for (let i = 0; i < found.length; i++) {
      for (const entry of listing) if (entry.ppid === found[i]) found.push(entry.pid);
    }
    return found.filter((one) => listing.some((entry) => entry.pid === one));
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (!existsSync(`/proc/${next}`)) continue;
    found.push(next);
    try {
      for (const task of readFileSync(`/proc/${next}/task/${next}/children`, "latin1").split(" ")) {
        if (task !== "") queue.push(Number(task));
      }
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** Those of `pids` still alive (zombies count as gone). */
export function alive(pids: readonly number[]): number[] {
  if (!hasProc) {
    const listing = psListing();
    return pids.filter((pid) =>
      listing.some((entry) => entry.pid === pid && !entry.state.startsWith("Z"))
    );
  }
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state !== "Z" && state !== "X";
    } catch {
      return false;
    }
  });
}
