import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MIN_REDACTED_LENGTH, redactSecrets, scrubbedSecrets } from "../../../tool/mod.ts";

describe("scrubbedSecrets", () => {
  it("takes the credentials the scrub drops, long enough to redact, managed names aside", () => {
    assert.deepEqual(
      scrubbedSecrets({
        HOME: "/home/someone-long",
        NPM_TOKEN: "npm_0123456789",
        DB_PASSWORD: "1234567",
        AWS_SECRET_ACCESS_KEY: "abcdefgh",
        SHELLSEAM_STALE_TOKEN: "abcdefghijkl",
        EMPTY_KEY: undefined,
      }),
      { AWS_SECRET_ACCESS_KEY: "abcdefgh", NPM_TOKEN: "npm_0123456789" },
    );
  });
});

describe("redactSecrets", () => {
  it("replaces every exact occurrence and leaves short values and near misses alone", () => {
    const secrets = { A_TOKEN: "s3cr3t-value", SHORT: "x".repeat(MIN_REDACTED_LENGTH - 1) };
    assert.equal(
      redactSecrets("s3cr3t-value/s3cr3t-value s3cr3t-valu xxxxxxx", secrets),
      "[redacted: A_TOKEN]/[redacted: A_TOKEN] s3cr3t-valu xxxxxxx",
    );
  });

  it("replaces a value that contains another as a whole", () => {
    assert.equal(
      redactSecrets("abcdefgh-ijkl abcdefgh", { INNER: "abcdefgh", OUTER: "abcdefgh-ijkl" }),
      "[redacted: OUTER] [redacted: INNER]",
    );
  });
});
