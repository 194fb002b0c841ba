import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FakeSandboxExecutor } from "../tool/_fakes.ts";

// Any subclass of BashExecutor: the fake of the tool tests, with a disposal
// that counts its calls and takes a moment.
class CountingExecutor extends FakeSandboxExecutor {
  disposals = 0;
  override [Symbol.asyncDispose](): Promise<void> {
    this.disposals++;
    return new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("BashExecutor.close", () => {
  it("is disposal: it runs the subclass's disposal and resolves once that has", async () => {
    const executor = new CountingExecutor(null);
    let settled = false;
    const closing = executor.close().then(() => settled = true);
    assert.equal(executor.disposals, 1);
    assert.equal(settled, false);
    await closing;
    assert.equal(settled, true);
  });
});
