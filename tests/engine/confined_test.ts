// "Is this call confined?" and "which limits does it get by default?", each
// decided in one place for every executor (engine/_confined.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { callDefaultLimits, CONFINED_DEFAULT_LIMITS, confines } from "../../engine/mod.ts";

describe("confines", () => {
  it("is true for the confined modes only", () => {
    assert.deepEqual(
      [undefined, null, "danger-full-access", "read-only", "workspace-write"].map((mode) =>
        confines(mode as Parameters<typeof confines>[0])
      ),
      [false, false, false, true, true],
    );
  });
});

describe("callDefaultLimits", () => {
  it("gives a confined call the sandbox's defaults with the config's over them", () => {
    assert.deepEqual(callDefaultLimits(true, { processes: 10 }), {
      ...CONFINED_DEFAULT_LIMITS,
      processes: 10,
    });
  });

  it("gives an unconfined call the config's alone", () => {
    assert.deepEqual(callDefaultLimits(false, { processes: 10 }), { processes: 10 });
    assert.deepEqual(callDefaultLimits(false, {}), {});
  });
});
