import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BashConfigError } from "../../../seam/mod.ts";
import { resolveSandboxPolicy } from "../../../sandbox/mod.ts";
import {
  addressRefusal,
  checkedNetwork,
  isSpecialAddress,
  refusal,
} from "../../../sandbox/network/_allow_list.ts";
import { tempWorkspace } from "../_fixtures.ts";

describe("checkedNetwork", () => {
  it("keeps deny and allow, and normalises an allow-list", () => {
    assert.equal(checkedNetwork("deny"), "deny");
    assert.equal(checkedNetwork("allow"), "allow");
    assert.deepEqual(
      checkedNetwork({
        allow: ["Example.COM.", "*.example.com", "example.com", "[::1]", "10.0.0.1"],
      }),
      { allow: ["example.com", "*.example.com", "::1", "10.0.0.1"] },
    );
    assert.deepEqual(checkedNetwork({ allow: [], deny: ["a.test"] }), {
      allow: [],
      deny: ["a.test"],
    });
  });

  it("refuses malformed lists and entries with a typed error saying what to pass", () => {
    for (
      const [value, message] of [
        ["on", /Sandbox network "on" is not known/],
        [["a.test"], /is not known/],
        [{ allow: "a.test" }, /must be a list/],
        [{ allow: ["a.test"], other: [] }, /unknown key "other"/],
        [{ allow: ["https://a.test"] }, /entry "https:\/\/a\.test" is not a host name/],
        [{ allow: ["a.test:443"] }, /is not a host name/],
        [{ allow: ["*"] }, /is not a host name/],
        [{ allow: ["a.*.test"] }, /is not a host name/],
        [{ allow: ["1.2.3"] }, /is not a host name/],
        [{ allow: [42] }, /entry 42 is not a host name/],
        [{ allow: ["a.test"], deny: ["bad name"] }, /"deny" entry "bad name"/],
      ] as [unknown, RegExp][]
    ) {
      assert.throws(() => checkedNetwork(value), (error: unknown) => {
        assert.ok(error instanceof BashConfigError, String(error));
        assert.match(error.message, message);
        return true;
      });
    }
  });

  it("is applied by resolveSandboxPolicy", () => {
    using workspace = tempWorkspace();
    const policy = resolveSandboxPolicy({
      mode: "read-only",
      workspaceRoot: workspace.root,
      network: { allow: ["A.test"] },
    });
    assert.deepEqual(policy.network, { allow: ["a.test"] });
    assert.throws(
      () =>
        resolveSandboxPolicy({
          mode: "read-only",
          workspaceRoot: workspace.root,
          network: { allow: ["a b"] },
        }),
      BashConfigError,
    );
  });
});

describe("refusal", () => {
  const list = { allow: ["a.test", "*.b.test", "203.0.113.7", "::1"], deny: ["x.b.test"] };

  it("allows exact names, names beneath a wildcard and listed addresses", () => {
    for (const host of ["a.test", "A.TEST.", "y.b.test", "deep.y.b.test", "203.0.113.7", "[::1]"]) {
      assert.equal(refusal(list, host), undefined, host);
    }
  });

  it("refuses the rest, a wildcard's own domain and deny entries", () => {
    assert.match(refusal(list, "b.test") ?? "", /not in the allow list/);
    assert.match(refusal(list, "sub.a.test") ?? "", /not in the allow list/);
    assert.match(refusal(list, "evila.test") ?? "", /not in the allow list/);
    assert.match(refusal(list, "203.0.113.8") ?? "", /not in the allow list/);
    assert.match(refusal(list, "x.b.test") ?? "", /in the deny list/);
  });

  it("refuses the names beneath a denied name, and only those", () => {
    const wild = { allow: ["*.wild.test"], deny: ["evil.wild.test"] };
    for (const host of ["evil.wild.test", "sub.evil.wild.test", "a.b.evil.wild.test."]) {
      assert.match(refusal(wild, host) ?? "", /in the deny list/, host);
    }
    for (const host of ["notevil.wild.test", "evil.wild.test.other.wild.test", "good.wild.test"]) {
      assert.equal(refusal(wild, host), undefined, host);
    }
  });
});

describe("addressRefusal", () => {
  it("refuses special addresses unless listed", () => {
    assert.equal(addressRefusal({ allow: ["a.test"] }, "93.184.216.34"), undefined);
    assert.match(
      addressRefusal({ allow: ["a.test"] }, "127.0.0.1") ?? "",
      /resolves to 127\.0\.0\.1/,
    );
    assert.equal(addressRefusal({ allow: ["a.test", "127.0.0.1"] }, "127.0.0.1"), undefined);
    assert.match(
      addressRefusal({ allow: ["a.test"], deny: ["93.184.216.34"] }, "93.184.216.34") ?? "",
      /deny list/,
    );
  });

  it("knows loopback, link-local, private and mapped addresses", () => {
    for (
      const address of [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "100.64.0.1",
        "224.0.0.1",
        "::1",
        "::",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1",
        "::ffff:7f00:1",
        "64:ff9b::7f00:1",
      ]
    ) {
      assert.equal(isSpecialAddress(address), true, address);
    }
    for (const address of ["93.184.216.34", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      assert.equal(isSpecialAddress(address), false, address);
    }
  });
});
