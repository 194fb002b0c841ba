// What a test file's probe of the sandbox backends finds when the runner
// handed it one (`PROBED_ENV`, set by scripts/test_all.ts): that answer,
// with no probe of its own; a value that is not one is refused.
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { type Probed, PROBED_ENV, probeHere } from "./_fixtures.ts";

const before = process.env[PROBED_ENV];

describe("probeHere with an answer handed through the environment", () => {
  afterEach(() => {
    if (before === undefined) delete process.env[PROBED_ENV];
    else process.env[PROBED_ENV] = before;
  });

  it("returns what was handed, as it was handed", async () => {
    // An answer no probe here gives (a reason of its own): it was read, not probed.
    const handed = {
      bwrap: { backend: "bwrap", works: false, reason: "handed by the test" },
      landlock: { backend: "landlock", works: true, landlockAbi: 99 },
    } as Probed;
    process.env[PROBED_ENV] = JSON.stringify(handed);
    assert.deepEqual(await probeHere(), handed);
  });

  it("refuses a value that is not a status for each backend, naming the variable", async () => {
    for (
      const value of [
        "not json",
        "null",
        JSON.stringify({ bwrap: { backend: "bwrap", works: true } }),
        JSON.stringify({
          bwrap: { backend: "landlock", works: true },
          landlock: { backend: "landlock", works: true },
        }),
        JSON.stringify({
          bwrap: { backend: "bwrap", works: "yes" },
          landlock: { backend: "landlock", works: true },
        }),
      ]
    ) {
      process.env[PROBED_ENV] = value;
      await assert.rejects(probeHere(), (error: unknown) => {
        assert.ok(error instanceof Error, String(error));
        assert.match(error.message, new RegExp(`^${PROBED_ENV} is ".*"`), value);
        assert.match(error.message, /unset it to probe in this process$/, value);
        return true;
      });
    }
  });
});
