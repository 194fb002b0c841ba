import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { bwrapArgs, createBwrapBackend } from "../../../sandbox/backends/_bwrap.ts";
import type { ConfinedPolicy } from "../../../sandbox/backends/_backend.ts";
import {
  AF_INET,
  AF_INET6,
  AF_NETLINK,
  AF_UNIX,
  seccompFilter,
} from "../../../sandbox/backends/_seccomp.ts";
import { tempWorkspace } from "../_fixtures.ts";

// deno-fmt-ignore
const COMMON = [
  "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
  "--ro-bind", "/proc/sys", "/proc/sys", "--tmpfs", "/tmp",
  "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL",
];

const launch = (cwd: string) => ({
  program: "/usr/bin/bash",
  args: ["-c", "true"],
  cwd,
  env: { PATH: "/usr/bin", TMPDIR: "/var/tmp/x" },
});

function policy(overrides: Partial<ConfinedPolicy>): ConfinedPolicy {
  return {
    mode: "read-only",
    workspaceRoot: "/srv/ws",
    writableRoots: [],
    network: "deny",
    ...overrides,
  };
}

describe("bwrapArgs", () => {
  it("read-only, network deny: everything read-only, no network, no capabilities", () => {
    assert.deepEqual(bwrapArgs(launch("/srv/ws"), policy({})), [
      ...COMMON,
      "--unshare-net",
      "--chdir",
      "/srv/ws",
      "--",
      "/usr/bin/bash",
      "-c",
      "true",
    ]);
  });

  it("network allow keeps the network namespace", () => {
    const args = bwrapArgs(launch("/srv/ws"), policy({ network: "allow" }));
    assert.equal(args.includes("--unshare-net"), false);
  });

  it("workspace-write binds the workspace and writable roots, then .git read-only", () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, ".git"));
    const args = bwrapArgs(
      launch(workspace.root),
      policy({
        mode: "workspace-write",
        workspaceRoot: workspace.root,
        writableRoots: ["/srv/cache"],
      }),
    );
    const git = join(workspace.root, ".git");
    assert.deepEqual(args.slice(COMMON.length), [
      "--unshare-net",
      "--ro-bind",
      workspace.base,
      workspace.base,
      "--bind",
      "/srv/cache",
      "/srv/cache",
      "--bind",
      workspace.root,
      workspace.root,
      "--ro-bind",
      git,
      git,
      "--chdir",
      workspace.root,
      "--",
      "/usr/bin/bash",
      "-c",
      "true",
    ]);
  });

  it("no .git rebind when the workspace has none", () => {
    using workspace = tempWorkspace();
    const args = bwrapArgs(
      launch(workspace.root),
      policy({ mode: "workspace-write", workspaceRoot: workspace.root }),
    );
    assert.equal(args.some((arg) => arg.endsWith("/.git")), false);
  });

  it("read-only binds back the /tmp entries holding the workspace and the working directory", () => {
    using workspace = tempWorkspace();
    using elsewhere = tempWorkspace();
    const args = bwrapArgs(launch(elsewhere.root), policy({ workspaceRoot: workspace.root }));
    assert.deepEqual(args.slice(COMMON.length), [
      "--unshare-net",
      "--ro-bind",
      workspace.base,
      workspace.base,
      "--ro-bind",
      elsewhere.base,
      elsewhere.base,
      "--chdir",
      elsewhere.root,
      "--",
      "/usr/bin/bash",
      "-c",
      "true",
    ]);
  });
});

