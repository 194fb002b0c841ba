// A bwrap executor whose private folder's file system is read-only (no
// private folder: each call is refused) or full: the seccomp
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
import type { SandboxBashExecutor } from "../../../../sandbox/mod.ts";
import { executorFor, probeHere, skipUnless, tempWorkspace } from "../../_fixtures.ts";

const statuses = await probeHere();
const skip = skipUnless(statuses, "bwrap") ||
  (process.getuid?.() !== 0 && "mounting a small tmpfs needs root");

/**
 * Runs `body` with a bwrap executor whose private folder is made on a fresh
 * 64 KiB tmpfs (mounted with `options`), and `fill`, which fills that file
 * system up; then unmounts it.
 */
async function onSmallTmpfs(
  body: (executor: SandboxBashExecutor, fill: () => string) => Promise<void>,
  options = "size=64k",
): Promise<void> {
  using workspace = tempWorkspace();
  const mountPoint = mkdtempSync(join(tmpdir(), "shellseam-tmpfs-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint]);
  try {
    await using executor = executorFor("bwrap", workspace, {
      defaultMode: "workspace-write",
      spillDir: mountPoint,
    });
    await body(executor, () => {
      const file = join(mountPoint, "fill");
      assert.throws(() => writeFileSync(file, new Uint8Array(128 * 1024)), { code: "ENOSPC" });
      return file;
    });
    const drafts = readdirSync(mountPoint, { recursive: true, encoding: "utf8" })
      .filter((path) => /seccomp-[^/]*\.bpf-/.test(path));
    assert.deepEqual(drafts, [], "no filter is left half-written");
  } finally {
    execFileSync("umount", [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
}

describe("a bwrap executor whose private folder's file system is full or read-only", () => {
  it("leaves the command's stderr as the command wrote it, and the result says no count came", {
    skip,
  }, async () => {
    await onSmallTmpfs(async (executor, fill) => {
      const warm = await executor.run({ command: "true" });
      assert.equal(warm.exitCode, 0, warm.stderr.text);
      // The report cannot be written from now on.
      fill();
      const result = await executor.run({ command: "echo out; echo err >&2" });
      assert.equal(result.stdout.text, "out\n");
      assert.equal(result.stderr.text, "err\n");
      assert.match(result.strays.censusFailed ?? "", /ended without saying how many processes/);
    });
  });

  it(
    "refuses a first call with a BashSpawnError that says to call again, and runs once there is room",
    {
      skip,
    },
    async () => {
      await onSmallTmpfs(async (executor, fill) => {
        const file = fill();
        for (let i = 0; i < 2; i++) {
          await assert.rejects(
            executor.run({ command: "true" }),
            (error: unknown) =>
              error instanceof BashSpawnError &&
              /Cannot write the seccomp filter .*ENOSPC.* and call again$/.test(error.message),
          );
        }
        rmSync(file);
        const result = await executor.run({ command: "echo ran" });
        assert.equal(result.stdout.text, "ran\n", result.stderr.text);
      });
    },
  );

  it("refuses each call with a BashSpawnError when the private folder cannot be made (read-only)", {
    skip,
  }, async () => {
    await onSmallTmpfs(async (executor) => {
      for (let i = 0; i < 2; i++) {
        await assert.rejects(
          executor.run({ command: "true" }),
          (error: unknown) =>
            error instanceof BashSpawnError &&
            /^Could not make the executor's private folder in ".*" \(EROFS: read-only file system\), so nothing was run; make that folder writable/
              .test(error.message),
        );
      }
    }, "ro,size=64k");
  });
});
