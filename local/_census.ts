import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

const isLinux = process.platform === "linux";

/**
 * Live (not zombie) processes in session `sid`, found by a census of /proc.
 * Processes that left the process group (job control, setpgid) but kept the
 * session are found too. Empty where there is no /proc.
 */
export function sessionMembers(sid: number): number[] {
  if (!isLinux) return [];
  const members: number[] = [];
  const wanted = String(sid);
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
    // Fields after the parenthesised command name: state ppid pgrp session.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 4);
    if (fields[3] === wanted && fields[0] !== "Z" && fields[0] !== "X") {
      members.push(Number(name));
    }
  }
  return members;
}
