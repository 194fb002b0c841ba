import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderNames, settledSince } from "../../engine/_listing.ts";

/** Waits until the folders changed so far count as settled (a second unchanged). */
const settle = (): Promise<void> => new Promise((done) => setTimeout(done, 1100));

describe("folderNames", () => {
  it("keeps the listing of a settled folder until an entry is made, removed or renamed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-listing-"));
    try {
      writeFileSync(join(dir, "a"), "");
      await settle();
      const first = folderNames(dir);
      assert.deepEqual([...first], ["a"]);
      assert.equal(folderNames(dir), first, "unchanged: the kept listing");
      mkdirSync(join(dir, "b"));
      assert.deepEqual([...folderNames(dir)].sort(), ["a", "b"]);
      await settle();
      const settled = folderNames(dir);
      assert.equal(folderNames(dir), settled);
      // Setting the modification time back does not hide a change: the change time moved.
      const past = new Date(Date.now() - 60_000);
      rmSync(join(dir, "a"));
      utimesSync(dir, past, past);
      assert.notEqual(folderNames(dir), settled);
      assert.deepEqual([...folderNames(dir)], ["b"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lists a folder whose times are not settled anew each time", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-listing-"));
    try {
      writeFileSync(join(dir, "a"), "");
      // A whole second ahead of the clock: a change later in it could read the same.
      const ahead = new Date(Math.ceil(Date.now() / 1000) * 1000 + 60_000);
      utimesSync(dir, ahead, ahead);
      const first = folderNames(dir);
      assert.deepEqual([...first], ["a"]);
      assert.notEqual(folderNames(dir), first, "not kept: a change in the same tick could hide");
      assert.throws(() => folderNames(join(dir, "missing")), { code: "ENOENT" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts a fine time settled after a few ticks, a round one after a second", () => {
    const fine = 1_700_000_000_123;
    // Every fine time: 50 ms, five ticks of the kernel's slowest clock.
    assert.equal(settledSince(fine, fine), fine + 50);
    assert.equal(settledSince(fine, fine + 0.5), fine + 50.5);
    // A round time may be truncated (a coarse filesystem, Deno's change time): a second, and the
    // same margin for the kernel's clock, which lags.
    assert.equal(settledSince(fine, 1_700_000_000_000), 1_700_000_001_050);
    assert.equal(settledSince(1_700_000_000_120, fine), 1_700_000_001_170);
    assert.equal(settledSince(fine + 0.9, fine), fine + 50.9);
  });
});
