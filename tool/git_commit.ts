import { isAbsolute, resolve } from "node:path";
import { BashConfigError } from "../seam/mod.ts";
import { canonicalWorkspaceRoot } from "../sandbox/policy.ts";
import { gitCommit } from "../git/mod.ts";
import { messageOf } from "../seam/message.ts";
import { failure } from "./_result.ts";
import type { AgentTool } from "./tool.ts";
import { GIT_COMMIT_SCHEMA, toolStandardSchema, validateToolArguments } from "./schemas/mod.ts";

/**
 * What {@linkcode createGitCommitTool} commits in.
 *
 * @example
 * ```ts
 * import type { GitCommitToolOptions } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const options: GitCommitToolOptions = { workspaceRoot: "/work/project" };
 * assert.equal(options.workdir, undefined);
 * ```
 */
export interface GitCommitToolOptions {
  /** The workspace: the repository and every path must lie in it. */
  workspaceRoot: string;
  /** The session's working directory: the default `workdir` and the base of relative ones (default: the workspace root). */
  workdir?: string;
  /** Who commits are by; default: the repository's `user.name`/`user.email`, else the user's global git config. */
  author?: { name: string; email: string };
}

/**
 * Builds the model-facing `git_commit` tool: commits the named paths with
 * `gitCommit()` of `@shellseam/bash/git` (on the host, git hardened:
 * no hooks, fsmonitor, filters, signing nor configured programs run). Offer
 * it beside `bash` when commands run sandboxed: they cannot write `.git`, so
 * `git commit` fails inside the sandbox. The reply names the new commit; a
 * refusal or git's own error comes back as an error result.
 *
 * @throws {BashConfigError} when `workspaceRoot` is not an existing folder or
 * `workdir` is not absolute.
 *
 * @example
 * ```ts
 * import { createGitCommitTool, toOpenAITool } from "@shellseam/bash/tool";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const workspace = mkdtempSync(join(tmpdir(), "example-"));
 * execFileSync("git", ["init", "-q", "-b", "main", workspace]);
 * writeFileSync(join(workspace, "notes.txt"), "hello\n");
 * try {
 *   const tool = createGitCommitTool({
 *     workspaceRoot: workspace,
 *     author: { name: "Agent", email: "agent@example.com" },
 *   });
 *   assert.equal(toOpenAITool(tool).function.name, "git_commit");
 *   const result = await tool.execute({ paths: ["notes.txt"], message: "Add notes" });
 *   assert.match(result.text, /^\[committed [0-9a-f]{12} on main: notes\.txt\]$/);
 *   const refused = await tool.execute({ paths: ["../elsewhere"], message: "No" });
 *   assert.equal(refused.isError, true);
 * } finally {
 *   rmSync(workspace, { recursive: true });
 * }
 * ```
 */
export function createGitCommitTool(options: GitCommitToolOptions): AgentTool {
  const workspaceRoot = canonicalWorkspaceRoot(options?.workspaceRoot);
  const { workdir = workspaceRoot, author } = options;
  if (typeof workdir !== "string" || !isAbsolute(workdir)) {
    throw new BashConfigError(
      `"workdir" must be an absolute path; got ${
        JSON.stringify(workdir)
      }; resolve it first, for example with path.resolve()`,
    );
  }
  return {
    name: "git_commit",
    description:
      "Commit files to the git repository of the workspace. Commands cannot write .git (the sandbox keeps it read-only, so `git add` and `git commit` fail in bash): use this instead. Name the files to commit (added, changed or deleted) and a message; only those files are committed, other staged changes stay staged. Hooks do not run. The reply names the new commit.",
    inputSchema: GIT_COMMIT_SCHEMA,
    standardSchema: toolStandardSchema("git_commit", GIT_COMMIT_SCHEMA),
    execute: async (args, context) => {
      const check = validateToolArguments("git_commit", GIT_COMMIT_SCHEMA, args);
      if (!check.ok) return failure(check.message);
      const { paths, message } = check.value as { paths: string[]; message: string };
      const cwd = resolve(workdir, (check.value.workdir as string | undefined) ?? ".");
      try {
        const result = await gitCommit({
          workspaceRoot,
          cwd,
          paths,
          message,
          ...(author ? { author } : {}),
          ...(context?.signal ? { signal: context.signal } : {}),
        });
        return {
          text: `[committed ${result.commit.slice(0, 12)} on ${
            result.branch ?? "a detached HEAD"
          }: ${result.paths.join(", ")}]`,
          isError: false,
        };
      } catch (error) {
        return failure(messageOf(error));
      }
    },
  };
}
