import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BashConfigError,
  BashError,
  BashSpawnError,
  SandboxUnavailableError,
} from "../../seam/mod.ts";
import { TaskOwnershipError, UnknownTaskError } from "../../tasks/mod.ts";

describe("error types", () => {
  it("carry a code and a name per class, all under BashError", () => {
    const cases: [BashError, string, string][] = [
      [new BashConfigError("x"), "config", "BashConfigError"],
      [new BashSpawnError("x"), "spawn", "BashSpawnError"],
      [new SandboxUnavailableError("x", []), "sandbox-unavailable", "SandboxUnavailableError"],
      [new UnknownTaskError("bash-1"), "unknown-task", "UnknownTaskError"],
      [new TaskOwnershipError("bash-1"), "task-ownership", "TaskOwnershipError"],
    ];
    for (const [error, code, name] of cases) {
      assert.ok(error instanceof BashError);
      assert.ok(error instanceof Error);
      assert.equal(error.code, code);
      assert.equal(error.name, name);
    }
  });

  it("makes sandbox unavailability a spawn failure that lists every attempt", () => {
    const error = new SandboxUnavailableError("No sandbox backend works on this machine", [
      { backend: "bwrap", reason: '"bwrap" was not found on PATH' },
      { backend: "landlock", reason: "the kernel has no Landlock" },
    ]);
    assert.ok(error instanceof BashSpawnError);
    assert.equal(
      error.message,
      'No sandbox backend works on this machine (tried bwrap: "bwrap" was not found on PATH; ' +
        "landlock: the kernel has no Landlock)",
    );
    assert.equal(error.attempts.length, 2);
  });

  it("names the task id and the way forward without naming another owner", () => {
    const unknown = new UnknownTaskError("bash-7");
    assert.equal(unknown.taskId, "bash-7");
    assert.match(unknown.message, /"bash-7".*list your tasks/);
    const foreign = new TaskOwnershipError("bash-2");
    assert.match(foreign.message, /"bash-2" belongs to another owner/);
  });

  it("keeps the cause", () => {
    const cause = new Error("ENOENT");
    assert.equal(new BashSpawnError("x", { cause }).cause, cause);
  });
});
