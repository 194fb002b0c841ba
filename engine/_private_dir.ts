import { existsSync, lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { BashSpawnError } from "../seam/mod.ts";
import { folderNames } from "./_listing.ts";
import { faultReason } from "./_spill.ts";

/**
 * The name prefix of every executor's private folder, so that a sandbox can
 * tell them apart from other folders and hide those of other executors
 * (their spill files are other sessions' output).
 */
export const PRIVATE_DIR_PREFIX = "shellseam-exec-";

/**
 * The name prefix of the folder, one per user, that holds that user's private
 * folders in the temporary directory: `shellseam-u<uid>`. It stays when the
 * folders in it come and go, so a sandbox can hide it whole (and bind its
 * own folder back) without racing an executor that removes its folder.
 */
export const PRIVATE_PARENT_PREFIX = "shellseam-u";

/** Where this user's private folders live in `base` (not made). */
export function privateParentPath(base: string = tmpdir()): string {
  return join(base, `${PRIVATE_PARENT_PREFIX}${process.getuid?.() ?? 0}`);
}

/**
 * This user's folder of private folders in `base`, made (mode 0700) when
 * missing. Throws `BashSpawnError` when the name is taken by something that
 * is not a folder of this user's alone (a symlink, another user's folder, a
 * folder others may enter): someone else could read or swap what is put in it.
 */
export function privateParent(base: string = tmpdir()): string {
  const path = privateParentPath(base);
  // What went wrong making it (a read-only or full disk, a denied permission)
  // is the caller's to report, as for the private folder itself.
  makeFolder(path);
  const stat = lstatSync(path);
  if (!stat.isDirectory() || stat.uid !== (process.getuid?.() ?? 0) || (stat.mode & 0o077) !== 0) {
    throw new BashSpawnError(
      `"${path}" is not a folder that only this user can enter, so no private folder is made ` +
        "there; remove it, or point TMPDIR elsewhere",
    );
  }
  return path;
}

/**
 * Makes a new private folder (mode 0700) in this user's folder of private
 * folders in `base` (the executor's `spillDir`, by default the temporary
 * directory): `shellseam-exec-<owner>-XXXXXX`, or
 * `shellseam-exec-XXXXXX` without an owner (the watchdog's `<pid>-<start>`,
 * by which a later watchdog removes the folder of a host that is gone).
 */
export function makePrivateDir(base: string = tmpdir(), owner: string | null = null): string {
  return mkdtempSync(
    join(privateParent(base), `${PRIVATE_DIR_PREFIX}${owner === null ? "" : `${owner}-`}`),
  );
}

/**
 * The private folders of other executors beside `own` (directories whose
 * names carry the prefix, not symlinks); throws when the folder holding them
 * cannot be listed.
 */
export function otherPrivateDirs(own: string): string[] {
  const parent = dirname(own);
  return folderNames(parent).filter((name) => name.startsWith(PRIVATE_DIR_PREFIX))
    .map((name) => join(parent, name))
    .filter((path) => path !== own && isFolder(path));
}

/**
 * Every user's folder of private folders in `base` (`shellseam-u<uid>`
 * directories, not symlinks); throws when `base` cannot be listed.
 */
export function privateParents(base: string): string[] {
  const name = new RegExp(`^${PRIVATE_PARENT_PREFIX}\\d+$`);
  return folderNames(base).filter((entry) => name.test(entry))
    .map((entry) => join(base, entry))
    .filter(isFolder);
}

/** Whether `path` is a folder (not a link to one); false when it is gone. */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return false;
    throw error;
  }
}

/** True when `path` is a directory (not a link to one) owned by this process's user. */
export function isOwnDirectory(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() && stat.uid === (process.getuid?.() ?? stat.uid);
  } catch {
    return false;
  }
}

/**
 * Makes the folder `path` (mode 0700) unless something has the name already;
 * never its parents, which are someone else's to make (a private folder's
 * maker checks what it makes). Other failures throw.
 */
export function makeFolder(path: string): void {
  // Made already at most calls: no failed mkdir (Deno builds an exception for each).
  if (existsSync(path)) return;
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
}

/**
 * The private folder `make` returns, or a `BashSpawnError` that says where
 * it could not be made and what to do (a read-only or full file system, a
 * denied permission): a call that needs the folder (a confined one) runs
 * nothing without it.
 */
export function privateDirIn(base: string, make: () => string): string {
  try {
    return make();
  } catch (error) {
    if (error instanceof BashSpawnError) throw error;
    throw new BashSpawnError(
      `Could not make the executor's private folder in "${base}" (${
        faultReason(error)
      }), so nothing was run; make that folder writable, or set "spillDir" (or TMPDIR) to one that is`,
      { cause: error },
    );
  }
}
