// A bwrap executor whose private folder's file system is full: the seccomp
// filter file cannot be written (the call is refused, and nothing is left
// half-written), nor the namespace reporter's count (see
// sandbox/backends/bwrap/_reporter.ts), which must not reach the command's stderr.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { execFileSync } from "node:child_process";
import { BashSpawnError } from "../../../../seam/mod.ts";
import { executorFor, probeHere, skipUnless, tempWorkspace } from "../../_fixtures.ts";

const statuses = await probeHere();

describe("a bwrap executor whose private folder's file system is full", () => {
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

  it(
    "refuses a first call with a BashSpawnError, leaves no half-written filter, and runs once there is room",
    {
      skip: skipUnless(statuses, "bwrap") ||
        (process.getuid?.() !== 0 && "mounting a small tmpfs needs root"),
    },
    async () => {
      using workspace = tempWorkspace();
      const mountPoint = mkdtempSync(join(tmpdir(), "shellseam-tmpfs-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]);
      try {
        await using executor = executorFor("bwrap", workspace, {
          defaultMode: "workspace-write",
          spillDir: mountPoint,
        });
        const fill = join(mountPoint, "fill");
        assert.throws(() => writeFileSync(fill, new Uint8Array(128 * 1024)), { code: "ENOSPC" });
        for (let i = 0; i < 2; i++) {
          await assert.rejects(
            executor.run({ command: "true" }),
            (error: unknown) =>
              error instanceof BashSpawnError &&
              /Cannot write the seccomp filter .*ENOSPC.* and call again$/.test(error.message),
          );
        }
        const drafts = readdirSync(mountPoint, { recursive: true, encoding: "utf8" })
          .filter((path) => /seccomp-[^/]*\.bpf-/.test(path));
        assert.deepEqual(drafts, []);
        rmSync(fill);
        const result = await executor.run({ command: "echo ran" });
        assert.equal(result.stdout.text, "ran\n", result.stderr.text);
      } finally {
        execFileSync("umount", [mountPoint]);
        rmSync(mountPoint, { recursive: true, force: true });
      }
    },
  );
});
