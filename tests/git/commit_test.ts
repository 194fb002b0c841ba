// gitCommit(): a repository in which a command planted everything git could
// be made to run (hooks, a hooks path, an fsmonitor, includes, aliases,
// signing, pager and editor programs, a filter driver, a commondir); the
// commit lands with the right content, and no canary file appears. Bad paths
// are refused before git runs. The git_commit tool over it is tested in
// tests/tool/git_commit_test.ts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { BashConfigError, BashSpawnError } from "../../seam/mod.ts";
import { ProtectedPaths } from "../../sandbox/protected/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { gitCommit, GitCommitError } from "../../git/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { tempWorkspace, type Workspace } from "../sandbox/_fixtures.ts";
import { testGit } from "../_git.ts";

const noGit = findOnPath("git") === null ? "git is not installed here; install git" : false;
const AUTHOR = { name: "Agent", email: "agent@example.com" };
const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-index-change",
  "reference-transaction",
  "pre-auto-gc",
];

/** git as the test runs it: nothing of the repository's own programs (hooks, fsmonitor) runs. */
function git(cwd: string, ...args: string[]): string {
  return testGit(cwd, ["core.fsmonitor=false"], args);
}

/** A script that leaves `canary-<name>` in the workspace's base when run. */
function canaryScript(workspace: Workspace, name: string): string {
  const path = join(workspace.base, "scripts", name);
  mkdirSync(join(workspace.base, "scripts"), { recursive: true });
  writeFileSync(path, `#!/bin/sh\ntouch '${join(workspace.base, `canary-${name}`)}'\nexit 1\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The canaries that appeared. */
function canaries(workspace: Workspace): string[] {
  return readdirSync(workspace.base).filter((name) => name.startsWith("canary-"));
}

/** A repository at `root` whose one commit adds the file `name` holding `text`. */
function committedRepository(root: string, name: string, text: string): void {
  git(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, name), text);
  git(root, "add", name);
  git(root, "commit", "-q", "-m", "first");
}

/** A repository at the workspace root with one commit, then everything a command could plant. */
function plantedRepository(workspace: Workspace): void {
  const { root } = workspace;
  committedRepository(root, "kept.txt", "first\n");
  const gitDir = join(root, ".git");
  for (const hook of HOOKS) {
    const script = canaryScript(workspace, `hook-${hook}`);
    writeFileSync(join(gitDir, "hooks", hook), `#!/bin/sh\nexec '${script}'\n`);
    chmodSync(join(gitDir, "hooks", hook), 0o755);
  }
  // A hooks path in the working tree, with hooks of its own.
  mkdirSync(join(root, "tools", "hooks"), { recursive: true });
  for (const hook of HOOKS) {
    const script = canaryScript(workspace, `hookspath-${hook}`);
    writeFileSync(join(root, "tools", "hooks", hook), `#!/bin/sh\nexec '${script}'\n`);
    chmodSync(join(root, "tools", "hooks", hook), 0o755);
  }
  const program = (name: string) => canaryScript(workspace, name);
  // Includes, beside the workspace (ones inside it are refused: see below).
  const { base } = workspace;
  writeFileSync(
    join(base, "included.cfg"),
    `[core]\n\tfsmonitor = ${program("included-fsmonitor")}\n\tsshCommand = ${
      program("included-ssh")
    }\n[alias]\n\tadd = !${program("alias-add")}\n\tcommit = !${program("alias-commit")}\n`,
  );
  writeFileSync(
    join(base, "conditional.cfg"),
    `[core]\n\thooksPath = ${join(root, "tools", "hooks")}\n\tpager = ${
      program("conditional-pager")
    }\n`,
  );
  const config = [
    "[core]",
    `\thooksPath = tools/hooks`,
    `\tfsmonitor = ${program("fsmonitor")}`,
    `\teditor = ${program("editor")}`,
    `\tpager = ${program("pager")}`,
    `\taskPass = ${program("askpass")}`,
    "[include]",
    "\tpath = ../../included.cfg",
    `[includeIf "gitdir:${gitDir}/"]`,
    `\tpath = ${join(base, "conditional.cfg")}`,
    "[alias]",
    `\tadd = !${program("alias-add2")}`,
    `\tcommit = !${program("alias-commit2")}`,
    `\trev-parse = !${program("alias-rev-parse")}`,
    "[commit]",
    "\tgpgSign = true",
    "[gpg]",
    `\tprogram = ${program("gpg")}`,
    "[credential]",
    `\thelper = !${program("credential")}`,
    "[sequence]",
    `\teditor = ${program("sequence-editor")}`,
    "[diff]",
    `\texternal = ${program("diff-external")}`,
    "[maintenance]",
    "\tauto = true",
    "[gc]",
    "\tauto = 1",
    "",
  ].join("\n");
  appendFileSync(join(gitDir, "config"), config);
}

