import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BashConfigError } from "../../seam/mod.ts";
import { canonicalWorkspaceRoot, resolveSandboxPolicy } from "../../sandbox/mod.ts";
import { tempWorkspace } from "./_fixtures.ts";

describe("canonicalWorkspaceRoot", () => {
  it("resolves symlinks", () => {
    using workspace = tempWorkspace();
    const link = join(workspace.base, "link");
    symlinkSync(workspace.root, link);
    assert.equal(canonicalWorkspaceRoot(link), workspace.root);
    assert.equal(canonicalWorkspaceRoot(`${link}/`), workspace.root);
  });

  it("rejects a root that does not exist, with what to do", () => {
    using workspace = tempWorkspace();
    const missing = join(workspace.base, "missing");
    assert.throws(() => canonicalWorkspaceRoot(missing), (error: unknown) => {
      assert.ok(error instanceof BashConfigError);
      assert.equal(
        error.message,
        `Workspace root "${missing}" does not exist; create it or pass an existing directory`,
      );
      return true;
    });
  });

  it("rejects a relative path and a file", () => {
    using workspace = tempWorkspace();
    const file = join(workspace.base, "file");
    writeFileSync(file, "");
    assert.throws(() => canonicalWorkspaceRoot("ws"), /is not an absolute path/);
    assert.throws(() => canonicalWorkspaceRoot(file), /is not a directory/);
  });
});

describe("resolveSandboxPolicy", () => {
  it("canonicalises the workspace root and existing writable roots, keeps missing ones", () => {
    using workspace = tempWorkspace();
    const extra = join(workspace.base, "extra");
    mkdirSync(extra);
    symlinkSync(extra, join(workspace.base, "extra-link"));
    const missing = join(workspace.base, "later");
    const policy = resolveSandboxPolicy({
      mode: "workspace-write",
      workspaceRoot: `${workspace.root}/../ws`,
      network: "allow",
      writableRoots: [join(workspace.base, "extra-link"), missing],
    });
    assert.deepEqual(policy, {
      mode: "workspace-write",
      workspaceRoot: workspace.root,
      network: "allow",
      writableRoots: [extra, missing],
    });
  });

  it("rejects non-objects, unknown modes and networks, and writable roots that are not absolute paths", () => {
    using workspace = tempWorkspace();
    const base = { mode: "read-only", workspaceRoot: workspace.root, network: "deny" } as const;
    assert.throws(
      () => resolveSandboxPolicy({ ...base, mode: "all" as "read-only" }),
      /Sandbox mode "all" is not known; use "read-only", "workspace-write" or "danger-full-access"/,
    );
    assert.throws(
      () => resolveSandboxPolicy({ ...base, network: "on" as "deny" }),
      /Sandbox network "on" is not known; use "deny", "allow" or \{ allow: \["example.com", "\*.example.com"\] \}/,
    );
    assert.throws(
      () => resolveSandboxPolicy({ ...base, writableRoots: ["cache"] }),
      (error: unknown) => error instanceof BashConfigError && /"cache"/.test(error.message),
    );
    assert.throws(
      () => resolveSandboxPolicy({ ...base, writableRoots: "/srv" as unknown as string[] }),
      (error: unknown) =>
        error instanceof BashConfigError &&
        /^Writable roots must be a list of absolute paths; got "\/srv"; pass an array/.test(
          error.message,
        ),
    );
    for (const policy of [null, "read-only"]) {
      assert.throws(
        () => resolveSandboxPolicy(policy as unknown as typeof base),
        (error: unknown) =>
          error instanceof BashConfigError &&
          /^A sandbox policy must be an object; got .*; pass \{ mode, workspaceRoot, network \}/
            .test(error.message),
      );
    }
  });

  it("keeps denyRead, allowRead and allowUnixSockets normalised, and rejects other paths", () => {
    using workspace = tempWorkspace();
    const base = { mode: "read-only", workspaceRoot: workspace.root, network: "deny" } as const;
    const policy = resolveSandboxPolicy({
      ...base,
      denyRead: ["~/.ssh/", "~/./.aws", "~", "/etc/../srv/keys", "~/.ssh", "~/..dots", "~/"],
      allowRead: ["~/.ssh/known_hosts"],
      allowUnixSockets: ["/run/app.sock"],
    });
    assert.deepEqual(policy.denyRead, ["~/.ssh", "~/.aws", "~", "/srv/keys", "~/..dots"]);
    assert.deepEqual(policy.allowRead, ["~/.ssh/known_hosts"]);
    assert.deepEqual(policy.allowUnixSockets, ["/run/app.sock"]);
    assert.equal("denyRead" in resolveSandboxPolicy(base), false);
    for (const bad of ["keys", "~user/.ssh", "~/../etc", "~/a/../..", "/a\0b", "~/\0", 7]) {
      assert.throws(
        () => resolveSandboxPolicy({ ...base, denyRead: [bad as string] }),
        (error: unknown) =>
          error instanceof BashConfigError &&
          error.message ===
            `"denyRead" entry ${
              JSON.stringify(bad)
            } is neither an absolute path nor a "~/" path inside the home; pass one of those`,
      );
    }
    assert.throws(
      () => resolveSandboxPolicy({ ...base, allowUnixSockets: "/run/x.sock" as unknown as [] }),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message === '"allowUnixSockets" must be a list of absolute or "~/" paths; ' +
            'got "/run/x.sock"; pass an array such as ["~/.ssh"]',
    );
  });

  it("normalises protected paths and keeps them only when given", () => {
    using workspace = tempWorkspace();
    const base = {
      mode: "workspace-write",
      workspaceRoot: workspace.root,
      network: "deny",
    } as const;
    assert.equal(resolveSandboxPolicy(base).protectedPaths, undefined);
    assert.deepEqual(
      resolveSandboxPolicy({ ...base, protectedPaths: ["./.git/", ".git", ".vscode//settings"] })
        .protectedPaths,
      [".git", ".vscode/settings"],
    );
    assert.deepEqual(resolveSandboxPolicy({ ...base, protectedPaths: [] }).protectedPaths, []);
  });

  it("rejects protected paths that are absolute, climb out, name the root or are not strings", () => {
    using workspace = tempWorkspace();
    const base = {
      mode: "workspace-write",
      workspaceRoot: workspace.root,
      network: "deny",
    } as const;
    for (
      const path of ["/etc", "..", "../x", "a/../../b", "a/../b", ".", "", "./", "a\0b", 7, null]
    ) {
      assert.throws(
        () => resolveSandboxPolicy({ ...base, protectedPaths: [path as string] }),
        (error: unknown) =>
          error instanceof BashConfigError &&
          error.message ===
            `Protected path ${
              JSON.stringify(path)
            } is not a relative path inside a root; pass a name such as ".git" or ".vscode" (no leading "/", no "..")`,
        JSON.stringify(path),
      );
    }
    assert.throws(
      () => resolveSandboxPolicy({ ...base, protectedPaths: ".git" as unknown as string[] }),
      (error: unknown) =>
        error instanceof BashConfigError &&
        /^Protected paths must be a list of paths relative to each writable root; got ".git"; pass an array/
          .test(error.message),
    );
  });
});
