import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { BashConfigError } from "../../seam/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { probeHere, skipUnless, tempWorkspace } from "./_fixtures.ts";

const statuses = await probeHere();
const MiB = 1024 * 1024;

describe("the sandbox's spill folder", () => {
  it("refuses a spillDir in the workspace or a writable root, of the executor or of a call", async () => {
    using workspace = tempWorkspace();
    const cache = join(workspace.base, "cache");
    const outside = join(workspace.base, "spill");
    for (const dir of [join(workspace.root, "spill"), join(cache, "spill"), outside]) {
      mkdirSync(dir, { recursive: true });
    }
    const refused = (root: string) => (error: unknown) =>
      error instanceof BashConfigError &&
      error.message.includes(`lies in "${root}", which confined commands may write to`);
    assert.throws(
      () =>
        new SandboxBashExecutor({
          workspaceRoot: workspace.root,
          spillDir: join(workspace.root, "spill"),
        }),
      refused(workspace.root),
      "even under read-only: a call may widen the mode over the same roots",
    );
    assert.throws(
      () =>
        new SandboxBashExecutor({
          workspaceRoot: workspace.root,
          writableRoots: [cache],
          spillDir: join(cache, "spill"),
        }),
      refused(cache),
    );
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      spillDir: outside,
    });
    assert.throws(
      () =>
        executor.resolve({
          command: "true",
          sandboxPolicy: {
            mode: "workspace-write",
            workspaceRoot: workspace.root,
            network: "deny",
            writableRoots: [workspace.base],
          },
        }),
      refused(workspace.base),
    );
    const result = await executor.run(
      executor.resolve({
        command: "seq 1 100000",
        sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
      }),
    );
    assert.equal(dirname(dirname(dirname(result.stdout.spillPath ?? ""))), outside);
  });

  for (const backend of ["bwrap", "landlock"] as const) {
    it(`counts the ${backend} backend's scratch TMPDIR against the spill budget`, {
      skip: skipUnless(statuses, backend),
    }, async () => {
      using workspace = tempWorkspace();
      const spillDir = join(workspace.base, "spill");
      mkdirSync(spillDir);
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: [backend],
        spillDir,
        maxSpillTotalBytes: 4 * MiB,
      });
      const result = await executor.run(executor.resolve({
        command: `head -c ${3 * MiB} /dev/zero > "$TMPDIR/big" && head -c ${2 * MiB} /dev/zero`,
      }));
      assert.equal(result.sandbox?.backend, backend);
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.spillComplete, false);
      assert.equal(result.stdout.spillError, `spill budget of ${4 * MiB} bytes reached`);
      const [privateDir] = readdirSync(spillDir);
      const big = readdirSync(join(spillDir, privateDir ?? ""), { recursive: true })
        .filter((name) => String(name).endsWith("big"));
      assert.equal(big.length, 1, "the scratch file lies in the private folder, and stays");
    });
  }
});