describe("gitCommit", { skip: noGit }, () => {
  it("commits the named paths and runs nothing the repository planted", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    plantedRepository(workspace);
    writeFileSync(join(root, "kept.txt"), "second\n");
    writeFileSync(join(root, "new.txt"), "new\n");
    writeFileSync(join(root, "left.txt"), "not named\n");
    const result = await gitCommit({
      workspaceRoot: root,
      paths: ["kept.txt", "./new.txt"],
      message: "Change kept, add new",
      author: AUTHOR,
    });
    assert.deepEqual(canaries(workspace), [], "git ran what the repository planted");
    assert.deepEqual(result.paths, ["kept.txt", "new.txt"]);
    assert.equal(result.branch, "main");
    assert.equal(result.repository, root);
    assert.equal(git(root, "rev-parse", "HEAD").trim(), result.commit);
    assert.equal(git(root, "show", "HEAD:kept.txt"), "second\n");
    assert.equal(git(root, "show", "HEAD:new.txt"), "new\n");
    assert.equal(
      git(root, "log", "-1", "--format=%an <%ae>|%s|%G?"),
      "Agent <agent@example.com>|Change kept, add new|N\n",
    );
    // Only the named paths: the other file is neither committed nor staged.
    assert.equal(
      git(root, "ls-tree", "--name-only", "HEAD").split("\n").includes("left.txt"),
      false,
    );
    assert.equal(git(root, "status", "--porcelain", "left.txt"), "?? left.txt\n");
  });

  it("commits a deletion, in a nested repository found from cwd", async () => {
    using workspace = tempWorkspace();
    const repo = join(workspace.root, "packages", "lib");
    mkdirSync(join(repo, "src"), { recursive: true });
    git(repo, "init", "-q", "-b", "dev");
    writeFileSync(join(repo, "src", "old.ts"), "old\n");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "first");
    execFileSync("rm", [join(repo, "src", "old.ts")]);
    const result = await gitCommit({
      workspaceRoot: workspace.root,
      cwd: join(repo, "src"),
      paths: ["old.ts"],
      message: "Remove old",
      author: AUTHOR,
    });
    assert.deepEqual(result.paths, ["src/old.ts"]);
    assert.equal(result.repository, repo);
    assert.equal(git(repo, "ls-tree", "-r", "--name-only", "HEAD"), "");
  });

  it("refuses a filter driver, a planted commondir and a symlinked .git, running none", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(root, "a.txt"), "a\n");
    // A filter driver in the config, named by .gitattributes.
    git(root, "config", "filter.evil.clean", canaryScript(workspace, "filter-clean"));
    git(root, "config", "filter.evil.process", canaryScript(workspace, "filter-process"));
    writeFileSync(join(root, ".gitattributes"), "*.txt filter=evil\n");
    await assert.rejects(
      gitCommit({ workspaceRoot: root, paths: ["a.txt"], message: "m", author: AUTHOR }),
      (error: Error) =>
        error instanceof GitCommitError && /filter\.evil\.clean/.test(error.message),
    );
    // Only the attribute (git-lfs installed globally, say): refused too.
    git(root, "config", "--remove-section", "filter.evil");
    await assert.rejects(
      gitCommit({ workspaceRoot: root, paths: ["a.txt"], message: "m", author: AUTHOR }),
      (error: Error) =>
        error instanceof GitCommitError && /filter attribute "evil"/.test(error.message),
    );
    execFileSync("rm", [join(root, ".gitattributes")]);
    // A commondir that sends git to a repository whose config runs a program.
    const elsewhere = join(workspace.base, "elsewhere");
    git(workspace.base, "init", "-q", "elsewhere");
    git(elsewhere, "config", "core.fsmonitor", canaryScript(workspace, "commondir-fsmonitor"));
    writeFileSync(join(root, ".git", "commondir"), `${elsewhere}/.git\n`);
    await assert.rejects(
      gitCommit({ workspaceRoot: root, paths: ["a.txt"], message: "m", author: AUTHOR }),
      (error: Error) => error instanceof GitCommitError && /commondir/.test(error.message),
    );
    execFileSync("rm", [join(root, ".git", "commondir")]);
    // A .git that is a symlink.
    const nested = join(root, "nested");
    mkdirSync(nested);
    symlinkSync(join(elsewhere, ".git"), join(nested, ".git"));
    await assert.rejects(
      gitCommit({ workspaceRoot: root, cwd: nested, paths: ["x"], message: "m", author: AUTHOR }),
      (error: Error) => error instanceof GitCommitError && /symlink/.test(error.message),
    );
    assert.deepEqual(canaries(workspace), []);
    assert.throws(() => git(root, "rev-parse", "--verify", "-q", "HEAD"));
  });

  it("refuses a config that includes a file in the workspace, which a command could rewrite", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(root, "a.txt"), "a\n");
    for (
      const [key, file] of [["include.path", "team.cfg"], [
        "includeIf.onbranch:*.path",
        "missing.cfg",
      ]]
    ) {
      git(root, "config", key!, `../${file}`);
      await assert.rejects(
        gitCommit({ workspaceRoot: root, paths: ["a.txt"], message: "m", author: AUTHOR }),
        (error: Error) =>
          error instanceof GitCommitError &&
          error.message.includes(`includes "${join(root, file!)}"`),
      );
      git(root, "config", "--unset", key!);
    }
  });

  // Where .git is writable to commands (Landlock without a user namespace),
  // a command could link what git writes to any file: git follows the links.
  it("refuses a repository where what git writes is a symlink, writing nothing through it", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    committedRepository(root, "a.txt", "a\n");
    writeFileSync(join(root, "b.txt"), "b\n");
    const victim = join(workspace.base, "victim");
    writeFileSync(victim, "kept\n");
    const fanOut = readdirSync(join(root, ".git", "objects")).find((name) => name.length === 2)!;
    for (
      const name of ["COMMIT_EDITMSG", "logs/HEAD", "logs/refs/heads/main", `objects/${fanOut}`]
    ) {
      const path = join(root, ".git", name);
      const kept = join(workspace.base, "kept");
      execFileSync("mv", [path, kept]);
      symlinkSync(victim, path);
      await assert.rejects(
        gitCommit({ workspaceRoot: root, paths: ["b.txt"], message: "m", author: AUTHOR }),
        (error: Error) => error instanceof GitCommitError && error.message.includes(path),
      );
      rmSync(path);
      execFileSync("mv", [kept, path]);
    }
    assert.equal(readFileSync(victim, "utf8"), "kept\n");
    await gitCommit({ workspaceRoot: root, paths: ["b.txt"], message: "m", author: AUTHOR });
  });

  // git add runs `git status` in each nested repository it adds (or finds in
  // the index), obeying that repository's config: one planted past the walk
  // would have its filter run, for a path that only contains it.
  it("refuses a nested repository the sandbox does not keep read-only, running nothing in it", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    committedRepository(root, "a.txt", "a\n");
    const deep = join(root, "a", "b", "c", "d", "e", "f", "g");
    mkdirSync(deep, { recursive: true });
    git(deep, "init", "-q", "-b", "main");
    writeFileSync(join(deep, "f.txt"), "f\n");
    git(deep, "add", "f.txt");
    git(deep, "commit", "-q", "-m", "nested");
    git(deep, "config", "filter.evil.clean", canaryScript(workspace, "nested-filter"));
    writeFileSync(join(deep, ".gitattributes"), "* filter=evil\n");
    // Stat-dirty with the same content: git status must hash it, through the filter.
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(deep, "f.txt"), later, later);
    writeFileSync(join(root, "a.txt"), "changed\n");
    for (const paths of [["a"], ["a.txt", "a/b/c/d/e/f/g"], ["."]]) {
      await assert.rejects(
        gitCommit({ workspaceRoot: root, paths, message: "m", author: AUTHOR }),
        (error: Error) =>
          error instanceof GitCommitError &&
          /"a\/b\/c\/d\/e\/f\/g" is a nested/.test(error.message),
      );
    }
    assert.deepEqual(canaries(workspace), []);
    // The same repository as a submodule already in the index: refused too.
    git(root, "add", "a/b/c/d/e/f/g");
    git(root, "commit", "-q", "-m", "gitlink");
    utimesSync(join(deep, "f.txt"), later, new Date(Date.now() + 9_000));
    await assert.rejects(
      gitCommit({ workspaceRoot: root, paths: ["a"], message: "m", author: AUTHOR }),
      (error: Error) => error instanceof GitCommitError && /nested repository/.test(error.message),
    );
    assert.deepEqual(canaries(workspace), []);
  });

  // protocol.<name>.allow in the config outranks the protocol.allow=never we
  // pass: a missing object in a planted partial clone would lazily fetch over
  // file://, running the config's uploadpack. (Git 2.39.4+ also obeys
  // GIT_NO_LAZY_FETCH; GIT_ALLOW_PROTOCOL="" closes it on every git.)
  it("runs no transport for a lazy fetch, whatever protocol.<name>.allow the config sets", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    git(root, "init", "-q", "-b", "main");
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "sub", "a.txt"), "a\n");
    writeFileSync(join(root, "kept.txt"), "k\n");
    git(root, "add", ".");
    git(root, "commit", "-q", "-m", "first");
    const subtree = git(root, "rev-parse", "HEAD:sub").trim();
    git(root, "config", "core.repositoryformatversion", "1");
    git(root, "config", "extensions.partialClone", "origin");
    git(root, "config", "remote.origin.url", root);
    git(root, "config", "remote.origin.promisor", "true");
    git(root, "config", "remote.origin.uploadpack", canaryScript(workspace, "uploadpack"));
    git(root, "config", "protocol.file.allow", "always");
    rmSync(join(root, ".git", "objects", subtree.slice(0, 2), subtree.slice(2)));
    writeFileSync(join(root, "kept.txt"), "changed\n");
    // The tree cannot be read without the fetch: git fails, having run nothing.
    await gitCommit({ workspaceRoot: root, paths: ["kept.txt"], message: "m", author: AUTHOR })
      .catch((error) => assert.ok(error instanceof GitCommitError, String(error)));
    assert.deepEqual(canaries(workspace), []);
  });

  it("takes paths literally and commits a symlink as a link", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(root, "a.txt"), "a\n");
    writeFileSync(join(root, "b.txt"), "b\n");
    symlinkSync("/etc/passwd", join(root, "link"));
    // No file is named "*.txt": nothing matches, nothing is committed.
    await assert.rejects(
      gitCommit({ workspaceRoot: root, paths: ["*.txt"], message: "m", author: AUTHOR }),
      (error: Error) => error instanceof GitCommitError && /did not match/.test(error.message),
    );
    const result = await gitCommit({
      workspaceRoot: root,
      paths: ["link", "a.txt"],
      message: "--amend",
      author: AUTHOR,
    });
    assert.deepEqual(result.paths, ["link", "a.txt"]);
    assert.equal(git(root, "log", "-1", "--format=%s"), "--amend\n");
    assert.equal(git(root, "cat-file", "-p", "HEAD:link"), "/etc/passwd");
    assert.equal(git(root, "ls-tree", "--name-only", "HEAD"), "a.txt\nlink\n");
  });

  it("accepts a linked worktree laid out by git", async () => {
    using workspace = tempWorkspace();
    const main = join(workspace.base, "main");
    git(workspace.base, "init", "-q", "-b", "main", main);
    git(main, "commit", "-q", "--allow-empty", "-m", "first");
    const tree = join(workspace.root, "tree");
    git(main, "worktree", "add", "-q", "-b", "feature", tree);
    writeFileSync(join(tree, "f.txt"), "feature\n");
    const result = await gitCommit({
      workspaceRoot: workspace.root,
      cwd: tree,
      paths: ["f.txt"],
      message: "Feature",
      author: AUTHOR,
    });
    assert.equal(result.branch, "feature");
    assert.equal(git(main, "show", "feature:f.txt"), "feature\n");
  });

  it("refuses paths outside, options, pathspec magic and .git before running git", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(workspace.base, "outside.txt"), "x\n");
    symlinkSync(workspace.base, join(root, "link"));
    for (
      const path of [
        "../outside.txt",
        join(workspace.base, "outside.txt"),
        "link/outside.txt",
        "--all",
        "-A",
        ":(top)x",
        ":!x",
        ".git/config",
        "sub/../.git/hooks/pre-commit",
        "",
        "a\0b",
      ]
    ) {
      await assert.rejects(
        gitCommit({ workspaceRoot: root, paths: [path], message: "m", author: AUTHOR }),
        BashConfigError,
        JSON.stringify(path),
      );
    }
    for (const bad of [{ paths: [] }, { message: " " }, { cwd: "/" }, { author: { name: "x" } }]) {
      await assert.rejects(
        gitCommit(
          {
            workspaceRoot: root,
            paths: ["a"],
            message: "m",
            ...bad,
          } as Parameters<typeof gitCommit>[0],
        ),
        BashConfigError,
        JSON.stringify(bad),
      );
    }
    await assert.rejects(
      gitCommit({ workspaceRoot: join(root, "nope"), paths: ["a"], message: "m" }),
      BashConfigError,
    );
  });

  /** A `git` script in `folder` (made here) that touches the canary, outside the workspace. */
  function plantGit(workspace: Workspace, folder: string): string {
    mkdirSync(folder, { recursive: true });
    const planted = join(folder, "git");
    writeFileSync(planted, `#!/bin/sh\ntouch '${join(workspace.base, "canary-git")}'\n`);
    chmodSync(planted, 0o755);
    return planted;
  }

  /**
   * Asserts that a commit with `folder` first on PATH is refused, the message holding `said`,
   * and that the canary was not touched.
   */
  async function assertGitRefused(workspace: Workspace, folder: string, said: string) {
    const path = process.env.PATH;
    process.env.PATH = `${folder}:${path}`;
    try {
      await assert.rejects(
        gitCommit({ workspaceRoot: workspace.root, paths: ["a"], message: "m", author: AUTHOR }),
        (error: Error) => error instanceof GitCommitError && error.message.includes(said),
      );
    } finally {
      process.env.PATH = path;
    }
    assert.equal(existsSync(join(workspace.base, "canary-git")), false);
  }

  it("refuses a git on PATH that lies in the workspace", async () => {
    using workspace = tempWorkspace();
    git(workspace.root, "init", "-q");
    const bin = join(workspace.root, "bin");
    plantGit(workspace, bin);
    await assertGitRefused(workspace, bin, "lies in the workspace");
  });

  it("refuses a git on PATH that a link in the workspace leads to, wherever it lies", async () => {
    using workspace = tempWorkspace();
    const { root, base } = workspace;
    git(root, "init", "-q");
    // node_modules/.bin/git links to a script outside the workspace (in another writable root).
    const planted = plantGit(workspace, join(base, "elsewhere"));
    const bin = join(root, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(planted, join(bin, "git"));
    await assertGitRefused(workspace, bin, `("${join(bin, "git")}" lies in "${root}")`);
  });

  it("refuses a git on PATH that lies in a root a sandbox of this process granted", async () => {
    using workspace = tempWorkspace();
    git(workspace.root, "init", "-q");
    const tools = join(workspace.base, "tools");
    const planted = plantGit(workspace, tools);
    // An executor whose commands may write the tools folder (none needs to run).
    await using _executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "workspace-write",
      writableRoots: [tools],
    });
    await assertGitRefused(workspace, tools, `("${planted}" lies in "${tools}")`);
  });

  // Its checks are a snapshot: a confined call still running could change
  // what they looked at (rename a nested repository away and plant one with a
  // filter driver, rewrite an included file in its root) before git runs.
  it("refuses while a confined call that can write the repository or an include still runs", async () => {
    using workspace = tempWorkspace();
    const { root, base } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(root, "a.txt"), "a\n");
    mkdirSync(join(base, "other"));
    writeFileSync(join(base, "other", "team.cfg"), "[user]\n\tname = team\n");
    git(root, "config", "include.path", join(base, "other", "team.cfg"));
    const commit = () =>
      gitCommit({ workspaceRoot: root, paths: ["a.txt"], message: "m", author: AUTHOR });
    const quarantine = () => join(base, "quarantine");
    for (const [roots, held] of [[[root], root], [[join(base, "other")], "team.cfg"]] as const) {
      const running = new ProtectedPaths([...roots], [".git"], quarantine);
      running.watch();
      await assert.rejects(
        commit(),
        (error: Error) =>
          error instanceof GitCommitError &&
          error.message.includes(`still running can write "${roots[0]}"`) &&
          error.message.includes(held),
      );
      running.settle();
    }
    const result = await commit();
    assert.deepEqual(result.paths, ["a.txt"]);
    // A nested repository whose git folder lies elsewhere, in a running call's root.
    mkdirSync(join(base, "stores"));
    git(root, "init", "-q", "--separate-git-dir", join(base, "stores", "lib.git"), "sub");
    writeFileSync(join(root, "sub", "b.txt"), "b\n");
    const running = new ProtectedPaths([join(base, "stores")], [".git"], quarantine);
    running.watch();
    await assert.rejects(
      gitCommit({ workspaceRoot: root, paths: ["sub"], message: "m", author: AUTHOR }),
      (error: Error) =>
        error instanceof GitCommitError &&
        error.message.includes(`still running can write "${join(base, "stores")}"`),
    );
    running.settle();
  });

  it("refuses to start a confined call that could write what a commit in progress relies on", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(root, "a.txt"), "a\n");
    const committing = gitCommit({
      workspaceRoot: root,
      paths: ["a.txt"],
      message: "m",
      author: AUTHOR,
    });
    // gitCommit claimed the repository before its first await.
    const launching = new ProtectedPaths([root], [".git"], () => join(workspace.base, "q"));
    assert.throws(
      () => launching.watch(),
      (error: Error) =>
        error instanceof BashSpawnError &&
        error.message.includes("commit (gitCommit) is in progress"),
    );
    // One whose roots lie elsewhere starts.
    mkdirSync(join(workspace.base, "elsewhere"));
    const elsewhere = new ProtectedPaths([join(workspace.base, "elsewhere")], [".git"], () => "");
    elsewhere.watch();
    elsewhere.settle();
    await committing;
    launching.watch();
    launching.settle();
  });

  it("says so when the global git config cannot be read, rather than that it sets no author", async () => {
    using workspace = tempWorkspace();
    const { root, base } = workspace;
    git(root, "init", "-q");
    writeFileSync(join(root, "a.txt"), "a\n");
    const saved = process.env.GIT_CONFIG_GLOBAL;
    try {
      writeFileSync(join(base, "global.cfg"), "[user\n\tname = broken\n");
      process.env.GIT_CONFIG_GLOBAL = join(base, "global.cfg");
      const commit = () => gitCommit({ workspaceRoot: root, paths: ["a.txt"], message: "m" });
      await assert.rejects(
        commit(),
        (error: Error) =>
          error instanceof GitCommitError &&
          /global git config could not be read for user\.name: .*bad config line 1/.test(
            error.message,
          ),
      );
      writeFileSync(join(base, "global.cfg"), "[core]\n\tautocrlf = false\n");
      await assert.rejects(
        commit(),
        (error: Error) =>
          error instanceof GitCommitError && /^No author is known/.test(error.message),
      );
      writeFileSync(join(base, "global.cfg"), "[user]\n\tname = G\n\temail = g@example.com\n");
      await commit();
      assert.equal(git(root, "log", "-1", "--format=%an <%ae>"), "G <g@example.com>\n");
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
  });
});
