import assert from "node:assert/strict";
import { BashSpawnError } from "../seam/mod.ts";
import type { CaseDefinition } from "./_harness.ts";

/** Disposal: nothing left running, and nothing runs afterwards. */
export const disposalCases: readonly CaseDefinition[] = [
  {
    name: "kills every running command, foreground and background, and awaits their ends",
    fresh: true,
    async body(h) {
      const executor = await h.executor();
      const [foreground, background, stubborn] = [h.marker(), h.marker(), h.marker()];
      const running = h.run(executor, { command: foreground.sleep });
      const process = await h.start(executor, { command: `echo up; ${background.sleep}` });
      const trapping = await h.start(executor, { command: `trap '' TERM; ${stubborn.sleep}` });
      for (const marker of [foreground, background, stubborn]) await h.waitForSleep(marker);
      await h.dispose(executor);
      // Awaited means gone: no grace for the census here.
      for (const marker of [foreground, background, stubborn]) {
        assert.deepEqual(await h.processes(marker), [], `"sleep ${marker.text}" outlived disposal`);
      }
      assert.deepEqual([process.status, trapping.status], ["killed", "killed"]);
      assert.equal(process.readOutput().stdout.text, "up\n");
      const result = await running;
      assert.equal(result.exitCode, null);
      assert.notEqual(result.signal, null);
    },
  },
  {
    name: "rejects run() and start() with BashSpawnError once disposed, and runs nothing",
    fresh: true,
    async body(h) {
      const executor = await h.executor();
      await h.dispose(executor);
      const marker = h.marker();
      await assert.rejects(h.run(executor, { command: marker.sleep }), BashSpawnError);
      await assert.rejects(h.start(executor, { command: marker.sleep }), BashSpawnError);
      assert.deepEqual(await h.processes(marker), []);
      // A second disposal (the harness disposes again) finds nothing to do.
      await h.dispose(executor);
    },
  },
];
