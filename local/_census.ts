import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

const isLinux = process.platform === "linux";

/** The kernel's PF_EXITING task flag: set when do_exit() starts, before open files are closed. */
const PF_EXITING = 0x4;

/**
 * The session of the process a `/proc/<pid>/stat` line describes, or null
 * when that process no longer counts as live: a zombie, a dead task, or one
 * already inside exit(). A process that has closed its pipes on the way out
 * is still "R" or "D" for a moment; its PF_EXITING flag says it is leaving.
 */
export function liveSession(stat: string): number | null {
  // Fields after the parenthesised command name: state ppid pgrp session tty_nr tpgid flags.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 7);
  const state = fields[0];
  const flags = Number(fields[6]);
  if (state === undefined || state === "Z" || state === "X" || state === "x") return null;
  if (!Number.isInteger(flags) || (flags & PF_EXITING) !== 0) return null;
  const session = Number(fields[3]);
  return Number.isInteger(session) ? session : null;
}

/**
 * Live processes in session `sid`, found by a census of /proc. Processes
 * that left the process group (job control, setpgid) but kept the session
 * are found too. Empty where there is no /proc.
 */
export function sessionMembers(sid: number): number[] {
  if (!isLinux) return [];
  const members: number[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return members;
  }
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue;
    }
    if (liveSession(stat) === sid) members.push(Number(name));
  }
  return members;
}
