import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { messageOf } from "../seam/message.ts";

/**
 * Live (not zombie) pids on this machine whose command line (its arguments
 * joined by spaces) contains `text`,
 * from a census of /proc. Throws when /proc cannot be read (no /proc, or a
 * Deno permission set narrower than `--allow-all`).
 */
export function processesHere(text: string): Promise<number[]> {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch (cause) {
    return Promise.reject(
      new Error(
        `The conformance suite looks for leftover processes in /proc, which it cannot read here (${
          messageOf(cause)
        }); run it under --allow-all on Linux, or pass "findProcesses" for where your executor runs commands`,
        { cause },
      ),
    );
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1").replaceAll("\0", " ");
      if (!cmdline.includes(text)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const state = stat.charAt(stat.lastIndexOf(")") + 2);
      if (state !== "Z" && state !== "X") found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return Promise.resolve(found);
}

/** SIGKILLs `pids` on this machine: a failed case reports its leftovers but does not leave them. */
export function killHere(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
