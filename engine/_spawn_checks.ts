import { statSync } from "node:fs";
import { BashSpawnError } from "../seam/mod.ts";
import { throwIfDenied } from "./_permissions.ts";

/** Throws `BashSpawnError` when `bash` was not found on PATH. */
export function checkBash(bash: string | null): asserts bash is string {
  if (bash === null) {
    throw new BashSpawnError(`No "bash" was found on PATH; install bash or fix PATH`);
  }
}

/**
 * Throws `BashSpawnError` when `workdir` is not an existing directory (a
 * refused permission is reported as such).
 */
export function checkWorkdir(workdir: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(workdir).isDirectory();
  } catch (error) {
    throwIfDenied(error, `check the workdir "${workdir}"`);
    // Otherwise reported below.
  }
  if (!isDirectory) {
    throw new BashSpawnError(
      `Workdir "${workdir}" does not exist or is not a directory; pass an existing directory`,
    );
  }
}
