import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpillFile } from "../../local/_spill.ts";

function withDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-spill-"));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The descriptor this process holds open on `path`. */
function descriptorOf(path: string): number {
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) return Number(fd);
    } catch {
      // Descriptors come and go.
    }
  }
  throw new Error(`no descriptor open on ${path}`);
}

describe("SpillFile", () => {
  it("creates a 0600 file with a random name and keeps every byte up to the cap", () => {
    withDir((dir) => {
      const spill = SpillFile.create(dir, 10);
      const other = SpillFile.create(dir, 10);
      assert.ok(spill?.path && other?.path && spill.path !== other.path);
      assert.equal(statSync(spill.path).mode & 0o777, 0o600);
      spill.write(new TextEncoder().encode("hello "));
      assert.equal(spill.complete, true);
      spill.write(new TextEncoder().encode("world"));
      assert.equal(spill.complete, false);
      spill.close();
      other.close();
      assert.equal(readFileSync(spill.path, "latin1"), "hello worl");
    });
  });

  it("drops the path and the file after a write error", () => {
    withDir((dir) => {
      const spill = SpillFile.create(dir, 1000);
      const path = spill?.path;
      assert.ok(spill && path);
      spill.write(new Uint8Array([1, 2, 3]));
      closeSync(descriptorOf(path));
      spill.write(new Uint8Array([4]));
      assert.equal(spill.path, null);
      assert.equal(spill.complete, false);
      assert.equal(existsSync(path), false);
    });
  });

  it("never writes through a file or link that already has its name", () => {
    withDir((dir) => {
      const target = join(dir, "target");
      writeFileSync(target, "precious");
      const name = "00000000-0000-4000-8000-000000000000";
      symlinkSync(target, join(dir, `${name}.out`));
      const randomUUID = crypto.randomUUID;
      crypto.randomUUID = () => name;
      try {
        assert.equal(SpillFile.create(dir, 10), null);
      } finally {
        crypto.randomUUID = randomUUID;
      }
      assert.equal(readFileSync(target, "latin1"), "precious");
    });
  });

  it("returns null when the directory is unusable", () => {
    assert.equal(SpillFile.create("/proc/no-such-dir", 10), null);
  });
});