describe("the bwrap backend", () => {
  it("is unavailable without bwrap on the search path, saying what to install", () => {
    assert.deepEqual(createBwrapBackend("/nonexistent"), {
      reason: '"bwrap" was not found on PATH; install bubblewrap',
    });
  });

  const backend = createBwrapBackend(process.env.PATH);
  const skip = "reason" in backend ? backend.reason : false;

  it("wraps the launch in bwrap, behind a shell that pipes it the seccomp filter", { skip }, () => {
    assert.ok(!("reason" in backend));
    const wrapped = backend.wrap(launch("/srv/ws"), policy({}));
    assert.equal(wrapped.program, "/usr/bin/bash");
    const [privileged, c, script, name, filter, bwrap, ...args] = wrapped.args;
    assert.deepEqual([privileged, c, name], ["-p", "-c", "shellseam-bwrap"]);
    assert.match(script!, /exec \$fd>&-/);
    assert.match(script!, /exec 3< <\(printf "\$1"\)/);
    // The filter travels as printf escapes of its bytes, never as a file.
    const bytes = (escaped: string) =>
      escaped.split("\\").slice(1).map((octal) => parseInt(octal, 8));
    const deny = seccompFilter({ socketFamilies: [AF_UNIX, AF_NETLINK, AF_INET, AF_INET6] })!;
    assert.deepEqual(bytes(filter!), [...deny]);
    assert.match(bwrap!, /\/bwrap$/);
    assert.deepEqual(args, ["--seccomp", "3", ...bwrapArgs(launch("/srv/ws"), policy({}))]);
    const open = backend.wrap(launch("/srv/ws"), policy({ network: "allow" })).args[4]!;
    assert.deepEqual(bytes(open), [...seccompFilter()!]);
    assert.equal(wrapped.env.TMPDIR, "/tmp");
    assert.equal(wrapped.env.PATH, "/usr/bin");
    assert.deepEqual(backend.enforcement(policy({})), {
      filesystem: "full",
      network: "full",
      gaps: ["Unix sockets not confined"],
    });
    assert.deepEqual(backend.enforcement(policy({ network: "allow" })).gaps, []);
  });

  it(
    "without a filter (an unknown architecture) loads none and names the keyring gap",
    { skip },
    () => {
      const bare = createBwrapBackend(process.env.PATH, "sparc");
      assert.ok(!("reason" in bare));
      const args = bare.wrap(launch("/srv/ws"), policy({})).args;
      assert.equal(args[4], "");
      assert.equal(args.includes("--seccomp"), false);
      assert.deepEqual(bare.enforcement(policy({ network: "allow" })).gaps, [
        "kernel keyrings not confined (no seccomp filter here)",
      ]);
    },
  );

  it("tells a runner failure from a denial", { skip }, () => {
    assert.ok(!("reason" in backend));
    const outcome = (exitCode: number | null, stderrText: string) => ({
      exitCode,
      signal: null,
      stderrText,
      killedByExecutor: false,
    });
    const setup = outcome(1, "bwrap: Can't mount proc on /newroot/proc: Read-only file system\n");
    assert.equal(backend.runnerFailed(setup), true);
    assert.equal(backend.runnerFailed(outcome(1, "make: bwrap: no\n")), false);
    assert.equal(backend.runnerFailed(outcome(2, "bwrap: x\n")), false);
    const wrapper = outcome(125, "shellseam-bwrap: line 1: /x/bwrap: No such file or directory\n");
    assert.equal(backend.runnerFailed(wrapper), true);
    assert.equal(backend.runnerFailed(outcome(125, "shellseam-bwrapper: x\n")), false);

    const p = policy({});
    const denied = (exitCode: number | null, stderr: string, on = p) =>
      backend.denied(outcome(exitCode, stderr), on, "/");
    assert.equal(denied(1, "touch: cannot touch 'x': Read-only file system"), "filesystem");
    assert.equal(denied(0, "Read-only file system"), undefined);
    assert.equal(denied(null, "Read-only file system"), undefined);
    assert.equal(denied(7, "curl: (7) Connection refused"), "network");
    assert.equal(denied(2, "Network is unreachable"), "network");
    const open = policy({ network: "allow" });
    assert.equal(denied(7, "curl: (7) Connection refused", open), undefined);
    assert.equal(denied(1, "x: Read-only file system", open), "filesystem");
    assert.equal(denied(1, "No such file or directory"), undefined);
    // The first line with a signature decides.
    assert.equal(denied(1, "Connection refused\ntouch: x: Read-only file system"), "network");
    assert.equal(denied(1, "touch: x: Read-only file system\nConnection refused"), "filesystem");
  });
});
