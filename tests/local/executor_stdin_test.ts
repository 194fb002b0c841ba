import { it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findOnPath } from "../../engine/_session.ts";
import { forEachStrategy, it } from "./_executor.ts";

forEachStrategy("LocalBashExecutor: stdin and the terminal", (make, sessionStrategy) => {
  it("writes stdin and then closes it", async () => {
    await using executor = make();
    const text = await executor.run(
      executor.resolve({ command: "cat; echo end", stdin: "abc\n" }),
    );
    assert.equal(text.stdout.text, "abc\nend\n");
    const bytes = new Uint8Array([0xce, 0xbb, 0x0a]);
    const binary = await executor.run(executor.resolve({ command: "od -An -tx1", stdin: bytes }));
    assert.equal(binary.stdout.text.trim(), "ce bb 0a");
    const closed = await executor.run(executor.resolve({ command: "cat" }));
    assert.equal(closed.stdout.text, "");
    assert.equal(closed.exitCode, 0);
  });

  it("ignores a broken stdin pipe", async () => {
    await using executor = make();
    const result = await executor.run(executor.resolve({
      command: "exec 0<&-; echo closed",
      stdin: "x".repeat(1 << 20),
    }));
    assert.equal(result.stdout.text, "closed\n");
    assert.equal(result.exitCode, 0);
  });

  it("gives no controlling terminal", async () => {
    await using executor = make();
    const result = await executor.run(executor.resolve({
      command: "if exec 3</dev/tty; then echo opened; else echo refused; fi",
    }));
    assert.equal(result.stdout.text, "refused\n");
  });

  nodeIt("gives no controlling terminal even when the agent has one", {
    skip: findOnPath("script") === null ? "util-linux script is not installed" : false,
  }, async () => {
    // The agent runs under `script`, so it has a terminal its commands could inherit.
    const dir = mkdtempSync(join(tmpdir(), "shellseam-tty-"));
    try {
      const module = new URL(
        `../../local/mod.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`,
        import.meta.url,
      );
      const agent = join(dir, "agent.mjs");
      writeFileSync(
        agent,
        `import { openSync } from "node:fs";
        import { LocalBashExecutor } from ${JSON.stringify(module.href)};
        try { openSync("/dev/tty", "r"); console.log("agent: tty"); }
        catch { console.log("agent: none"); }
        const executor = new LocalBashExecutor({ sessionStrategy: "${sessionStrategy}" });
        const result = await executor.run(executor.resolve({
          command: "if exec 3</dev/tty; then echo command: tty; else echo command: none; fi",
        }));
        await executor[Symbol.asyncDispose]();
        console.log(result.stdout.text.trim());`,
      );
      const run = globalThis.Deno ? `run --allow-all '${agent}'` : `'${agent}'`;
      await using executor = make();
      const result = await executor.run(executor.resolve({
        command: `script -qec "'${process.execPath}' ${run}" /dev/null`,
        workdir: fileURLToPath(new URL("../..", import.meta.url)),
        timeoutMs: 30_000,
      }));
      assert.deepEqual(
        result.stdout.text.split(/\r?\n/).filter((line) => line.includes(": ")),
        ["agent: tty", "command: none"],
        result.stdout.text + result.stderr.text,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
