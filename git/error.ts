/**
 * The error of a commit that git refused or failed.
 *
 * @module
 */
import { BashError } from "../seam/mod.ts";

/**
 * Git refused or failed; the message says why (git's own words included)
 * and what to do.
 *
 * @example
 * ```ts
 * import { GitCommitError } from "@shellseam/bash/git";
 * import assert from "node:assert/strict";
 *
 * const error = new GitCommitError("git commit failed: nothing to commit");
 * assert.equal(error.code, "git-commit");
 * ```
 */
export class GitCommitError extends BashError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("git-commit", message, options);
    this.name = "GitCommitError";
  }
}
