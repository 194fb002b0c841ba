import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { makePrivateDir, otherPrivateDirs, PRIVATE_DIR_PREFIX } from "../../local/_private_dir.ts";

describe("private folders", () => {
  it("are made 0700 in the temporary directory with the recognisable prefix", () => {
    const dir = makePrivateDir();
    try {
      assert.equal(dirname(dir), tmpdir());
      assert.ok(basename(dir).startsWith(PRIVATE_DIR_PREFIX));
      assert.equal(statSync(dir).mode & 0o777, 0o700);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("carry their owner after the prefix when they have one", () => {
    const dir = makePrivateDir("123-456");
    try {
      assert.match(basename(dir), new RegExp(`^${PRIVATE_DIR_PREFIX}123-456-\\w{6}$`));
    } finally {
      rmSync(dir, { recursive: true });
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
});
