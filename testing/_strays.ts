import assert from "node:assert/strict";
import type { BashRunResult } from "../seam/mod.ts";
import type { CaseDefinition, Harness } from "./_harness.ts";

/** Survivors are never allowed; `killed` is checked where the executor counts strays. */
function assertStrays(h: Harness, result: BashRunResult, killed: number): void {
  assert.deepEqual(result.strays.survivors, []);
  if (h.capabilities.countsStrays) assert.equal(result.strays.killed, killed, "strays.killed");
}

/** Children that outlive the shell: the drain grace, the sweep, and its count. */
export const strayCases: readonly CaseDefinition[] = [
  {
    name: "returns when the shell exits though a background child holds the output, and kills it",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, {
        command: `${marker.sleep} & echo done`,
        timeoutMs: 60_000,
      });
      assert.equal(result.exitCode, 0);
      assert.equal(result.timedOut, false);
      assert.equal(result.stdout.text, "done\n");
      assertStrays(h, result, 1);
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "gives children that still hold the output the drain grace to finish",
    needs: "drainGrace",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, { command: "(sleep 0.2; echo late) & echo early" });
      assert.equal(result.stdout.text, "early\nlate\n");
      // What the platform cannot find (`gaps`, on an executor's first result) is no stray.
      const { gaps: _gaps, ...strays } = result.strays;
      assert.deepEqual(strays, { killed: 0, survivors: [] });
    },
  },
  {
    name: "kills grandchildren with the command",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, {
        command: `bash -c 'bash -c "${marker.sleep.replaceAll('"', '\\"')}"; true'; true`,
        timeoutMs: 300,
      });
      assert.equal(result.timedOut, true);
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "kills a child that left the process group but not the session, and counts it",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, { command: `set -m; ${marker.sleep} & echo x` });
      assert.equal(result.stdout.text, "x\n");
      assert.equal(result.exitCode, 0);
      assertStrays(h, result, 1);
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "kills a double-forked child that closed its output, and counts it",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, {
        command: `(${marker.sleep} >/dev/null 2>&1 &); echo x`,
      });
      assert.equal(result.stdout.text, "x\n");
      assert.equal(result.exitCode, 0);
      assertStrays(h, result, 1);
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "kills a child that called setsid() and kept its environment, and counts it",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      // util-linux's setsid where there is one, else perl's (macOS has no setsid program).
      const perl = "perl -MPOSIX -e 'POSIX::setsid() >= 0 or die; exec @ARGV or die'";
      const result = await h.run(executor, {
        command: `(if command -v setsid >/dev/null; then exec setsid ${marker.sleep}; ` +
          `else exec ${perl} ${marker.sleep}; fi) >/dev/null 2>&1 & sleep 0.5; echo x`,
      });
      assert.equal(result.stdout.text, "x\n");
      assert.equal(result.exitCode, 0);
      assertStrays(h, result, 1);
      await h.assertNoneLeft(marker);
    },
  },
];
