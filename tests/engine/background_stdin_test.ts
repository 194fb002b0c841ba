import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import { BashConfigError } from "../../seam/mod.ts";

describe("LocalBashProcess.write with bad data", () => {
  it("rejects what is neither text nor bytes with a clear error, and stdin stays usable", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start(executor.resolve({ command: "cat", keepStdinOpen: true }));
    for (const bad of [5, null, [1, 2], { length: 1 }]) {
      await assert.rejects(
        process.write(bad as unknown as string),
        (error: unknown) =>
          error instanceof BashConfigError &&
          /"data" must be a string or a Uint8Array/.test(error.message),
        JSON.stringify(bad),
      );
    }
    await process.write("still open\n");
    await process.closeStdin();
    await process.done;
    assert.equal(process.readOutput().stdout.text, "still open\n");
  });
});

describe("keepStdinOpen outside start()", () => {
  it("is ignored by run(), whose stdin ends after the given bytes", async () => {
    await using executor = new LocalBashExecutor();
    for (const stdin of [undefined, "in\n"]) {
      const request = { command: "cat; echo end", keepStdinOpen: true, timeoutMs: 5_000 };
      const result = await executor.run(
        executor.resolve(stdin === undefined ? request : { ...request, stdin }),
      );
      assert.deepEqual(
        [result.stdout.text, result.timedOut],
        [`${stdin ?? ""}end\n`, false],
        `stdin ${JSON.stringify(stdin)}`,
      );
    }
  });
});
