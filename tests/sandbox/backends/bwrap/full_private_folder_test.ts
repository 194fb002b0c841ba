// The namespace's reporter (see sandbox/backends/bwrap/_reporter.ts) when the
// file system of the executor's private folder is full: its count cannot be
// written, and that must not reach the command's stderr.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { execFileSync } from "node:child_process";
import { executorFor, probeHere, skipUnless, tempWorkspace } from "../../_fixtures.ts";

const statuses = await probeHere();

describe("the reporter with a full private folder", () => {
  it("leaves the command's stderr as the command wrote it, and the result says no count came", {
    skip: skipUnless(statuses, "bwrap") ||
      (process.getuid?.() !== 0 && "mounting a small tmpfs needs root"),
  }, async () => {
    using workspace = tempWorkspace();
    const mountPoint = mkdtempSync(join(tmpdir(), "shellseam-tmpfs-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]);
    try {
      await using executor = executorFor("bwrap", workspace, {
        defaultMode: "workspace-write",
        spillDir: mountPoint,
      });
      const warm = await executor.run({ command: "true" });
      assert.equal(warm.exitCode, 0, warm.stderr.text);
      // The private folder's file system fills up: the report cannot be written.
      assert.throws(() => writeFileSync(join(mountPoint, "fill"), new Uint8Array(128 * 1024)), {
        code: "ENOSPC",
      });
      const result = await executor.run({ command: "echo out; echo err >&2" });
      assert.equal(result.stdout.text, "out\n");
      assert.equal(result.stderr.text, "err\n");
      assert.match(result.strays.censusFailed ?? "", /ended without saying how many processes/);
    } finally {
      execFileSync("umount", [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});
