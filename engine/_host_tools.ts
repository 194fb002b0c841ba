/**
 * The host's own tools: the programs that the executor's process and its
 * watchdog run by name, outside any sandbox, while commands run or after
 * them. They are looked up on a search path taken once, before any command
 * runs: the folders of PATH in which one of them was found then. A folder
 * of PATH that a confined command may write (a workspace's
 * `node_modules/.bin`, which `npm run` puts first) is then not searched
 * later, when a command may have planted a `grep` or an `stty` there; and a
 * folder that is searched is one that the sandbox keeps out of every call's
 * writable roots (see `sandbox/_select_backend.ts`).
 *
 * @module
 */
import { delimiter, dirname, join } from "node:path";
import process from "node:process";
import { findOnPath } from "./_session.ts";

/**
 * The programs the host runs by name outside any sandbox: the watchdogs'
 * (`grep`, `rm`, `rmdir`, `sleep`; the portable one's `ps` and `awk`), a
 * terminal's resize (`perl`, else `stty`; `ps` where there is no /proc),
 * and the Node runtime's `mkfifo` (its output pipes, see `runtime/_fifo.ts`).
 */
export const HOST_TOOLS: readonly string[] = Object.freeze([
  "mkfifo",
  "grep",
  "rm",
  "rmdir",
  "sleep",
  "ps",
  "awk",
  "stty",
  "perl",
]);

/**
 * The search path of the host's tools ({@linkcode HOST_TOOLS}): the folders
 * of `path` in which one of them was found, in `path`'s order, each once.
 * Empty when none was found. Throws `BashConfigError` when the runtime
 * refuses a permission the lookup needs.
 */
export function hostToolPath(path: string | undefined = process.env.PATH): string {
  const folders = new Set<string>();
  for (const tool of HOST_TOOLS) {
    const found = findOnPath(tool, path);
    if (found !== null) folders.add(dirname(found));
  }
  // Each entry as findOnPath joins it (no trailing slash, no "." part).
  const order = (path ?? "").split(delimiter).map((entry) => dirname(join(entry, "tool")));
  return [...folders].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(delimiter);
}
