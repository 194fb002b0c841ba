// A confined call made while this process has no file descriptor left: the
// sandbox opens files before it spawns (it lists the private folders, writes
// the cgroup's limits and bwrap's options), and each must fail as a spawn does.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync } from "node:fs";
import { exhaustDescriptors } from "../local/_helpers.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import {
  executorFor,
  probeHere,
  SANDBOX_BACKENDS_HERE,
  skipUnless,
  tempWorkspace,
} from "./_fixtures.ts";

const statuses = await probeHere();

for (const backend of SANDBOX_BACKENDS_HERE) {
  describe(`a ${backend} executor in a process out of file descriptors`, () => {
    it("fails each call with a BashSpawnError that says so, and later calls run", {
      skip: skipUnless(statuses, backend),
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const warm = await executor.run({ command: "echo warm" });
      assert.equal(warm.stdout.text, "warm\n", warm.stderr.text);
      // Kept until the descriptors are free again: an assertion's error made
      // meanwhile could not even read its stack.
      const failures: unknown[] = [];
      const held = exhaustDescriptors();
      try {
        for (let i = 0; i < 6; i++) {
          await executor.run({ command: "true" }).then(
            () => failures.push("ran"),
            (error) => failures.push(error),
          );
        }
        await executor.start({ command: "true" }).then(
          () => failures.push("started"),
          (error) => failures.push(error),
        );
      } finally {
        for (const fd of held) closeSync(fd);
      }
      assert.equal(failures.length, 7);
      for (const failure of failures) {
        assert.ok(failure instanceof BashSpawnError, String(failure));
        assert.match(
          failure.message,
          /: too many open files \(EMFILE\): this process has run out of file descriptors; close descriptors/,
        );
      }
      const after = await executor.run({ command: "echo after" });
      assert.equal(after.stdout.text, "after\n", after.stderr.text);
    });
  });
}
