// The git config the launch's walk reads for each repository (core.hooksPath,
// includes, the global config) and what it protects with it, without a sandbox.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { DEFAULT_PROTECTED_PATHS } from "../../../sandbox/mod.ts";
import {
  configValue,
  expandedConfig,
  globalGitConfigFiles,
  repositoryGitConfig,
} from "../../../sandbox/protected/_git_config.ts";
import { tempWorkspace } from "../_fixtures.ts";
import { guard } from "./_guard.ts";

describe("ProtectedPaths with the default list", () => {
  it("protects the folder core.hooksPath names, existing or not", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    // A repository whose hooks live in the working tree (as husky sets it).
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    writeFileSync(
      join(root, "app", ".git", "config"),
      '[core]\n\tbare = false\n[core "x"]\n\thooksPath = nope\n[core]\n\thooksPath = "tools/hooks" ; set by husky\n',
    );
    mkdirSync(join(root, "app", "tools", "hooks"), { recursive: true });
    // Another one whose hooks folder does not exist yet, and one pointing out of the roots.
    mkdirSync(join(root, "lib", ".git"), { recursive: true });
    writeFileSync(join(root, "lib", ".git", "config"), "[core] hooksPath = .githooks\n");
    mkdirSync(join(root, "out", ".git"), { recursive: true });
    writeFileSync(join(root, "out", ".git", "config"), "[core]\nhooksPath = /usr/share/hooks\n");
    const paths = guard(workspace);
    assert.ok(paths.plan.readOnly.includes(join(root, "app", "tools", "hooks")));
    assert.equal(paths.plan.readOnly.some((p) => p.startsWith("/usr")), false);
    mkdirSync(join(root, "lib", ".githooks"));
    writeFileSync(join(root, "lib", ".githooks", "pre-commit"), "touch canary\n");
    assert.deepEqual(paths.sweep().map((v) => v.path), [join(root, "lib", ".githooks")]);
    assert.equal(existsSync(join(root, "lib", ".githooks")), false);
  });

  // A file the repository's config includes is read by git as its config:
  // written by a command, it made the user's next git status run an fsmonitor.
  it("protects the files a repository's config includes, existing or not", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    writeFileSync(
      join(root, "app", ".git", "config"),
      '[include]\n\tpath = ../shared.inc\n[includeIf "gitdir:/x/"]\n\tpath = ../tools/later.inc\n' +
        "[include]\n\tpath = /etc/outside.inc\n",
    );
    writeFileSync(join(root, "app", "shared.inc"), "[user]\n\tname = shared\n");
    const none = { files: [], included: [], settings: [] };
    assert.deepEqual(repositoryGitConfig(join(root, "app", ".git"), none).files, [
      join(root, "app", "shared.inc"),
      join(root, "app", "tools", "later.inc"),
      "/etc/outside.inc",
    ]);
    const paths = guard(workspace);
    assert.ok(paths.plan.readOnly.includes(join(root, "app", "shared.inc")));
    assert.equal(paths.plan.readOnly.some((p) => p.startsWith("/etc")), false);
    mkdirSync(join(root, "app", "tools"));
    writeFileSync(join(root, "app", "tools", "later.inc"), "[core]\n\tfsmonitor = evil\n");
    assert.deepEqual(paths.sweep().map((v) => v.path), [join(root, "app", "tools", "later.inc")]);
  });

  it("reads core.hooksPath through a gitdir: file and a linked worktree's main repository", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "main.git", "worktrees", "wt"), { recursive: true });
    writeFileSync(join(root, "main.git", "config"), "[core]\n  hooksPath = hooks-here\n");
    writeFileSync(join(root, "main.git", "worktrees", "wt", "commondir"), "../..\n");
    mkdirSync(join(root, "wt"));
    writeFileSync(join(root, "wt", ".git"), `gitdir: ${root}/main.git/worktrees/wt\n`);
    const none = { files: [], included: [], settings: [] };
    assert.deepEqual(repositoryGitConfig(join(root, "wt", ".git"), none).hooksPaths, [
      join(root, "wt", "hooks-here"),
    ]);
    assert.equal(configValue('[core]\nhookspath = "a b" # c\n', "core", "hookspath"), "a b");
    assert.equal(configValue("[Core]\nHooksPath=x\nhooksPath=y\n", "core", "hookspath"), "y");
    assert.equal(configValue("[other]\nhooksPath=x\n", "core", "hookspath"), undefined);
    assert.equal(configValue("[core]\n\thooksPath = a\\\nb # c\n", "core", "hookspath"), "ab");
    assert.equal(configValue("[core]\n# x \\\nhooksPath = y\n", "core", "hookspath"), "y");
  });

  // git reads an included file's settings, and its includes, as its own
  // config: a core.hooksPath or an include set there counts the same.
  it("follows includes of includes, to git's depth, and reads core.hooksPath in them", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    writeFileSync(join(root, "app", ".git", "config"), "[include]\n\tpath = ../a.inc\n");
    writeFileSync(
      join(root, "app", "a.inc"),
      '[core]\n\thooksPath = .githooks\n[includeIf "onbranch:main"]\n\tpath = conf/b.inc\n',
    );
    mkdirSync(join(root, "app", "conf"));
    // A cycle back to a.inc, and a file that does not exist yet.
    writeFileSync(
      join(root, "app", "conf", "b.inc"),
      "[include]\n\tpath = ../a.inc\n\tpath = c.inc\n",
    );
    mkdirSync(join(root, "app", ".githooks"));
    const paths = guard(workspace);
    for (const bound of ["a.inc", "conf/b.inc", ".githooks"]) {
      assert.ok(paths.plan.readOnly.includes(join(root, "app", bound)), bound);
    }
    writeFileSync(join(root, "app", "conf", "c.inc"), "[core]\n\tfsmonitor = evil\n");
    assert.deepEqual(paths.sweep().map((v) => v.path), [join(root, "app", "conf", "c.inc")]);
    // A chain longer than git follows stops where git stops.
    for (let i = 0; i < 14; i++) {
      writeFileSync(join(root, `chain${i}.inc`), `[include]\n\tpath = chain${i + 1}.inc\n`);
    }
    const chain = expandedConfig([join(root, "chain0.inc")]);
    assert.equal(chain.included.length, 11);
  });

  // Home as a writable root: git's global config lives in .gitconfig or
  // .config/git/config, and what it sets (a relative core.hooksPath is taken
  // from every working tree) or includes applies to every repository.
  it("protects the global git config, where it lies in a root, and what it sets and includes", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    const home = join(root, "home");
    mkdirSync(join(home, ".config", "git"), { recursive: true });
    mkdirSync(join(home, ".config", "nvim", ".git"), { recursive: true });
    writeFileSync(
      join(home, ".config", "git", "config"),
      "[core]\n\thooksPath = .hooks\n[include]\n\tpath = ~/dotfiles/git.inc\n",
    );
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    mkdirSync(join(root, "app", ".hooks"));
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
    try {
      assert.deepEqual(globalGitConfigFiles().slice(-2), [
        join(home, ".config", "git", "config"),
        join(home, ".gitconfig"),
      ]);
      const paths = guard(workspace, [...DEFAULT_PROTECTED_PATHS]);
      // The folder .config/git, a repository below .config, the hooks of every repository.
      for (const bound of [".config/git", ".config/nvim/.git", "../app/.hooks"]) {
        assert.ok(paths.plan.readOnly.includes(join(home, bound)), bound);
      }
      mkdirSync(join(home, "dotfiles"));
      writeFileSync(join(home, "dotfiles", "git.inc"), "[core]\n\tfsmonitor = evil\n");
      writeFileSync(join(home, ".gitconfig"), "[core]\n\tfsmonitor = evil\n");
      assert.deepEqual(paths.sweep().map((v) => v.path).sort(), [
        join(home, ".gitconfig"),
        join(home, "dotfiles", "git.inc"),
      ]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("protects a file a repository includes from another writable root", () => {
    using workspace = tempWorkspace();
    const other = join(workspace.base, "other");
    mkdirSync(other);
    mkdirSync(join(workspace.root, ".git"));
    writeFileSync(join(other, "shared.inc"), "[user]\n\tname = shared\n");
    writeFileSync(
      join(workspace.root, ".git", "config"),
      `[include]\n\tpath = ${other}/shared.inc\n\tpath = ${other}/later.inc\n`,
    );
    const paths = guard(workspace, [".git"], [other]);
    assert.ok(paths.plan.readOnly.includes(join(other, "shared.inc")));
    writeFileSync(join(other, "later.inc"), "[core]\n\tfsmonitor = evil\n");
    assert.deepEqual(paths.sweep().map((v) => v.path), [join(other, "later.inc")]);
  });
});
