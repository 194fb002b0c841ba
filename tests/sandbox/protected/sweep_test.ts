// The sweep of one call's protected paths when it ends, without a sandbox,
// with a command's doings played by the test on the file system.
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
import { DEFAULT_PROTECTED_PATHS } from "../../../sandbox/mod.ts";
import { PROTECTED_WALK_DEPTH } from "../../../sandbox/protected/mod.ts";
import { tempWorkspace } from "../_fixtures.ts";
import { guard } from "./_guard.ts";

describe("ProtectedPaths with the default list", () => {
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
