// The reads of the kernel's small files (engine/_kernel_file.ts) into the
// buffer kept for them: each gives the whole file as readFileSync's latin1
// does, whatever was read before it, and fails as that does.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readKernelFile } from "../../engine/_kernel_file.ts";
import { hostPlatform } from "../../runtime/mod.ts";

describe("readKernelFile", () => {
  it("reads a file larger than the kept buffer whole, and a shorter one after it exactly", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-kernel-file-"));
    try {
      const long = join(dir, "long");
      const short = join(dir, "short");
      // Every byte value, so a decoding other than a byte a character shows.
      const bytes = Uint8Array.from({ length: 200_000 }, (_, at) => at % 256);
      writeFileSync(long, bytes);
      writeFileSync(short, "processes 42\n");
      assert.equal(readKernelFile(long), readFileSync(long, "latin1"));
      assert.equal(readKernelFile(long).length, 200_000);
      assert.equal(readKernelFile(short), "processes 42\n");
      assert.equal(readKernelFile(short).charCodeAt(0), "p".charCodeAt(0));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a /proc file, whose size reads 0, to its end", { skip: !hostPlatform.proc }, () => {
    const status = readKernelFile("/proc/self/status");
    assert.match(status, /^Name:/);
    assert.match(status, /\nPid:\s+\d+\n/);
    assert.ok(status.endsWith("\n"), "to the last line");
  });

  it("fails as readFileSync does, with the error's code", { skip: !hostPlatform.proc }, () => {
    assert.throws(
      () => readKernelFile("/proc/999999999/stat"),
      (error: NodeJS.ErrnoException) => error.code === "ENOENT",
    );
    const dir = mkdtempSync(join(tmpdir(), "shellseam-kernel-file-"));
    try {
      assert.throws(
        () => readKernelFile(dir),
        (error: NodeJS.ErrnoException) => error.code === "EISDIR",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
