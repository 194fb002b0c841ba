// The Perl launcher against the Deno one, its reference: run under strace
// with the same policy, each makes the same system calls that confine, with
// the same flags, paths, masks and structs, in the same order (descriptor
// numbers and addresses aside). One that differs (a flag, a struct layout,
// a step left out or moved) fails here before any attack finds it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { findOnPath } from "../../../../engine/_session.ts";
import { findDeno } from "../../../../sandbox/backends/landlock/_deno.ts";
import {
  LAUNCHER_DENO_DIR,
  LAUNCHER_DENO_FLAGS,
} from "../../../../sandbox/backends/landlock/_landlock.ts";
import { landlockLauncherFile } from "../../../../sandbox/backends/landlock/_launcher_file.ts";
import {
  type LandlockLauncherPolicy,
  type LauncherRuntime,
  launcherText,
} from "../../../../sandbox/backends/landlock/_launcher_protocol.ts";
import { perlLauncherArgs } from "../../../../sandbox/backends/landlock/_perl_launcher.ts";
import { AF_UNIX, seccompFilter } from "../../../../sandbox/backends/_seccomp.ts";
import { probeHere, skipUnless, tempWorkspace, type Workspace } from "../../_fixtures.ts";

const deno = findDeno(process.env.PATH);
const perl = findOnPath("perl", process.env.PATH);
const strace = findOnPath("strace", process.env.PATH);
const statuses = await probeHere();
const skip = skipUnless(statuses, "landlock") ||
  (process.getuid?.() !== 0
    ? "needs root to mount the read-only view"
    : perl === null || strace === null || "reason" in deno
    ? "needs perl, strace and deno"
    : false);

/** The calls that confine, as strace names them. */
const TRACED = [
  "unshare",
  "mount",
  "mount_setattr",
  "openat2",
  "landlock_create_ruleset",
  "landlock_add_rule",
  "landlock_restrict_self",
  "prctl",
  "capset",
  "close_range",
  "rt_sigaction",
  "prlimit64",
  "execve",
  "chdir",
  "getcwd",
  "dup3",
  "write",
];

/**
 * The confining calls the `runtime`'s launcher makes, from its first
 * `unshare` or Landlock call to the command's exec, in the process that
 * execs: descriptors, addresses and results made neutral, and the signal
 * actions the runtime itself sets left out but SIGPIPE's and SIGFPE's.
 */
