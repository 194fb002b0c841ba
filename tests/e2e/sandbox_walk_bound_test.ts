// A command that fills a writable root past the bound of the walk that finds
// protected paths (more entries than it reads) and plants a repository with
// an fsmonitor command and an `.envrc` below it, where the walk never looks:
// on each backend, the result lists the bound as a violation and the plants
// as moved to the quarantine, the bash tool shows it, and the host's own git
// in the planted folder runs nothing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROTECTED_WALK_ENTRIES } from "../../sandbox/protected/mod.ts";
import { renderRunResult } from "../../tool/mod.ts";
import {
  executorFor,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  skipWithoutPython,
  tempWorkspace,
} from "../sandbox/_fixtures.ts";

const statuses = await probeHere();

for (const backend of SANDBOX_BACKENDS) {
  describe(`a root filled past the protected-path walk over ${backend}`, {
    skip: skipUnless(statuses, backend) || skipWithoutPython(),
  }, () => {
    it("is a violation, and what was planted past the bound is moved away", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const canary = join(workspace.base, "canary");
      // "many" comes first in the walk (breadth first, by name) and stops it before "zz".
      const fill = `import os\nos.mkdir("many")\nfor i in range(${PROTECTED_WALK_ENTRIES + 1}):\n` +
        `    open(f"many/{i}", "w").close()\n`;
      const command = [
        `python3 -c '${fill}'`,
        "git init -q zz/sub",
        `git -C zz/sub config core.fsmonitor "touch '${canary}'; false"`,
        `echo "touch '${canary}'" > zz/sub/.envrc`,
      ].join(" && ");
      const result = await executor.run(executor.resolve({ command, timeoutMs: 120_000 }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      const violations = result.sandbox?.violations ?? [];
      const sub = join(workspace.root, "zz", "sub");
      assert.deepEqual(
        violations.map(({ path, walkBound }) => ({ path, walkBound })).sort((a, b) =>
          a.path < b.path ? -1 : 1
        ),
        [
          { path: workspace.root, walkBound: "entries" },
          { path: join(sub, ".envrc"), walkBound: undefined },
          { path: join(sub, ".git"), walkBound: undefined },
        ],
      );
      for (const violation of violations.filter((v) => v.walkBound === undefined)) {
        assert.ok(violation.quarantinedTo !== null && existsSync(violation.quarantinedTo));
      }
      assert.equal(existsSync(join(sub, ".git")), false);
      assert.equal(existsSync(join(sub, ".envrc")), false);
      const rendered = renderRunResult(result);
      assert.ok(
        rendered.text.includes(
          `[sandbox: the command filled ${workspace.root} with more entries than the check for protected paths walks`,
        ),
        rendered.text,
      );
      assert.equal(rendered.isError, true);
      // The host's own git there finds no repository of the command's.
      spawnSync("git", ["-C", sub, "status"], { stdio: "ignore" });
      assert.equal(existsSync(canary), false, "the host's git ran a planted fsmonitor");
      // The next call meets the bound at launch: no news, and nothing planted is left to find.
      const next = await executor.run(executor.resolve({ command: "true" }));
      assert.equal(next.exitCode, 0);
      assert.equal(next.sandbox?.violations, undefined);
    });
  });
}
