// The git_commit tool over gitCommit() (tested in tests/git/commit_test.ts):
// it commits, answers a refusal or git's own error as an error result, and
// refuses a relative workdir when it is built.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { BashConfigError } from "../../seam/mod.ts";
import { createGitCommitTool } from "../../tool/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { tempWorkspace } from "../sandbox/_fixtures.ts";

const noGit = findOnPath("git") === null ? "git is not installed here; install git" : false;
const AUTHOR = { name: "Agent", email: "agent@example.com" };

/** `git init` of `dir`, on branch main, without the system's nor the user's config. */
function gitInit(dir: string): void {
  execFileSync("git", ["init", "-q", "-b", "main", dir], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  });
}

describe("the git_commit tool", { skip: noGit }, () => {
  it("commits, and answers a refusal or a git error as an error result", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    gitInit(root);
    writeFileSync(join(root, "a.txt"), "a\n");
    const tool = createGitCommitTool({ workspaceRoot: root, author: AUTHOR });
    assert.equal(tool.name, "git_commit");
    const done = await tool.execute(JSON.stringify({ paths: ["a.txt"], message: "Add a" }));
    assert.equal(done.isError, false, done.text);
    assert.match(done.text, /^\[committed [0-9a-f]{12} on main: a\.txt\]$/);
    const nothing = await tool.execute({ paths: ["a.txt"], message: "Again" });
    assert.equal(nothing.isError, true);
    assert.match(nothing.text, /nothing to commit/);
    const bad = await tool.execute({ paths: "a.txt", message: "m" });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /paths must be a list of non-blank strings \(at least 1\)/);
    const outside = await tool.execute({ paths: ["../x"], message: "m" });
    assert.match(outside.text, /outside the workspace/);
    assert.throws(
      () => createGitCommitTool({ workspaceRoot: root, workdir: "rel" }),
      BashConfigError,
    );
  });
});
