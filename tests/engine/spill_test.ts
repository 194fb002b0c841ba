import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  closeSync,
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
import { SpillFile } from "../../engine/_spill.ts";

function withDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-spill-"));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A spill file in `dir`, which must be creatable. */
function created(dir: string, limit: number): SpillFile {
  const spill = SpillFile.create(dir, limit);
  assert.ok(spill instanceof SpillFile, JSON.stringify(spill));
  return spill;
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
      const spill = created(dir, 10);
      const other = created(dir, 10);
      assert.notEqual(spill.path, other.path);
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

  it("keeps what was written, and why it stopped, after a write error", () => {
    withDir((dir) => {
      const spill = created(dir, 1000);
      const path = spill.path;
      spill.write(new Uint8Array([1, 2, 3]));
      closeSync(descriptorOf(path));
      spill.write(new Uint8Array([4]));
      assert.equal(spill.path, path);
      assert.equal(spill.complete, false);
      assert.equal(spill.error, "EBADF: bad file descriptor");
      assert.deepEqual([...readFileSync(path)], [1, 2, 3]);
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
        assert.deepEqual(SpillFile.create(dir, 10), { error: "EEXIST: file already exists" });
      } finally {
        crypto.randomUUID = randomUUID;
      }
      assert.equal(readFileSync(target, "latin1"), "precious");
    });
  });

  it("says why when the directory is unusable", () => {
    assert.deepEqual(SpillFile.create("/proc/no-such-dir", 10), {
      error: "ENOENT: no such file or directory",
    });
  });
});
