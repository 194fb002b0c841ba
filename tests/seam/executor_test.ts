import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashProcess,
  type BashRunResult,
} from "../../seam/mod.ts";

class CountingExecutor extends BashExecutor {
  disposals = 0;
  resolve(_request: BashExecRequest): BashExecSpec {
    throw new Error("not used");
  }
  run(_spec: BashExecSpec): Promise<BashRunResult> {
    return Promise.reject(new Error("not used"));
  }
  start(_spec: BashExecSpec): Promise<BashProcess> {
    return Promise.reject(new Error("not used"));
  }
  [Symbol.asyncDispose](): Promise<void> {
    this.disposals++;
    return new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("BashExecutor.close", () => {
  it("is disposal: it runs the subclass's disposal and resolves once that has", async () => {
    const executor = new CountingExecutor();
    let settled = false;
    const closing = executor.close().then(() => settled = true);
    assert.equal(executor.disposals, 1);
    assert.equal(settled, false);
    await closing;
    assert.equal(settled, true);
  });
});
