import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  effectiveSandboxMode,
  isSandboxMode,
  SANDBOX_MODES,
  sandboxModeEvent,
} from "../../sandbox/mod.ts";

describe("sandbox mode vocabulary", () => {
  it("lists the modes narrowest first, frozen", () => {
    assert.deepEqual(SANDBOX_MODES, ["read-only", "workspace-write", "danger-full-access"]);
    assert.ok(Object.isFrozen(SANDBOX_MODES));
  });

  it("recognises only known modes", () => {
    for (const mode of SANDBOX_MODES) assert.equal(isSandboxMode(mode), true);
    for (const value of ["", "full", "READ-ONLY", 1, null, undefined]) {
      assert.equal(isSandboxMode(value), false, String(value));
    }
  });

  it("builds the session event", () => {
    assert.deepEqual(sandboxModeEvent("workspace-write"), {
      type: "sandbox/mode",
      mode: "workspace-write",
    });
  });
});

describe("effectiveSandboxMode", () => {
  it("is undefined without a sandbox/mode event (the executor default applies)", () => {
    assert.equal(effectiveSandboxMode([]), undefined);
    assert.equal(effectiveSandboxMode([{ type: "user/message" }]), undefined);
  });

  it("takes the last sandbox/mode event, ignoring other events", () => {
    const events = [
      sandboxModeEvent("danger-full-access"),
      { type: "user/message" },
      sandboxModeEvent("workspace-write"),
      { type: "tool/result" },
    ];
    assert.equal(effectiveSandboxMode(events), "workspace-write");
  });

  it("ignores a sandbox/mode event with an unknown mode", () => {
    const events = [sandboxModeEvent("read-only"), { type: "sandbox/mode", mode: "everything" }];
    assert.equal(effectiveSandboxMode(events), "read-only");
  });

  it("folds any iterable, such as a generator over a log", () => {
    function* log() {
      yield sandboxModeEvent("workspace-write");
      yield sandboxModeEvent("read-only");
    }
    assert.equal(effectiveSandboxMode(log()), "read-only");
  });
});
