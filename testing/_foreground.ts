import assert from "node:assert/strict";
import { BashConfigError, BashSpawnError } from "../seam/mod.ts";
import type { CaseDefinition } from "./_harness.ts";

/** SIGTERM's number on Linux, for a shell's 128 + N. */
const SIGTERM_NUMBER = 15;

/** Foreground runs: what a finished command reports, and what never starts. */
export const foregroundCases: readonly CaseDefinition[] = [
  {
    name: "reports stdout, stderr and the exit code of a command that ended on its own",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, { command: "echo out; echo err >&2; exit 3" });
      assert.equal(result.exitCode, 3);
      assert.equal(result.signal, null);
      assert.equal(result.stdout.text, "out\n");
      assert.equal(result.stderr.text, "err\n");
      for (const stream of [result.stdout, result.stderr]) {
        assert.equal(stream.truncated, false);
        assert.equal(stream.totalBytes, 4);
        assert.equal(stream.omittedBytes, 0);
        assert.equal(stream.invalidUtf8Bytes, 0);
        assert.equal(stream.spillPath, undefined);
      }
      assert.deepEqual(
        [result.timedOut, result.idledOut, result.aborted],
        [false, false, false],
      );
      // What the platform cannot find (`gaps`, on an executor's first result) is no stray.
      const { gaps: _gaps, ...strays } = result.strays;
      assert.deepEqual(strays, { killed: 0, survivors: [] });
      assert.ok(result.durationMs >= 0 && Number.isFinite(result.durationMs));
      assert.ok(result.timeoutMs > 0);
      const ok = await h.run(executor, { command: "true" });
      assert.equal(ok.exitCode, 0);
      assert.equal(ok.stdout.text, "");
    },
  },
  {
    name: "reports a shell that a signal ended, as neither timed out nor aborted",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, { command: "echo before; kill -TERM $$; echo after" });
      assert.equal(result.stdout.text, "before\n");
      if (h.capabilities.reportsShellSignal) {
        assert.deepEqual([result.signal, result.exitCode], ["SIGTERM", null]);
      } else {
        assert.deepEqual([result.signal, result.exitCode], [null, 128 + SIGTERM_NUMBER]);
      }
      assert.deepEqual(
        [result.timedOut, result.idledOut, result.aborted],
        [false, false, false],
      );
    },
  },
  {
    name: "runs commands side by side, each with its own output",
    async body(h) {
      const executor = await h.executor();
      const results = await Promise.all(
        Array.from(
          { length: 12 },
          (_, i) =>
            h.run(executor, { command: `sleep 0.1; echo out${i}; echo err${i} >&2; exit ${i}` }),
        ),
      );
      results.forEach((result, i) => {
        assert.deepEqual(
          [result.stdout.text, result.stderr.text, result.exitCode],
          [`out${i}\n`, `err${i}\n`, i],
        );
      });
    },
  },
  {
    name: "runs in the given workdir, with no terminal to prompt on",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, {
        command: "pwd; if (: </dev/tty) 2>/dev/null; then echo terminal; else echo none; fi",
        workdir: "/",
      });
      assert.equal(result.stdout.text, "/\nnone\n");
      assert.equal(result.exitCode, 0);
    },
  },
  {
    name: "rejects a missing workdir with BashSpawnError and runs nothing",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      await assert.rejects(
        h.run(executor, { command: marker.sleep, workdir: `/nonexistent-${marker.text}` }),
        BashSpawnError,
      );
      assert.deepEqual(await h.processes(marker), []);
    },
  },
  {
    name: "rejects an aborted signal with BashSpawnError and runs nothing, in run() and start()",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const request = { command: marker.sleep, signal: AbortSignal.abort() };
      await assert.rejects(h.run(executor, request), BashSpawnError);
      await assert.rejects(h.start(executor, request), BashSpawnError);
      assert.deepEqual(await h.processes(marker), []);
    },
  },
  {
    name: "rejects bad values with BashConfigError and runs nothing",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const bad = [
        { timeoutMs: 0 },
        { timeoutMs: -1 },
        { timeoutMs: Number.NaN },
        { timeoutMs: Number.POSITIVE_INFINITY },
        { idleTimeoutMs: 0 },
        { env: { SHELLSEAM_CONFORMANCE: "managed names belong in managedEnv" } },
        { managedEnv: { CONFORMANCE: "unmanaged names belong in env" } as never },
      ];
      for (const values of bad) {
        await assert.rejects(
          h.run(executor, { command: marker.sleep, ...values }),
          BashConfigError,
          JSON.stringify(values),
        );
        await assert.rejects(
          h.start(executor, { command: marker.sleep, ...values }),
          BashConfigError,
          JSON.stringify(values),
        );
      }
      assert.deepEqual(await h.processes(marker), []);
    },
  },
];
