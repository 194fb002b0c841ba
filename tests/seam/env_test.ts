import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MANAGED_ENV_PREFIX, scrubbedParentEnv } from "../../seam/mod.ts";

describe("scrubbedParentEnv", () => {
  it("drops credential-shaped names in any case and keeps the rest", () => {
    const { env, scrubbed } = scrubbedParentEnv({
      PATH: "/usr/bin",
      HOME: "/root",
      MY_API_TOKEN: "t",
      aws_secret_access_key: "s",
      DB_Password: "p",
      GOOGLE_APPLICATION_CREDENTIALS: "/c.json",
      SSH_AUTH_SOCK: "/tmp/agent",
    });
    assert.deepEqual(env, { PATH: "/usr/bin", HOME: "/root", SSH_AUTH_SOCK: "/tmp/agent" });
    assert.deepEqual(scrubbed, [
      "DB_Password",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "MY_API_TOKEN",
      "aws_secret_access_key",
    ]);
  });

  it("drops ambient managed names so a stale fact never reaches a command", () => {
    const { env, scrubbed } = scrubbedParentEnv({
      [`${MANAGED_ENV_PREFIX}SESSION`]: "old",
      SHELLSEAMISH: "kept",
    });
    assert.deepEqual(env, { SHELLSEAMISH: "kept" });
    assert.deepEqual(scrubbed, ["SHELLSEAM_SESSION"]);
  });

  it("skips undefined values and reads this process's environment by default", () => {
    assert.deepEqual(scrubbedParentEnv({ A: undefined, B: "b" }).env, { B: "b" });
    const own = scrubbedParentEnv();
    for (const name of Object.keys(own.env)) {
      assert.doesNotMatch(name, /KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL|^SHELLSEAM_/i);
    }
  });
});
