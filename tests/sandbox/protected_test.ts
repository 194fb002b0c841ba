// The protected paths of one call, without a sandbox: the plan at launch
// (what to bind read-only, how far the walk went) and the sweep when the call
// ends, with a command's doings played by the test on the file system.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { DEFAULT_PROTECTED_PATHS } from "../../sandbox/mod.ts";
import {
  configValue,
  expandedConfig,
  globalGitConfigFiles,
  PROTECTED_WALK_DEPTH,
  PROTECTED_WALK_ENTRIES,
  ProtectedPaths,
  protectionGaps,
  repositoryGitConfig,
} from "../../sandbox/_protected.ts";
import { tempWorkspace, type Workspace } from "./_fixtures.ts";

/** The protected paths of `workspace`'s root (and `more` roots), quarantined into its base. */
function guard(workspace: Workspace, names = [".git"], more: string[] = []): ProtectedPaths {
  return new ProtectedPaths(
    [workspace.root, ...more],
    names,
    () => join(workspace.base, "quarantine"),
  );
}

describe("ProtectedPaths plan", () => {
  it("binds an existing directory, file and the targets of pointers inside a root", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    // A repository whose .git is a symlink to a directory in the workspace.
    mkdirSync(join(root, "meta"));
    symlinkSync("meta", join(root, ".git"));
    // A nested repository with a gitdir: file, and a linked worktree whose
    // commondir names a repository in the workspace that no .git names.
    mkdirSync(join(root, "stores", "main.git", "worktrees", "wt"), { recursive: true });
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "sub", ".git"), "gitdir: ../stores/lib.git\n");
    mkdirSync(join(root, "stores", "lib.git"));
    mkdirSync(join(root, "wt"));
    writeFileSync(join(root, "wt", ".git"), `gitdir: ${root}/stores/main.git/worktrees/wt\n`);
    writeFileSync(join(root, "stores", "main.git", "worktrees", "wt", "commondir"), "../..\n");
    // A custom name and a nested plain repository.
    mkdirSync(join(root, "deep", "er", ".git"), { recursive: true });
    mkdirSync(join(root, ".shellseam"));
    const { plan } = guard(workspace, [".git", ".shellseam"]);
    assert.deepEqual(plan.unwalked, []);
    assert.deepEqual(
      [...plan.readOnly].sort(),
      [
        join(root, ".shellseam"),
        join(root, "deep", "er", ".git"),
        join(root, "meta"),
        join(root, "stores", "lib.git"),
        join(root, "stores", "main.git"),
        join(root, "sub", ".git"),
        join(root, "wt", ".git"),
      ].sort(),
    );
  });

  it("binds nothing outside the roots, nor twice, nor in skipped trees", () => {
    using workspace = tempWorkspace();
    const { base, root } = workspace;
    mkdirSync(join(base, "elsewhere"));
    symlinkSync(join(base, "elsewhere"), join(root, ".git"));
    mkdirSync(join(root, "node_modules", "pkg", ".git"), { recursive: true });
    mkdirSync(join(root, ".venv", "src", "pkg", ".git"), { recursive: true });
    mkdirSync(join(root, "a", ".git", "modules", "x"), { recursive: true });
    mkdirSync(join(root, "a", "x"));
    writeFileSync(join(root, "a", "x", ".git"), "gitdir: ../.git/modules/x\n");
    // A symlinked directory is not followed by the walk.
    mkdirSync(join(base, "linked", ".git"), { recursive: true });
    symlinkSync(join(base, "linked"), join(root, "linked"));
    const { plan } = guard(workspace);
    assert.deepEqual(plan.readOnly, [join(root, "a", ".git"), join(root, "a", "x", ".git")]);
  });

  it("stops at its depth and entry bounds and names where", () => {
    using workspace = tempWorkspace();
    const deep = join(workspace.root, ...Array(PROTECTED_WALK_DEPTH + 1).fill("d"));
    mkdirSync(join(deep, ".git"), { recursive: true });
    const shallow = join(workspace.root, ...Array(PROTECTED_WALK_DEPTH).fill("d"), ".git");
    assert.deepEqual(guard(workspace).plan, {
      readOnly: [],
      unwalked: [{ root: workspace.root, bound: "depth" }],
    });
    mkdirSync(shallow);
    assert.deepEqual(guard(workspace).plan.readOnly, [shallow]);

    using wide = tempWorkspace();
    mkdirSync(join(wide.root, "many"));
    for (let i = 0; i <= PROTECTED_WALK_ENTRIES; i++) {
      writeFileSync(join(wide.root, "many", `${i}`), "");
    }
    assert.deepEqual(guard(wide).plan.unwalked, [{ root: wide.root, bound: "entries" }]);
    assert.match(
      protectionGaps([".git"], guard(wide).plan.unwalked)[1]!,
      new RegExp(`below ${wide.root} past the walk's ${PROTECTED_WALK_ENTRIES} entries`),
    );
    assert.equal(
      protectionGaps([".git"], [{ root: "/ws/locked", bound: "unlisted" }])[1],
      "nested protected paths below /ws/locked are neither bound read-only nor checked: it cannot be listed",
    );
  });
});

