/**
 * What a commit is asked to commit, and what it made.
 *
 * @module
 */

/**
 * What {@linkcode gitCommit} commits.
 *
 * @example
 * ```ts
 * import type { GitCommitOptions } from "@shellseam/bash/git";
 * import assert from "node:assert/strict";
 *
 * const options: GitCommitOptions = {
 *   workspaceRoot: "/work/project",
 *   paths: ["src/main.ts"],
 *   message: "Fix the parser",
 * };
 * assert.equal(options.paths.length, 1);
 * ```
 */
export interface GitCommitOptions {
  /** The workspace: the repository and every path must lie in it. */
  workspaceRoot: string;
  /** Where relative paths start, and where the repository is looked up from (default: the workspace root). */
  cwd?: string;
  /** The files (or folders) to commit, as they are now: added, changed or deleted. */
  paths: string[];
  /** The commit message. */
  message: string;
  /** Who the commit is by; default: `user.name`/`user.email` of the repository, else of the user's global git config. */
  author?: { name: string; email: string };
  /** Stops git (killed) when aborted. */
  signal?: AbortSignal;
  /** How long git may take in all, in milliseconds (default 60000). */
  timeoutMs?: number;
}

/**
 * What {@linkcode gitCommit} made.
 *
 * @example
 * ```ts
 * import type { GitCommitResult } from "@shellseam/bash/git";
 * import assert from "node:assert/strict";
 *
 * const result: GitCommitResult = {
 *   commit: "0123456789abcdef0123456789abcdef01234567",
 *   branch: "main",
 *   repository: "/work/project",
 *   paths: ["src/main.ts"],
 * };
 * assert.equal(result.branch, "main");
 * ```
 */
export interface GitCommitResult {
  /** The new commit's id. */
  commit: string;
  /** The branch it is on, or null on a detached HEAD. */
  branch: string | null;
  /** The repository's working tree. */
  repository: string;
  /** The committed paths, relative to the working tree. */
  paths: string[];
}
