import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { bwrapArgs } from "../../../../sandbox/backends/bwrap/_args.ts";
import { MASK_FILE, tempWorkspace } from "../../_fixtures.ts";
import { FOLDERS, launch, policy, TMP } from "./_policy.ts";

// deno-fmt-ignore
const COMMON = [
  "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
  "--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/dev/shm", "/dev/shm",
  "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL",
];

/** The environment arguments for `launch`: the command's, with the private TMPDIR. */
// deno-fmt-ignore
const ENV = ["--clearenv", "--setenv", "PATH", "/usr/bin", "--setenv", "TMPDIR", TMP];

describe("bwrapArgs", () => {
  it("read-only, network deny: everything read-only but TMPDIR, no network, no capabilities", () => {
    assert.deepEqual(bwrapArgs(launch("/srv/ws"), policy({}), FOLDERS), [
      ...COMMON,
      "--unshare-net",
      "--bind",
      TMP,
      TMP,
      ...ENV,
      "--chdir",
      "/srv/ws",
      "--",
      "/usr/bin/bash",
      "-c",
      "true",
    ]);
  });

  it("under the namespace's reporter, the launch is the namespace's pid 1 (bwrap forks no init)", () => {
    const reported = bwrapArgs(launch("/srv/ws"), policy({ strayReport: "/run/r" }), FOLDERS);
    assert.deepEqual(reported.slice(COMMON.length, COMMON.length + 1), ["--as-pid-1"]);
    const plain = bwrapArgs(launch("/srv/ws"), policy({}), FOLDERS);
    assert.equal(plain.includes("--as-pid-1"), false);
  });

  it("network allow keeps the network namespace", () => {
    const args = bwrapArgs(launch("/srv/ws"), policy({ network: "allow" }), FOLDERS);
    assert.equal(args.includes("--unshare-net"), false);
  });

  it("workspace-write binds the workspace, writable roots and TMPDIR parents first, then the read-only paths", () => {
    using workspace = tempWorkspace();
    const git = join(workspace.root, ".git");
    const args = bwrapArgs(
      launch(workspace.root),
      policy({
        mode: "workspace-write",
        workspaceRoot: workspace.root,
        writableRoots: ["/srv/cache"],
        readOnlyPaths: [git],
      }),
      FOLDERS,
    );
    assert.deepEqual(args.slice(COMMON.length), [
      "--unshare-net",
      "--bind",
      "/srv/cache",
      "/srv/cache",
      "--bind",
      TMP,
      TMP,
      "--bind",
      workspace.root,
      workspace.root,
      "--ro-bind-try",
      git,
      git,
      ...ENV,
      "--chdir",
      workspace.root,
      "--",
      "/usr/bin/bash",
      "-c",
      "true",
    ]);
  });

  it("masks come last: a folder gets a read-only mode-000 tmpfs, a file the mask file", () => {
    const masks = [
      { path: "/home/u/.ssh", directory: true, kind: "secret" as const },
      { path: "/run/app.sock", directory: false, kind: "socket" as const },
    ];
    const args = bwrapArgs(launch("/srv/ws"), policy({ masks }), FOLDERS);
    // After every other mount, before the environment.
    assert.deepEqual(args.slice(args.indexOf("--perms") - 3, args.indexOf("--clearenv")), [
      "--bind",
      TMP,
      TMP,
      "--perms",
      "0000",
      "--tmpfs",
      "/home/u/.ssh",
      "--remount-ro",
      "/home/u/.ssh",
      "--ro-bind",
      MASK_FILE,
      "/run/app.sock",
    ]);
  });

  it("no read-only rebind in read-only mode (everything is read-only)", () => {
    using workspace = tempWorkspace();
    const git = join(workspace.root, ".git");
    mkdirSync(git);
    const args = bwrapArgs(
      launch(workspace.root),
      policy({ workspaceRoot: workspace.root, readOnlyPaths: [git] }),
      FOLDERS,
    );
    assert.equal(args.includes(git), false);
  });

  it("leaves the host's /tmp in view (read-only, like the rest)", () => {
    const args = bwrapArgs(launch("/tmp"), policy({ workspaceRoot: "/tmp" }), FOLDERS);
    assert.equal(args.includes("--tmpfs"), false);
  });

  it("hides every user's folder of private folders under a read-only tmpfs, its own bound back", () => {
    const own = { privateDir: "/run/shellseam-u0/own", tmpDir: "/run/shellseam-u0/own/tmp" };
    const args = bwrapArgs(
      launch("/srv/ws"),
      policy({ hiddenParents: ["/run/shellseam-u0", "/run/shellseam-u1000"] }),
      own,
    );
    const binds = args.slice(COMMON.length + 1, args.indexOf("--clearenv"));
    // deno-fmt-ignore
    assert.deepEqual(binds, [
      "--tmpfs", "/run/shellseam-u0",
      "--tmpfs", "/run/shellseam-u1000",
      "--ro-bind", own.privateDir, own.privateDir,
      "--bind", own.tmpDir, own.tmpDir,
      "--remount-ro", "/run/shellseam-u0",
      "--remount-ro", "/run/shellseam-u1000",
    ]);
  });

  it("binds the private folder back read-only inside a writable root, its TMPDIR writable", () => {
    const args = bwrapArgs(
      launch("/run"),
      policy({ mode: "workspace-write", workspaceRoot: "/run" }),
      FOLDERS,
    );
    const binds = args.slice(COMMON.length + 1, args.indexOf("--clearenv"));
    // deno-fmt-ignore
    assert.deepEqual(binds, [
      "--bind", "/run", "/run",
      "--ro-bind", "/run/private", "/run/private",
      "--bind", TMP, TMP,
    ]);
  });
});