describe("ProtectedPaths with the default list", () => {
  it("binds every default name at the root and in a nested package, in one walk", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "packages", "app"), { recursive: true });
    const expected: string[] = [];
    for (const dir of [root, join(root, "packages", "app")]) {
      for (const name of DEFAULT_PROTECTED_PATHS) {
        // Folders (editor settings, hook managers) and files alike.
        if (/^\.(git|husky|vscode|idea|claude|codex|shellseam|config\/git)$/.test(name)) {
          mkdirSync(join(dir, name), { recursive: true });
        } else writeFileSync(join(dir, name), "x\n");
        expected.push(join(dir, name));
      }
    }
    const { plan } = guard(workspace, [...DEFAULT_PROTECTED_PATHS]);
    assert.deepEqual([...plan.readOnly].sort(), expected.sort());
  });

  it("moves every default name a command creates, at the root or nested", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "pkg"));
    const paths = guard(workspace, [...DEFAULT_PROTECTED_PATHS]);
    const planted = DEFAULT_PROTECTED_PATHS.flatMap((name) => [
      join(root, name),
      join(root, "pkg", name),
    ]);
    for (const path of planted) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, "planted\n");
    }
    const violations = paths.sweep();
    assert.deepEqual(violations.map((v) => v.path).sort(), [...planted].sort());
    for (const path of planted) assert.equal(existsSync(path), false, path);
  });

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

