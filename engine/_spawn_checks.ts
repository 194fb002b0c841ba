import { statSync } from "node:fs";
import { type BashExecSpec, BashSpawnError } from "../seam/mod.ts";
import { throwIfDenied } from "./_permissions.ts";

/** The error of a call to an executor that was disposed. */
export function disposedError(): BashSpawnError {
  return new BashSpawnError("The executor was disposed; create a new executor to run commands");
}

/**
 * Throws `BashSpawnError` when nothing may be spawned for `spec`: the
 * executor was disposed, or the spec's signal was aborted before the start.
 */
export function checkCanSpawn(disposed: boolean, spec: BashExecSpec): void {
  if (disposed) {
    throw disposedError();
  }
  if (spec.signal?.aborted) {
    throw new BashSpawnError(
      "The signal was aborted before the command started, so nothing was run; pass a signal that is not aborted yet",
      { cause: spec.signal.reason },
    );
  }
}

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
