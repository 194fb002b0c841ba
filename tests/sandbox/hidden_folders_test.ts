// Other users' folders of private folders stay hidden from a confined command, also one made
// after the executor last looked at the spill folder: by its watch (sandbox/_private_parents.ts),
// or by a listing kept while the folder's times stand (engine/_listing.ts) where there is none.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { folderNames, settledSince } from "../../engine/_listing.ts";
import {
  executorFor,
  probeHere,
  SANDBOX_BACKENDS_HERE,
  skipUnless,
  tempWorkspace,
} from "./_fixtures.ts";
import { until } from "../local/_helpers.ts";

const statuses = await probeHere();

describe("other users' folders of private folders beside the spill folder", () => {
  for (const backend of SANDBOX_BACKENDS_HERE) {
    it(`are hidden from a ${backend} command also one made after the last look`, {
      skip: skipUnless(statuses, backend),
    }, async () => {
      using workspace = tempWorkspace();
      const spillDir = join(workspace.base, "spill");
      mkdirSync(spillDir);
      await using executor = executorFor(backend, workspace, {
        spillDir,
        defaultMode: "workspace-write",
      });
      const run = (command: string) => executor.run(executor.resolve({ command }));
      // The first call makes this user's folder there; once the spill folder's
      // times are settled, the next call's look at it is kept (a listing, or a watch).
      assert.equal((await run("true")).exitCode, 0);
      const { mtimeMs, ctimeMs } = statSync(spillDir);
      await until(() => Date.now() > settledSince(mtimeMs, ctimeMs) + 10, "a settled folder");
      assert.equal((await run("true")).exitCode, 0);
      const kept = folderNames(spillDir);
      assert.equal(folderNames(spillDir), kept, "a listing would be kept");
      // Another user's executor starts now, in the same tick as that listing if it can.
      const others = join(spillDir, "shellseam-u4343");
      mkdirSync(join(others, "shellseam-exec-x"), { recursive: true, mode: 0o755 });
      writeFileSync(join(others, "shellseam-exec-x", "spill.out"), "another user's output");
      const result = await run(`ls -A '${others}'; cat '${others}/shellseam-exec-x/spill.out'`);
      assert.notEqual(result.exitCode, 0);
      assert.equal(result.stdout.text, "");
      assert.doesNotMatch(result.stderr.text, /another user's output/);
    });
  }
});
