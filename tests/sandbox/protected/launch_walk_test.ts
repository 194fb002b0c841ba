// The plan at launch of one call's protected paths, without a sandbox: what
// to bind read-only and how far the walk went.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PROTECTED_PATHS } from "../../../sandbox/mod.ts";
import {
  PROTECTED_WALK_DEPTH,
  PROTECTED_WALK_ENTRIES,
  protectionGaps,
} from "../../../sandbox/protected/mod.ts";
import { tempWorkspace } from "../_fixtures.ts";
import { guard } from "./_guard.ts";

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

  it("binds a name of several parts only where every folder on its way is real", () => {
    using workspace = tempWorkspace();
    const { base, root } = workspace;
    // In a package, .config/git under a real .config; at the root, .config is
    // a symlink to a folder outside the root that holds a git folder.
    mkdirSync(join(root, "pkg", ".config", "git"), { recursive: true });
    mkdirSync(join(base, "outside", "git"), { recursive: true });
    symlinkSync(join(base, "outside"), join(root, ".config"));
    const { plan } = guard(workspace, [".config/git"]);
    assert.deepEqual(plan.readOnly, [join(root, "pkg", ".config", "git")]);
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
        if (/^\.(git|husky|vscode|idea|claude|codex|shellseam|ssh|config\/git)$/.test(name)) {
          mkdirSync(join(dir, name), { recursive: true });
        } else writeFileSync(join(dir, name), "x\n");
        expected.push(join(dir, name));
      }
    }
    const { plan } = guard(workspace, [...DEFAULT_PROTECTED_PATHS]);
    assert.deepEqual([...plan.readOnly].sort(), expected.sort());
  });
});
