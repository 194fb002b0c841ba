import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { LocalBashExecutor } from "../../../local/mod.ts";
import { taskOwner, TaskRegistry } from "../../../tasks/mod.ts";
import { createBashTools, type ToolUpdate } from "../../../tool/mod.ts";

describe("bash tool onUpdate", () => {
  it("sends the cleaned-up output so far, at most every 250 ms, and everything at the end", async () => {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
    const updates: { at: number; update: ToolUpdate }[] = [];
    const result = await bash.execute(
      {
        // A line every 50 ms: unthrottled, updates would come about 50 ms apart.
        command:
          "for i in $(seq 24); do printf 'line%s\\n' $i; printf '\\033[1mbold\\033[0m%s\\n' $i >&2; sleep 0.05; done",
        description: "Print over time",
      },
      { onUpdate: (update) => updates.push({ at: performance.now(), update }) },
    );
    assert.equal(result.isError, false);
    assert.ok(updates.length >= 2, `expected several updates, got ${updates.length}`);
    // Throttled: between two updates before the last, 250 ms passed (200 allows for a
    // loaded machine that ran this callback late; unthrottled, they would be 50 ms apart).
    for (let i = 1; i < updates.length - 1; i++) {
      assert.ok(updates[i]!.at - updates[i - 1]!.at >= 200, `updates ${i - 1} and ${i} too close`);
    }
    const numbers = Array.from({ length: 24 }, (_, i) => i + 1);
    const last = updates.at(-1)!.update.text;
    assert.equal(
      last,
      [...numbers.map((n) => `line${n}`), "[stderr]", ...numbers.map((n) => `bold${n}`)].join("\n"),
    );
    assert.ok(result.text.startsWith(last));
    assert.ok(updates[0]!.update.text.startsWith("line1"));
  });

  it("sends few updates for a burst of output and keeps each stream's last characters", async () => {
    await using executor = new LocalBashExecutor({ maxOutputBytes: 1000, headBytes: 100 });
    await using tasks = new TaskRegistry();
    const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
    const updates: ToolUpdate[] = [];
    await bash.execute(
      { command: "seq 1 100000", description: "Count" },
      { onUpdate: (update) => updates.push(update) },
    );
    assert.ok(updates.length <= 20, `expected few updates, got ${updates.length}`);
    const last = updates.at(-1)!.text;
    assert.match(last, /99999\n100000\n\[\d+ earlier characters not shown\]$/);
    assert.ok(last.length < 1200);
  });

  it("redacts the values of scrubbed credentials as the result does", async () => {
    const secret = "tok_live_0123456789abcdef";
    process.env.LIVE_UPDATES_TEST_TOKEN = secret;
    try {
      await using executor = new LocalBashExecutor();
      await using tasks = new TaskRegistry();
      const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
      const updates: ToolUpdate[] = [];
      const result = await bash.execute(
        { command: `echo ${secret}`, description: "Print a secret" },
        { onUpdate: (update) => updates.push(update) },
      );
      assert.ok(!result.text.includes(secret));
      assert.ok(updates.length > 0);
      for (const update of updates) assert.ok(!update.text.includes(secret), update.text);
      assert.ok(result.text.startsWith(updates.at(-1)!.text));
    } finally {
      delete process.env.LIVE_UPDATES_TEST_TOKEN;
    }
  });

  it("stops calling an onUpdate that throws, and the call goes on", async () => {
    await using executor = new LocalBashExecutor();
    await using tasks = new TaskRegistry();
    const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
    let calls = 0;
    const result = await bash.execute(
      { command: "echo a; sleep 0.4; echo b", description: "Two lines" },
      {
        onUpdate: () => {
          calls++;
          throw new Error("renderer broke");
        },
      },
    );
    assert.equal(calls, 1);
    assert.equal(result.text, "a\nb\n[exit code: 0]");
  });
});
