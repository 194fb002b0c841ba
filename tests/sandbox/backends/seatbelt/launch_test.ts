import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import {
  findSandboxExec,
  SEATBELT_FAILURE_EXIT,
  SEATBELT_PERL,
  seatbeltLaunch,
  seatbeltProfile,
} from "../../../../sandbox/backends/seatbelt/mod.ts";
import { type Launch, LAUNCH_STARTED, limitArgs } from "../../../../engine/mod.ts";
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

  it("names perl when the launch's perl cannot run", () => {
    const dir = mkdtempSync(join(tmpdir(), "seatbelt-"));
    try {
      writeFileSync(join(dir, "sandbox-exec"), "#!/bin/sh\nexit 1\n");
      chmodSync(join(dir, "sandbox-exec"), 0o755);
      const found = findSandboxExec(dir, join(dir, "perl"));
      assert.ok("reason" in found, "a launch without perl was accepted");
      assert.match(found.reason, /"[^"]*\/perl" cannot be run, .*restore macOS's own perl/);
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

  it("runs sandbox-exec with the profile, its parameters, then -- and the command", () => {
    const wrapped = seatbeltLaunch(launch, "/usr/bin/sandbox-exec", confined, FOLDERS, macRealpath);
    const { profile } = seatbeltProfile(confined, FOLDERS, macRealpath);
    assert.equal(wrapped.program, "/bin/bash");
    const at = wrapped.args.indexOf("/usr/bin/sandbox-exec");
    assert.deepEqual(wrapped.args.slice(at, at + 7), [
      "/usr/bin/sandbox-exec",
      "-p",
      profile,
      "-DROOT_0=/private/tmp/w=s",
      "-DPRIVATE=/run/private",
      "-DTMP=/run/private/tmp",
      "--",
    ]);
    assert.deepEqual(wrapped.args.slice(-3), ["/bin/bash", "-c", "echo hi"]);
    assert.equal(wrapped.cwd, "/tmp/ws");
  });

  it("applies the limits before sandbox-exec", () => {
    const limits = { rlimits: { processes: 64 }, cgroupProcs: [] };
    const wrapped = seatbeltLaunch(
      launch,
      "/usr/bin/sandbox-exec",
      confined,
      FOLDERS,
      macRealpath,
      {
        limits,
      },
    );
    const at = wrapped.args.indexOf("/usr/bin/sandbox-exec");
    const args = limitArgs(limits.rlimits);
    assert.deepEqual(wrapped.args.slice(at - args.length, at), args);
  });

  it("keeps the environment off every command line and out of the runners' environment", () => {
    const wrapped = seatbeltLaunch(launch, "/usr/bin/sandbox-exec", confined, FOLDERS, macRealpath);
    assert.ok(!wrapped.args.some((arg) => arg.includes("s3cret")));
    assert.deepEqual(wrapped.env, {});
    const entries = "PATH=/usr/bin\0SECRET_TOKEN=s3cret\0TMPDIR=/run/private/tmp\0";
    assert.equal(new TextDecoder().decode(wrapped.input), `${entries.length}\n${entries}`);
  });

  it("passes the proxy's port to the profile", () => {
    const wrapped = seatbeltLaunch(
      launch,
      "/usr/bin/sandbox-exec",
      policy({ network: "proxy", proxyPort: 3128 }),
      FOLDERS,
      macRealpath,
    );
    assert.ok(wrapped.args.some((arg) => arg.includes('(remote tcp "localhost:3128")')));
  });

  describe("run through a sandbox-exec that runs what follows --", () => {
    const dir = mkdtempSync(join(tmpdir(), "seatbelt-run-"));
    const fake = join(dir, "sandbox-exec");
    writeFileSync(
      fake,
      '#!/bin/sh\nenv > "$0.env"\nwhile [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n',
    );
    chmodSync(fake, 0o755);
    after(() => rmSync(dir, { recursive: true, force: true }));
    const run = (
      command: string,
      keepStdin: boolean,
      stdin = "",
      extra = false,
      env: Record<string, string> = {},
    ) => {
      const wrapped = seatbeltLaunch(
        { ...launch, args: ["-c", command], cwd: dir, env: { ...launch.env, ...env } },
        fake,
        confined,
        FOLDERS,
        macRealpath,
        { keepStdin, limits: { rlimits: { processes: 64 }, cgroupProcs: [] } },
      );
      const input = new Uint8Array([...(wrapped.input ?? []), ...new TextEncoder().encode(stdin)]);
      return spawnSync(wrapped.program, wrapped.args, {
        cwd: wrapped.cwd,
        env: wrapped.env,
        input,
        stdio: extra ? ["pipe", "pipe", "pipe", "pipe"] : "pipe",
      });
    };

    it("gives the command its environment, with the private TMPDIR, and none to sandbox-exec", () => {
      const result = run('printf "%s|%s|%s" "$SECRET_TOKEN" "$TMPDIR" "$PATH"', false);
      assert.equal(
        result.stdout.toString(),
        "s3cret|/run/private/tmp|/usr/bin",
        result.stderr.toString(),
      );
      assert.doesNotMatch(readFileSync(`${fake}.env`, "utf8"), /s3cret|SECRET_TOKEN/);
    });

    it("passes every name intact: those its shell uses, and those export refuses", () => {
      const names = { n: "7", k: "1", e: "x", "a.b": "dot" };
      const command = 'printf "%s|%s|%s|" "$n" "$k" "$e"; env | grep -c "^a.b=dot$"; cat';
      const result = run(command, false, "typed\n", false, names);
      // k=1 in the command's environment does not keep its stdin: cat reads /dev/null.
      assert.equal(result.stdout.toString(), "7|1|x|1\n", result.stderr.toString());
      assert.equal(result.status, 0);
    });

    it("says first on stdout when the command starts, once its environment is read, when asked", () => {
      const announced = (stdin: string) => {
        const wrapped = seatbeltLaunch(
          { ...launch, args: ["-c", "echo ran"], cwd: dir },
          fake,
          confined,
          FOLDERS,
          macRealpath,
          { announceStart: true },
        );
        return spawnSync(wrapped.program, wrapped.args, {
          cwd: wrapped.cwd,
          env: wrapped.env,
          input: stdin === "" ? wrapped.input : stdin,
        });
      };
      assert.deepEqual([...announced("").stdout], [LAUNCH_STARTED, ...Buffer.from("ran\n")]);
      // No environment on stdin: the runner fails before the command, and says nothing on stdout.
      const early = announced("PATH=/usr/bin\0");
      assert.equal(early.status, SEATBELT_FAILURE_EXIT);
      assert.equal(early.stdout.length, 0);
      // Not asked: nothing but the command's output.
      assert.equal(run("echo ran", false).stdout.toString(), "ran\n");
    });

    it("gives the command the stdin after the environment when kept, else /dev/null", () => {
      assert.equal(run("cat", true, "typed\n").stdout.toString(), "typed\n");
      assert.equal(run("cat", false, "typed\n").stdout.toString(), "");
    });

    it("closes the descriptors above 2 it inherited before sandbox-exec runs", () => {
      const probe = "[ -e /dev/fd/3 ] && echo open || echo closed";
      assert.equal(run(probe, false, "", true).stdout.toString(), "closed\n");
      // The same probe sees a descriptor the command itself opens.
      assert.equal(run(`exec 3</dev/null; ${probe}`, false).stdout.toString(), "open\n");
    });

    it("applies the limits, which the command inherits", () => {
      assert.equal(run("ulimit -u", false).stdout.toString(), "64\n");
    });

    it("fails as itself when the environment is cut short", () => {
      const wrapped = seatbeltLaunch(launch, fake, confined, FOLDERS, macRealpath);
      const result = spawnSync(wrapped.program, wrapped.args, {
        cwd: dir,
        env: {},
        input: wrapped.input?.slice(0, 10) ?? new Uint8Array(),
      });
      assert.equal(result.status, SEATBELT_FAILURE_EXIT);
      assert.match(result.stderr.toString(), /^shellseam-seatbelt: no environment on stdin/);
    });

    it("hands the command over by macOS's perl, then runs it as given", () => {
      const wrapped = seatbeltLaunch(launch, fake, confined, FOLDERS, macRealpath);
      const inside = wrapped.args.slice(wrapped.args.indexOf("--", wrapped.args.indexOf(fake)) + 1);
      assert.deepEqual(inside.slice(0, 2), [SEATBELT_PERL, "-e"]);
      assert.deepEqual(inside.slice(-3), ["/bin/bash", "-c", "echo hi"]);
    });

    it("fails before the command, saying nothing on stdout, when its perl cannot run", () => {
      const marker = join(dir, "ran");
      const wrapped = seatbeltLaunch(
        { ...launch, args: ["-c", `touch '${marker}'`], cwd: dir },
        fake,
        confined,
        FOLDERS,
        macRealpath,
        { announceStart: true, perl: join(dir, "no-perl") },
      );
      const result = spawnSync(wrapped.program, wrapped.args, {
        cwd: wrapped.cwd,
        env: wrapped.env,
        input: wrapped.input,
      });
      assert.notEqual(result.status, 0);
      assert.equal(result.stdout.length, 0);
      assert.equal(existsSync(marker), false);
    });
  });
});
