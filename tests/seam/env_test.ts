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
    });
    assert.deepEqual(env, { PATH: "/usr/bin", HOME: "/root" });
    assert.deepEqual(scrubbed, [
      "DB_Password",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "MY_API_TOKEN",
      "aws_secret_access_key",
    ]);
  });

  it("drops password, auth, cookie and session names by their words, and keeps look-alikes", () => {
    const dropped = [
      "SMTP_PASS",
      "ldap_passwd",
      "GPG_PASSPHRASE",
      "GITHUB_PAT",
      "AZURE_DEVOPS_EXT_PAT",
      "SSH_AUTH_SOCK",
      "OAUTH_CLIENT_ID",
      "HTTP_AUTHORIZATION",
      "XAUTHORITY",
      "NPM_CONFIG__AUTH",
      "BROWSER_COOKIES",
      "cookiejar",
      "XDG_SESSION_ID",
      "DBUS_SESSION_BUS_ADDRESS",
      "MYSQL_PWD",
    ];
    const kept = [
      "PWD",
      "OLDPWD",
      "PATH",
      "PASSAGE",
      "COMPASS_DIR",
      "PATTERN",
      "GIT_AUTHOR_NAME",
      "GIT_AUTHOR_EMAIL",
      "npm_config_init_author_name",
      "AUTHORS_FILE",
    ];
    const { env, scrubbed } = scrubbedParentEnv(
      Object.fromEntries([...dropped, ...kept].map((name) => [name, "v"])),
    );
    assert.deepEqual(Object.keys(env).sort(), [...kept].sort());
    assert.deepEqual(scrubbed, [...dropped].sort());
  });

  it("drops any variable whose value holds a URL with a password, whatever its name", () => {
    const { env, scrubbed } = scrubbedParentEnv({
      HTTPS_PROXY: "http://me:hunter2@proxy.internal:3128",
      DATABASE_URL: "postgres://app:s3cret@db/app",
      REDIS: "redis://:only-a-password@cache:6379/0",
      MIRRORS: "https://a.example https://u:p@b.example/x",
      GIT_REMOTE: "ssh://git@github.com/o/r.git",
      HOMEPAGE: "https://example.com/a:b@c",
      PROXY_PORT: "host:3128",
    });
    assert.deepEqual(scrubbed, ["DATABASE_URL", "HTTPS_PROXY", "MIRRORS", "REDIS"]);
    assert.deepEqual(Object.keys(env).sort(), ["GIT_REMOTE", "HOMEPAGE", "PROXY_PORT"]);
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
      assert.doesNotMatch(
        name,
        /KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL|COOKIE|SESSION|^SHELLSEAM_/i,
      );
    }
  });
});
