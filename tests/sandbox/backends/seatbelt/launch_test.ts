import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  findSandboxExec,
  seatbeltLaunch,
  seatbeltProfile,
} from "../../../../sandbox/backends/seatbelt/mod.ts";
import type { Launch } from "../../../../engine/mod.ts";
import { confinedPolicy as policy } from "../_policy.ts";

const FOLDERS = { privateDir: "/run/private", tmpDir: "/run/private/tmp" };
const macRealpath = (path: string): string => path.replace(/^\/tmp(?=\/|$)/, "/private/tmp");

describe("findSandboxExec", () => {
  it("names sandbox-exec and macOS when the search path has none", () => {
    const dir = mkdtempSync(join(tmpdir(), "seatbelt-"));
    try {
      const found = findSandboxExec(dir);
      assert.ok("reason" in found && /"sandbox-exec" was not found/.test(found.reason));
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("finds an executable sandbox-exec on the search path", () => {
    const dir = mkdtempSync(join(tmpdir(), "seatbelt-"));
    try {
      writeFileSync(join(dir, "sandbox-exec"), "#!/bin/sh\nexit 1\n");
      chmodSync(join(dir, "sandbox-exec"), 0o755);
      assert.deepEqual(findSandboxExec(`/nonexistent:${dir}`), { path: join(dir, "sandbox-exec") });
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe("seatbeltLaunch", () => {
  const launch: Launch = {
    program: "/bin/bash",
    args: ["-c", "echo hi"],
    cwd: "/tmp/ws",
    env: { PATH: "/usr/bin", SECRET_TOKEN: "s3cret", TMPDIR: "/var/folders/x" },
  };
  const confined = policy({
    mode: "workspace-write",
    workspaceRoot: "/tmp/w=s",
    writableRoots: [],
  });

  it("runs the command through sandbox-exec with the profile, its parameters, then --", () => {
    const wrapped = seatbeltLaunch(launch, "/usr/bin/sandbox-exec", confined, FOLDERS, macRealpath);
    const { profile } = seatbeltProfile(confined, FOLDERS, macRealpath);
    assert.equal(wrapped.program, "/usr/bin/sandbox-exec");
    assert.deepEqual(wrapped.args, [
      "-p",
      profile,
      "-DROOT_0=/private/tmp/w=s",
      "-DPRIVATE=/run/private",
      "-DTMP=/run/private/tmp",
      "--",
      "/bin/bash",
      "-c",
      "echo hi",
    ]);
    assert.equal(wrapped.cwd, "/tmp/ws");
  });

  it("keeps the environment off the command line and points TMPDIR at the private one", () => {
    const wrapped = seatbeltLaunch(launch, "/usr/bin/sandbox-exec", confined, FOLDERS, macRealpath);
    assert.ok(!wrapped.args.some((arg) => arg.includes("s3cret")));
    assert.deepEqual(wrapped.env, { ...launch.env, TMPDIR: "/run/private/tmp" });
  });

  it("passes the proxy's port to the profile", () => {
    const wrapped = seatbeltLaunch(
      launch,
      "/usr/bin/sandbox-exec",
      policy({ network: "proxy" }),
      FOLDERS,
      macRealpath,
      3128,
    );
    assert.ok(wrapped.args[1]?.includes('(remote ip "localhost:3128")'));
  });
});