describe("ProtectedPaths sweep", () => {
  it("finds nothing when nothing protected changed", () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, ".git"));
    const paths = guard(workspace);
    writeFileSync(join(workspace.root, "file.txt"), "x");
    assert.deepEqual(paths.sweep(), []);
    assert.equal(existsSync(join(workspace.base, "quarantine")), false);
  });

  it("moves a planted .git (at a root, nested, or under another root) to the quarantine", () => {
    using workspace = tempWorkspace();
    const other = join(workspace.base, "other");
    mkdirSync(other);
    const paths = guard(workspace, [".git", ".envrc"], [other]);
    mkdirSync(join(workspace.root, ".git"));
    writeFileSync(join(workspace.root, ".git", "config"), "[core]\n\tfsmonitor = evil\n");
    mkdirSync(join(workspace.root, "new", ".git"), { recursive: true });
    writeFileSync(join(other, ".envrc"), "evil");
    const violations = paths.sweep();
    const quarantine = join(workspace.base, "quarantine");
    assert.deepEqual(
      violations.map((v) => v.path).sort(),
      [join(workspace.root, ".git"), join(workspace.root, "new", ".git"), join(other, ".envrc")]
        .sort(),
    );
    for (const { path, quarantinedTo } of violations) {
      assert.equal(existsSync(path), false);
      assert.ok(quarantinedTo?.startsWith(`${quarantine}/`), quarantinedTo ?? "null");
    }
    const moved = violations.find((v) => v.path === join(workspace.root, ".git"))!;
    assert.match(readFileSync(join(moved.quarantinedTo!, "config"), "utf8"), /evil/);
    // A later sweep reports the same, and moves nothing more.
    assert.deepEqual(paths.sweep(), violations);
    assert.deepEqual(readdirSync(workspace.root).sort(), ["new"]);
  });

  it("moves a planted symlink as the link, never what it points to", () => {
    using workspace = tempWorkspace();
    const outside = join(workspace.base, "outside-repo");
    mkdirSync(outside);
    writeFileSync(join(outside, "config"), "keep");
    const paths = guard(workspace);
    symlinkSync(outside, join(workspace.root, ".git"));
    const [violation] = paths.sweep();
    assert.equal(lstatSync(violation!.quarantinedTo!).isSymbolicLink(), true);
    assert.equal(readFileSync(join(outside, "config"), "utf8"), "keep");
    assert.equal(existsSync(join(workspace.root, ".git")), false);
  });

  it("puts back a .git symlink the command replaced", () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, "meta"));
    const git = join(workspace.root, ".git");
    symlinkSync("meta", git);
    const paths = guard(workspace);
    rmSync(git);
    mkdirSync(git);
    const [violation, ...rest] = paths.sweep();
    assert.deepEqual(rest, []);
    assert.equal(violation?.path, git);
    assert.equal(readlinkSync(git), "meta");
    assert.deepEqual(paths.sweep(), [violation]);
    assert.equal(readlinkSync(git), "meta");
  });

  it("moves what appears where a .git file or symlink points, inside a root, to nothing yet", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "a"));
    writeFileSync(join(root, "a", ".git"), "gitdir: ../stores/a.git\n");
    mkdirSync(join(root, "b"));
    symlinkSync("../stores/b.git", join(root, "b", ".git"));
    const paths = guard(workspace);
    assert.deepEqual(paths.plan.readOnly, [join(root, "a", ".git")]);
    mkdirSync(join(root, "stores", "a.git"), { recursive: true });
    mkdirSync(join(root, "stores", "b.git"), { recursive: true });
    assert.deepEqual(paths.sweep().map((v) => v.path).sort(), [
      join(root, "stores", "a.git"),
      join(root, "stores", "b.git"),
    ]);
    assert.deepEqual(readdirSync(join(root, "stores")), []);
    assert.equal(readlinkSync(join(root, "b", ".git")), "../stores/b.git");
  });

  it("follows a protected name of several parts through a symlinked folder in the root", () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "real-vscode"));
    symlinkSync("real-vscode", join(root, ".vscode"));
    writeFileSync(join(root, "real-vscode", "tasks.json"), "{}");
    const paths = guard(workspace, [".vscode/settings.json", ".vscode/tasks.json"]);
    assert.deepEqual(paths.plan.readOnly, [join(root, "real-vscode", "tasks.json")]);
    writeFileSync(join(root, "real-vscode", "settings.json"), "evil");
    assert.deepEqual(paths.sweep().map((v) => v.path), [
      join(root, "real-vscode", "settings.json"),
    ]);
    assert.deepEqual(readdirSync(join(root, "real-vscode")), ["tasks.json"]);
  });

  it("a sweep that met a bound the launch did not is a violation, and what was planted past it is moved", () => {
    using workspace = tempWorkspace();
    const paths = guard(workspace, [".git", ".envrc"]);
    assert.deepEqual(paths.unwalked, []);
    const deep = join(workspace.root, ...Array(PROTECTED_WALK_DEPTH + 2).fill("d"));
    mkdirSync(join(deep, ".git"), { recursive: true });
    writeFileSync(join(deep, ".envrc"), "touch /tmp/pwned\n");
    const violations = paths.sweep();
    assert.deepEqual(
      violations.map(({ path, walkBound }) => ({ path, walkBound })),
      [
        { path: workspace.root, walkBound: "depth" },
        { path: join(deep, ".envrc"), walkBound: undefined },
        { path: join(deep, ".git"), walkBound: undefined },
      ].sort((a, b) => a.path === workspace.root ? -1 : a.path < b.path ? -1 : 1),
    );
    assert.equal(violations[0]!.quarantinedTo, null);
    assert.ok(violations.slice(1).every((v) => v.quarantinedTo !== null));
    assert.deepEqual(readdirSync(deep), []);
    assert.deepEqual(paths.unwalked, [{ root: workspace.root, bound: "depth" }]);
    assert.equal(paths.sweep().length, 3, "each is listed once");
    assert.equal(paths.unwalked.length, 1);
  });

  it("past a bound the launch met, moves only what changed since the launch", async () => {
    using workspace = tempWorkspace();
    const deep = join(workspace.root, ...Array(PROTECTED_WALK_DEPTH + 1).fill("d"));
    const own = join(deep, "own", ".git");
    mkdirSync(own, { recursive: true });
    // The user's repository, made in a second before the launch's (Deno reports ctime in seconds).
    await new Promise((done) => setTimeout(done, 1050 - (Date.now() % 1000)));
    const paths = guard(workspace);
    assert.deepEqual(paths.plan.unwalked, [{ root: workspace.root, bound: "depth" }]);
    const planted = join(deep, "planted", ".git");
    mkdirSync(planted, { recursive: true });
    const violations = paths.sweep();
    assert.deepEqual(violations.map((v) => v.path), [planted], "a bound the launch met is no news");
    assert.ok(existsSync(own), "the user's own repository stays");
    assert.ok(!existsSync(planted));
  });

  it("moves what replaced a protected directory whose parent was renamed away", () => {
    using workspace = tempWorkspace();
    const nested = join(workspace.root, "sub", ".git");
    mkdirSync(nested, { recursive: true });
    const paths = guard(workspace);
    renameSync(join(workspace.root, "sub"), join(workspace.root, "sub2"));
    mkdirSync(nested, { recursive: true });
    const violations = paths.sweep();
    assert.deepEqual(violations.map((v) => v.path), [nested]);
    assert.equal(existsSync(nested), false);
    assert.equal(existsSync(join(workspace.root, "sub2", ".git")), true);
  });

  it("does not follow a parent replaced by a symlink out of the root", () => {
    using workspace = tempWorkspace();
    const nested = join(workspace.root, "sub", ".git");
    mkdirSync(nested, { recursive: true });
    const outside = join(workspace.base, "outside");
    mkdirSync(join(outside, ".git"), { recursive: true });
    const paths = guard(workspace);
    rmSync(join(workspace.root, "sub"), { recursive: true });
    symlinkSync(outside, join(workspace.root, "sub"));
    assert.deepEqual(paths.sweep(), []);
    assert.equal(existsSync(join(outside, ".git")), true);
  });
});
