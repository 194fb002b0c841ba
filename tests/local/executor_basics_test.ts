import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { BashSpawnError } from "../../seam/mod.ts";
import { marker, processesWith, waitForSleep } from "./_helpers.ts";
import { forEachStrategy, it, LEAK_MARK, markedProcesses } from "./_executor.ts";

forEachStrategy(
  "LocalBashExecutor: runs, sessions, workdirs and exit codes",
  (make, sessionStrategy) => {
    it("uses the requested session strategy", async () => {
      await using executor = make();
      assert.equal(executor.config.sessionStrategy, sessionStrategy);
    });

    it("marks every process with the leak check's variable", async () => {
      const mark = process.env[LEAK_MARK];
      assert.ok(mark !== undefined);
      await using executor = make();
      const token = marker();
      const child = await executor.start(executor.resolve({ command: `sleep ${token}` }));
      await waitForSleep(token);
      assert.ok(markedProcesses(mark).length > 0);
      await child.kill();
    });

    it("runs bash in a new session and process group led by the shell", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: 'read -r _ _ _ _ pgrp sid _ < /proc/$$/stat; echo "$$ $pgrp $sid $PPID"',
      }));
      const [pid, pgrp, sid, ppid] = result.stdout.text.trim().split(" ");
      assert.equal(pgrp, pid);
      assert.equal(sid, pid);
      assert.equal(ppid, String(process.pid));
    });

    it("captures stdout, stderr and both", async () => {
      await using executor = make();
      const out = await executor.run(executor.resolve({ command: "echo out" }));
      assert.equal(out.stdout.text, "out\n");
      assert.equal(out.stderr.text, "");
      const err = await executor.run(executor.resolve({ command: "echo err >&2" }));
      assert.equal(err.stdout.text, "");
      assert.equal(err.stderr.text, "err\n");
      const both = await executor.run(executor.resolve({ command: "echo a; echo b >&2; echo c" }));
      assert.equal(both.stdout.text, "a\nc\n");
      assert.equal(both.stderr.text, "b\n");
      assert.equal(both.exitCode, 0);
      assert.equal(both.signal, null);
      assert.equal(both.stdout.truncated, false);
      assert.equal(both.stdout.totalBytes, 4);
    });

    it("measures durationMs", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({ command: "sleep 0.3" }));
      // The upper bound leaves room for a loaded machine.
      assert.ok(result.durationMs >= 250 && result.durationMs < 30_000, `${result.durationMs} ms`);
    });

    it("resolves a non-zero exit", async () => {
      await using executor = make();
      const result = await executor.run(executor.resolve({ command: "echo no >&2; exit 7" }));
      assert.equal(result.exitCode, 7);
      assert.equal(result.timedOut || result.idledOut || result.aborted, false);
    });

    it("runs in the executor's cwd by default and in a given workdir", async () => {
      const root = mkdtempSync(join(tmpdir(), "shellseam-cwd-"));
      try {
        await using executor = make({ cwd: root });
        const byDefault = await executor.run(executor.resolve({ command: "pwd -P" }));
        assert.equal(byDefault.stdout.text, `${root}\n`);
        const absolute = await executor.run(executor.resolve({ command: "pwd -P", workdir: "/" }));
        assert.equal(absolute.stdout.text, "/\n");
        await executor.run(executor.resolve({ command: "mkdir sub" }));
        const relative = await executor.run(
          executor.resolve({ command: "pwd -P", workdir: "sub" }),
        );
        assert.equal(relative.stdout.text, `${root}/sub\n`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    it("rejects a missing workdir with BashSpawnError naming the path", async () => {
      await using executor = make();
      const token = marker();
      await assert.rejects(
        executor.run(executor.resolve({ command: `sleep ${token}`, workdir: "/no/such/dir" })),
        (error: unknown) =>
          error instanceof BashSpawnError && error.message.includes('"/no/such/dir"'),
      );
      assert.deepEqual(processesWith(token), []);
    });
  },
);
