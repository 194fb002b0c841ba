import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * The name prefix of every executor's private folder in the temporary
 * directory, so that a sandbox can tell them apart from other folders there
 * and hide those of other executors (their spill files are other sessions'
 * output).
 */
export const PRIVATE_DIR_PREFIX = "shellseam-exec-";

/**
 * Makes a new private folder (mode 0700) in the temporary directory:
 * `shellseam-exec-<owner>-XXXXXX`, or `shellseam-exec-XXXXXX` without an
 * owner (the watchdog's `<pid>-<start>`, by which a later watchdog removes
 * the folder of a host that is gone).
 */
export function makePrivateDir(owner: string | null = null): string {
  return mkdtempSync(join(tmpdir(), `${PRIVATE_DIR_PREFIX}${owner === null ? "" : `${owner}-`}`));
}

/**
 * The private folders of other executors beside `own` (directories whose
 * names carry the prefix, not symlinks); throws when the folder holding them
 * cannot be listed.
 */
export function otherPrivateDirs(own: string): string[] {
  const parent = dirname(own);
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(PRIVATE_DIR_PREFIX))
    .map((entry) => join(parent, entry.name))
    .filter((path) => path !== own);
}
