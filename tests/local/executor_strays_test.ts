import assert from "node:assert/strict";
import { assertNoneLeft, marker } from "./_helpers.ts";
import { forEachStrategy, it } from "./_executor.ts";

forEachStrategy("LocalBashExecutor: processes a command leaves behind", (make) => {
  it("kills grandchildren with the group", async () => {
    await using executor = make();
    const token = marker();
    const result = await executor.run(executor.resolve({
      command: `bash -c 'bash -c "sleep ${token}"; true'; true`,
      timeoutMs: 300,
    }));
    assert.equal(result.timedOut, true);
    await assertNoneLeft(token);
  });

  it("waits drainGraceMs for children that still hold the pipes", async () => {
    await using executor = make({ drainGraceMs: 3000 });
    const result = await executor.run(executor.resolve({
      command: "(sleep 0.3; echo late) & echo early",
    }));
    assert.equal(result.stdout.text, "early\nlate\n");
    assert.deepEqual(result.strays, { killed: 0, survivors: [] });
  });

  it("returns soon when a background child holds the pipes, and kills it", async () => {
    await using executor = make();
    const token = marker();
    const result = await executor.run(
      executor.resolve({ command: `sleep ${token} & echo done` }),
    );
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.text, "done\n");
    // Far below the child's sleep (313 s), far above a loaded machine's delays.
    assert.ok(result.durationMs < 30_000, `took ${result.durationMs} ms`);
    assert.ok(result.strays.killed >= 1);
    assert.deepEqual(result.strays.survivors, []);
    await assertNoneLeft(token);
  });

  it("finds a child that left the group but kept the session", async () => {
    await using executor = make();
    const token = marker();
    const result = await executor.run(
      executor.resolve({ command: `set -m; sleep ${token} & echo x` }),
    );
    assert.equal(result.stdout.text, "x\n");
    assert.ok(result.strays.killed >= 1);
    await assertNoneLeft(token);
  });

  const pipeClosers = [
    ["a double-forked child", (token: string) => `(sleep ${token} >/dev/null 2>&1 &); echo x`],
    [
      "a group-leaving child",
      (token: string) => `set -m; sleep ${token} >/dev/null 2>&1 & echo x`,
    ],
  ] as const;
  for (const [child, command] of pipeClosers) {
    it(`kills ${child} that closed its pipes after a command that ended on its own`, async () => {
      await using executor = make();
      const token = marker();
      const result = await executor.run(executor.resolve({ command: command(token) }));
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.text, "x\n");
      assert.equal(result.strays.killed, 1);
      assert.deepEqual(result.strays.survivors, []);
      await assertNoneLeft(token);
    });
  }

  it("finds a group-leaving child that closed its pipes once a kill happens", async () => {
    await using executor = make();
    const token = marker();
    const result = await executor.run(executor.resolve({
      command: `set -m; sleep ${token} >/dev/null 2>&1 & sleep ${token}`,
      timeoutMs: 300,
    }));
    assert.equal(result.timedOut, true);
    await assertNoneLeft(token);
  });
});