function confiningCalls(
  runtime: LauncherRuntime,
  workspace: Workspace,
  policy: LandlockLauncherPolicy,
): string[] {
  // Outside the workspace's base, which a launcher reading around may list.
  using scratch = tempWorkspace();
  const log = join(scratch.base, "strace.txt");
  const runner = runtime === "perl"
    ? [perl!, ...perlLauncherArgs()]
    : [(deno as { path: string }).path, ...LAUNCHER_DENO_FLAGS, landlockLauncherFile(scratch.base)];
  const traced = spawnSync(
    strace!,
    [
      "-f",
      "-qq",
      "-s",
      "256",
      "-e",
      `trace=${TRACED.join(",")}`,
      "-o",
      log,
      ...runner,
      launcherText(runtime, policy),
      "A=b",
      "/usr/bin/true",
    ],
    {
      cwd: workspace.root,
      encoding: "utf8",
      env: runtime === "perl" ? {} : { DENO_DIR: LAUNCHER_DENO_DIR, HOME: scratch.base },
    },
  );
  assert.equal(traced.status, 0, traced.stderr);
  const lines = readFileSync(log, "utf8").split("\n");
  const execing = lines.find((line) => line.includes('execve("/usr/bin/true"'));
  assert.ok(execing !== undefined, `no exec of the command in:\n${lines.join("\n")}`);
  const pid = execing.split(/\s+/, 1)[0]!;
  const calls = lines
    .filter((line) => line.startsWith(`${pid} `))
    .map((line) => line.slice(pid.length).trim());
  const first = calls.findIndex((call) => /^(unshare|landlock_create_ruleset)\(/.test(call));
  const last = calls.findIndex((call) => call.startsWith('execve("/usr/bin/true"'));
  return calls.slice(first, last + 1)
    .filter((call) => !/^write\((?![12],)/.test(call))
    .filter((call) => !/^rt_sigaction\((?!SIGPIPE|SIGFPE)/.test(call))
    .map((call) =>
      call
        .replace(/0x[0-9a-f]{8,}/g, "ADDR")
        .replace(/^(landlock_add_rule|landlock_restrict_self|close)\(\d+/, "$1(RULESET")
        .replace(/parent_fd=\d+/, "parent_fd=FD")
        .replace(/\s+= (-?\d+).*$/, (_, result: string) => Number(result) < 0 ? ` = ${result}` : "")
    );
}

describe("the Perl Landlock launcher, traced against the Deno one", { skip }, () => {
  /** The Deno launcher leaves SIGFPE alone: only perl ignores it at start. */
  const withoutSigfpe = (calls: string[]) =>
    calls.filter((call) => !call.startsWith("rt_sigaction(SIGFPE"));

  it("makes the same confining calls with the read-only view, masks, terminal, seccomp and rlimits", () => {
    using workspace = tempWorkspace();
    const dir = (name: string) => {
      const path = join(workspace.base, name);
      mkdirSync(path);
      return path;
    };
    const [readOnly, hidden, secrets] = [dir("ro"), dir("hidden"), dir("secrets")];
    writeFileSync(join(secrets, "key"), "k");
    const maskFile = join(workspace.base, "mask");
    writeFileSync(maskFile, "");
    chmodSync(maskFile, 0o000);
    const policy: LandlockLauncherPolicy = {
      readPaths: ["/"],
      writeDirs: [workspace.root, "/dev/pts"],
      writeFiles: ["/dev/null", "/dev/ptmx"],
      writableMounts: [workspace.root],
      readOnlyMounts: [readOnly],
      hiddenMounts: [hidden, join(workspace.base, "gone")],
      masks: [{ path: join(secrets, "key"), source: maskFile }, { path: secrets }],
      terminal: true,
      network: "deny",
      seccompFilter: [...seccompFilter({ socketFamilies: [AF_UNIX] })!],
      rlimits: [{ resource: 7, soft: 512, hard: 1024 }, {
        resource: 1,
        soft: 10_000,
        hard: 20_000,
      }],
      envEntries: 1,
    };
    const perlCalls = confiningCalls("perl", workspace, policy);
    assert.ok(perlCalls.some((call) => call.startsWith("mount_setattr(")), perlCalls.join("\n"));
    assert.ok(
      perlCalls.includes(
        "rt_sigaction(SIGFPE, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, NULL, 8)",
      ),
    );
    assert.deepEqual(withoutSigfpe(perlCalls), confiningCalls("deno", workspace, policy));
  });

  it("makes the same confining calls when it reads around unreadable paths", () => {
    using workspace = tempWorkspace();
    const secrets = join(workspace.base, "secrets");
    mkdirSync(join(secrets, "deeper"), { recursive: true });
    for (const name of ["key", "other", "deeper/key", "deeper/other"]) {
      writeFileSync(join(secrets, name), name);
    }
    // Read around in the workspace's base alone: /tmp changes while they run.
    const policy: LandlockLauncherPolicy = {
      readPaths: ["/usr", workspace.base],
      unreadable: [join(secrets, "key"), join(secrets, "deeper", "key")],
      writeDirs: [workspace.root],
      writeFiles: ["/dev/null"],
      network: "proxy",
      envEntries: 1,
    };
    const perlCalls = confiningCalls("perl", workspace, policy);
    assert.ok(
      perlCalls.some((call) => call.includes(`"${join(secrets, "deeper", "other")}"`)),
      perlCalls.join("\n"),
    );
    assert.deepEqual(withoutSigfpe(perlCalls), confiningCalls("deno", workspace, policy));
  });
});
