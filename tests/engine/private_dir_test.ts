import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { BashSpawnError } from "../../seam/mod.ts";
import {
  makeFolder,
  makePrivateDir,
  otherPrivateDirs,
  PRIVATE_DIR_PREFIX,
  privateParent,
  privateParents,
} from "../../engine/_private_dir.ts";

describe("private folders", () => {
  it("are made 0700 in the user's own 0700 folder in the temporary directory, with the prefix", () => {
    const dir = makePrivateDir();
    try {
      assert.equal(dirname(dir), join(tmpdir(), `shellseam-u${process.getuid?.() ?? 0}`));
      assert.equal(lstatSync(dirname(dir)).mode & 0o777, 0o700);
      assert.ok(basename(dir).startsWith(PRIVATE_DIR_PREFIX));
      assert.equal(statSync(dir).mode & 0o777, 0o700);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("carry their owner after the prefix when they have one", () => {
    // A base of its own: in the shared one, a watchdog of an executor running beside
    // this test removes a folder whose owner (pid 123 here) is gone.
    const base = mkdtempSync(join(tmpdir(), "private-owner-"));
    try {
      const dir = makePrivateDir(base, "123-456");
      assert.match(basename(dir), new RegExp(`^${PRIVATE_DIR_PREFIX}123-456-\\w{6}$`));
    } finally {
      rmSync(base, { recursive: true });
    }
  });

  it("of other executors are the prefixed directories beside one's own, not files or links", () => {
    const parent = mkdtempSync(join(tmpdir(), "private-dir-test-"));
    try {
      const own = join(parent, `${PRIVATE_DIR_PREFIX}own`);
      const other = join(parent, `${PRIVATE_DIR_PREFIX}other`);
      for (const dir of [own, other, join(parent, "shellseam-sbx-ws")]) mkdirSync(dir);
      writeFileSync(join(parent, `${PRIVATE_DIR_PREFIX}file`), "");
      symlinkSync(other, join(parent, `${PRIVATE_DIR_PREFIX}link`));
      assert.deepEqual(otherPrivateDirs(own), [other]);
      assert.throws(() => otherPrivateDirs(join(parent, "gone", "own")), /ENOENT/);
    } finally {
      rmSync(parent, { recursive: true });
    }
  });

  it("live in a folder per user that must be that user's alone", () => {
    const base = mkdtempSync(join(tmpdir(), "private-parent-test-"));
    try {
      const parent = privateParent(base);
      assert.equal(parent, join(base, `shellseam-u${process.getuid?.() ?? 0}`));
      assert.equal(privateParent(base), parent);
      mkdirSync(join(base, "shellseam-u4242"));
      writeFileSync(join(base, "shellseam-u77"), "");
      mkdirSync(join(base, "shellseam-uxyz"));
      assert.deepEqual(privateParents(base).sort(), [parent, join(base, "shellseam-u4242")].sort());
      chmodSync(parent, 0o755);
      assert.throws(() => privateParent(base), (error: unknown) => {
        assert.ok(error instanceof BashSpawnError);
        assert.match(error.message, /is not a folder that only this user can enter/);
        return true;
      });
      rmSync(parent, { recursive: true });
      symlinkSync(join(base, "shellseam-u4242"), parent);
      assert.throws(() => makePrivateDir(base), BashSpawnError);
    } finally {
      rmSync(base, { recursive: true });
    }
  });
});

describe("makeFolder", () => {
  it("makes a missing folder 0700, leaves whatever has the name, and throws for a missing parent", () => {
    const base = mkdtempSync(join(tmpdir(), "make-folder-"));
    try {
      const made = join(base, "made");
      makeFolder(made);
      assert.equal(lstatSync(made).mode & 0o777, 0o700);
      chmodSync(made, 0o750);
      makeFolder(made);
      assert.equal(lstatSync(made).mode & 0o777, 0o750, "an existing folder was made again");
      const file = join(base, "file");
      writeFileSync(file, "x");
      makeFolder(file);
      assert.ok(lstatSync(file).isFile());
      symlinkSync(join(base, "nowhere"), join(base, "dangling"));
      makeFolder(join(base, "dangling"));
      assert.ok(lstatSync(join(base, "dangling")).isSymbolicLink());
      assert.throws(() => makeFolder(join(base, "no", "parent")), { code: "ENOENT" });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
