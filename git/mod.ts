/**
 * Committing on the host for a confined session: {@linkcode gitCommit}
 * commits the paths a model names with git hardened against what a confined
 * command could have planted in the workspace (no hooks, fsmonitor, filters,
 * signing nor configured programs run: {@linkcode GIT_HARDENING_CONFIG}), and
 * refuses, with a {@linkcode GitCommitError}, a repository it cannot commit
 * in safely. The model-facing `git_commit` tool over it is
 * `createGitCommitTool()` of `@shellseam/bash/tool`.
 *
 * @example A repository whose config names a filter driver is refused
 * ```ts
 * import { gitCommit, GitCommitError } from "@shellseam/bash/git";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const workspace = mkdtempSync(join(tmpdir(), "example-"));
 * execFileSync("git", ["init", "-q", workspace]);
 * execFileSync("git", ["-C", workspace, "config", "filter.lfs.clean", "git-lfs clean -- %f"]);
 * writeFileSync(join(workspace, "notes.txt"), "hello\n");
 * try {
 *   await assert.rejects(
 *     gitCommit({
 *       workspaceRoot: workspace,
 *       paths: ["notes.txt"],
 *       message: "Add notes",
 *       author: { name: "Agent", email: "agent@example.com" },
 *     }),
 *     (error) => error instanceof GitCommitError && /filter driver/.test(error.message),
 *   );
 * } finally {
 *   rmSync(workspace, { recursive: true });
 * }
 * ```
 *
 * @module
 */
export { gitCommit } from "./commit.ts";
export type { GitCommitOptions, GitCommitResult } from "./options.ts";
export { GitCommitError } from "./error.ts";
export { GIT_HARDENING_CONFIG } from "./hardening.ts";
