// The folders of private folders in the temporary folder, known between calls by a watch of it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WatchedPrivateParents } from "../../sandbox/_private_parents.ts";
import type { FolderEvent, FolderEvents } from "../../sandbox/protected/_inotify.ts";
import { IN_CREATE, IN_DELETE_SELF } from "../../sandbox/protected/_inotify.ts";

/** Events a test hands over, on one watch (wd 1); `added` counts the watches made. */
function fakeEvents(): FolderEvents & { queue: FolderEvent[] | "overflow"; added: number } {
  return {
    queue: [],
    added: 0,
    add() {
      this.added++;
      return 1;
    },
    remove() {},
    drain() {
      const queued = this.queue;
      this.queue = [];
      return queued;
    },
    close() {},
  };
}

/** A mount table with `/` on ext4 and nothing else. */
const ROOT_ON_EXT4 = () => "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n";

describe("the watched folders of private folders", () => {
  it("are listed again only after an event about a shellseam-u name, a lost watch or a full queue", () => {
    const base = mkdtempSync(join(tmpdir(), "private-parents-test-"));
    const events = fakeEvents();
    const watched = new WatchedPrivateParents(() => events, ROOT_ON_EXT4);
    try {
      assert.deepEqual(watched.of(base), []);
      const first = join(base, "shellseam-u4242");
      mkdirSync(first);
      // No event about it: the last answer stands (nothing listed the folder).
      assert.deepEqual(watched.of(base), []);
      events.queue = [{ wd: 1, mask: IN_CREATE, name: "other" }, {
        wd: 2,
        mask: IN_CREATE,
        name: "shellseam-u1",
      }];
      assert.deepEqual(watched.of(base), []);
      events.queue = [{ wd: 1, mask: IN_CREATE, name: "shellseam-u4242" }];
      assert.deepEqual(watched.of(base), [first]);
      const second = join(base, "shellseam-u7");
      mkdirSync(second);
      events.queue = "overflow";
      assert.deepEqual(watched.of(base).sort(), [second, first].sort());
      rmSync(second, { recursive: true });
      events.queue = [{ wd: 1, mask: IN_DELETE_SELF, name: "" }];
      assert.deepEqual(watched.of(base), [first]);
      assert.equal(events.added, 4, "a new watch before each listing");
    } finally {
      watched.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("are listed again for another folder at the same path, and every time without a watch", () => {
    const base = mkdtempSync(join(tmpdir(), "private-parents-test-"));
    const events = fakeEvents();
    const watched = new WatchedPrivateParents(() => events, ROOT_ON_EXT4);
    const unwatched = new WatchedPrivateParents(() => "no inotify here", ROOT_ON_EXT4);
    // A network file system's changes may not all go through this kernel.
    const nfs = new WatchedPrivateParents(
      () => events,
      () => "22 1 0:50 / / rw - nfs4 server:/ rw\n",
    );
    try {
      assert.deepEqual(watched.of(base), []);
      assert.deepEqual(unwatched.of(base), []);
      assert.deepEqual(nfs.of(base), []);
      // Another folder moved in its place makes no event on the watched one.
      renameSync(base, `${base}.old`);
      mkdirSync(base);
      mkdirSync(join(base, "shellseam-u5"));
      assert.deepEqual(watched.of(base), [join(base, "shellseam-u5")]);
      mkdirSync(join(base, "shellseam-u6"));
      assert.deepEqual(unwatched.of(base).sort(), [
        join(base, "shellseam-u5"),
        join(base, "shellseam-u6"),
      ]);
      assert.deepEqual(nfs.of(base).sort(), [
        join(base, "shellseam-u5"),
        join(base, "shellseam-u6"),
      ]);
    } finally {
      for (const one of [watched, unwatched, nfs]) one.close();
      rmSync(base, { recursive: true, force: true });
      rmSync(`${base}.old`, { recursive: true, force: true });
    }
  });
});
