import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createLandlockBackend,
  HIDDEN_DIRS_GAP,
  HOST_TERMINALS_GAP,
  type LandlockSetup,
  LAUNCHER_DENO_DIR,
  LAUNCHER_DENO_FLAGS,
  LAUNCHER_FOLDER,
  LISTED_SECRETS_GAP,
  METADATA_GAP,
  protectedPathsGap,
  USER_NAMESPACE_ARGS,
} from "../../../../sandbox/backends/landlock/_landlock.ts";
import {
  type ConfinedPolicy,
  LATE_SOCKETS_GAP,
  SETSID_GAP,
} from "../../../../sandbox/backends/_backend.ts";
import {
  landlockLauncherFile,
  landlockLauncherScript,
} from "../../../../sandbox/backends/landlock/_launcher_file.ts";
import {
  type LandlockLauncherPolicy,
  LAUNCHER_INPUT_FLAG,
  LAUNCHER_STANDBY_FLAG,
  launcherInput,
  launcherText,
  standbyInput,
} from "../../../../sandbox/backends/landlock/_launcher_protocol.ts";
import { perlLauncherArgs } from "../../../../sandbox/backends/landlock/_perl_launcher.ts";
import { AF_NETLINK, AF_UNIX, seccompFilter } from "../../../../sandbox/backends/_seccomp.ts";
import { confinedPolicy } from "../_policy.ts";
import { rlimitsToSet } from "../../../../engine/_limits.ts";
import type { Launch } from "../../../../engine/mod.ts";
import { GLIBC_UNSECURE_ENV, MASK_FILE, tempWorkspace, type Workspace } from "../../_fixtures.ts";

function setup(
  workspace: Workspace,
  arch?: string,
  root = false,
  userNamespace?: LandlockSetup["userNamespace"],
) {
  const tmpDir = join(workspace.base, "private-tmp");
  mkdirSync(tmpDir, { recursive: true });
  const backend = createLandlockBackend({
    runner: { runtime: "deno", deno: "/opt/deno", launcher: "data:l" },
    tmpDir,
    launcherDir: "/private/deno",
    root,
    ...(arch === undefined ? {} : { arch }),
    ...(userNamespace === undefined ? {} : { userNamespace }),
  });
  const policy = (overrides: Partial<ConfinedPolicy> = {}): ConfinedPolicy =>
    confinedPolicy({ workspaceRoot: workspace.root, ...overrides });
  return { backend, policy, tmpDir };
}

const launch = { program: "/usr/bin/bash", args: ["-c", "echo hi"], cwd: "/srv", env: { A: "1" } };

const outcome = (exitCode: number | null, stderrText: string) => ({
  exitCode,
  signal: null,
  stderrText,
  killedByExecutor: false,
});

/**
 * The launcher's command line with the arguments it reads on its stdin
 * (`--input`, its only argument then) put back in its place.
 */
function expanded(wrapped: Launch): string[] {
  const at = wrapped.args.indexOf(LAUNCHER_INPUT_FLAG);
  assert.equal(at, wrapped.args.length - 1, "--input is the launcher's only argument");
  const text = new TextDecoder().decode(wrapped.input);
  const [length = "", json = ""] = [
    text.slice(0, text.indexOf("\n")),
    text.slice(text.indexOf("\n") + 1),
  ];
  assert.equal(Number(length), new TextEncoder().encode(json).length);
  const { args, keepStdin } = JSON.parse(json) as { args: string[]; keepStdin: boolean };
  assert.equal(keepStdin, false);
  return [...wrapped.args.slice(0, at), ...args];
}

describe("the landlock backend", () => {
  it("runs the launcher with deno, no code cache, only the FFI permission, then the program", () => {
    using workspace = tempWorkspace();
    const { backend, policy, tmpDir } = setup(workspace);
    assert.deepEqual(LAUNCHER_DENO_FLAGS, [
      "run",
      "--no-config",
      "--no-lock",
      "--no-code-cache",
      "--allow-ffi",
    ]);
    const wrapped = backend.wrap(launch, policy({ mode: "workspace-write" }));
    assert.equal(wrapped.program, "/opt/deno");
    assert.deepEqual(expanded(wrapped).slice(0, LAUNCHER_DENO_FLAGS.length + 1), [
      ...LAUNCHER_DENO_FLAGS,
      "data:l",
    ]);
    // The command's environment travels as arguments, counted in the policy.
    assert.deepEqual(expanded(wrapped).slice(LAUNCHER_DENO_FLAGS.length + 2), [
      "A=1",
      `TMPDIR=${tmpDir}`,
      "/usr/bin/bash",
      "-c",
      "echo hi",
    ]);
    const sent = JSON.parse(
      expanded(wrapped)[LAUNCHER_DENO_FLAGS.length + 1]!,
    ) as LandlockLauncherPolicy;
    assert.deepEqual(sent.readPaths, ["/"]);
    assert.deepEqual(sent.writeDirs, [tmpDir, workspace.root]);
    assert.ok(sent.writeFiles.includes("/dev/null"));
    assert.equal(sent.network, "deny");
    assert.deepEqual(sent.seccompFilter, [
      ...seccompFilter({ denyIpc: true, keepSession: true, socketFamilies: [AF_NETLINK] })!,
    ]);
    const unix = JSON.parse(
      expanded(
        backend.wrap(launch, policy({ unixSockets: true })),
      )[LAUNCHER_DENO_FLAGS.length + 1]!,
    ) as LandlockLauncherPolicy;
    assert.deepEqual(unix.seccompFilter, [
      ...seccompFilter({
        denyIpc: true,
        keepSession: true,
        socketFamilies: [AF_UNIX, AF_NETLINK],
      })!,
    ]);
    assert.equal(sent.reportAbi, undefined);
    const open = JSON.parse(
      expanded(backend.wrap(launch, policy({ network: "allow" })))[LAUNCHER_DENO_FLAGS.length + 1]!,
    ) as LandlockLauncherPolicy;
    assert.deepEqual(open.seccompFilter, [...seccompFilter({ denyIpc: true, keepSession: true })!]);
    assert.equal(sent.envEntries, 2);
    assert.equal(wrapped.cwd, "/srv");
  });

  it("hands the command's cgroups and rlimits to the launcher, with no limiter shell", () => {
    using workspace = tempWorkspace();
    const { backend, policy } = setup(workspace, undefined, false, { unshare: "/usr/bin/unshare" });
    const limits = {
      rlimits: { fileSizeBytes: 10_000, cpuSeconds: 5 },
      cgroupProcs: ["/cg/pids/1/cgroup.procs", "/cg/memory/1/cgroup.procs"],
    };
    const wrapped = backend.wrap(launch, policy(), limits);
    // unshare runs deno, which runs the launcher, which execs the command's own bash.
    assert.equal(wrapped.program, "/usr/bin/unshare");
    const deno = expanded(wrapped).indexOf("/opt/deno");
    assert.deepEqual(expanded(wrapped).slice(0, deno), [...USER_NAMESPACE_ARGS]);
    assert.deepEqual(expanded(wrapped).slice(-3), [launch.program, ...launch.args]);
    const index = deno + LAUNCHER_DENO_FLAGS.length + 2;
    const sent = JSON.parse(expanded(wrapped)[index]!) as LandlockLauncherPolicy;
    assert.deepEqual(sent.cgroupProcs, limits.cgroupProcs);
    assert.deepEqual(sent.rlimits, rlimitsToSet(limits.rlimits));
    assert.deepEqual(sent.rlimits?.map(({ soft, hard }) => [soft, hard]), [[5, 6], [
      10_000,
      10_000,
    ]]);
    const none = JSON.parse(
      expanded(backend.wrap(launch, policy(), { rlimits: {}, cgroupProcs: [] }))[index]!,
    ) as LandlockLauncherPolicy;
    assert.equal("cgroupProcs" in none || "rlimits" in none, false);
  });

  it("runs deno with its own environment, whatever the command's holds", () => {
    using workspace = tempWorkspace();
    const { backend, policy } = setup(workspace);
    const hostile = Object.fromEntries(GLIBC_UNSECURE_ENV.map((name) => [name, "/ws/evil"]));
    const wrapped = backend.wrap(
      { ...launch, env: { ...hostile, DENO_DIR: "/ws/deno", HOME: "/ws", LD_BIND_NOW: "1" } },
      policy({ mode: "workspace-write" }),
    );
    assert.deepEqual(wrapped.env, {
      DENO_DIR: LAUNCHER_DENO_DIR,
      HOME: "/private/deno",
      DENO_NO_UPDATE_CHECK: "1",
    });
    assert.ok(expanded(wrapped).includes("LD_PRELOAD=/ws/evil"), "the command still gets it");
    // On the launcher's stdin: no command line shows it.
    assert.ok(!wrapped.args.some((arg) => arg.includes("/ws/evil")));
    assert.deepEqual(backend.runnerFolders(), [{ name: LAUNCHER_FOLDER, path: "/private/deno" }]);
  });

  it("for root, asks for a read-only view with the writable paths and .git bound back", () => {
    using workspace = tempWorkspace();
    const git = join(workspace.root, ".git");
    const sent = (root: boolean, mode: ConfinedPolicy["mode"]) => {
      const { backend, policy } = setup(workspace, "x64", root);
      const wrapped = backend.wrap(launch, policy({ mode, readOnlyPaths: [git] }));
      return JSON.parse(
        expanded(wrapped)[LAUNCHER_DENO_FLAGS.length + 1]!,
      ) as LandlockLauncherPolicy;
    };
    const rootWrite = sent(true, "workspace-write");
    assert.deepEqual(rootWrite.writableMounts, rootWrite.writeDirs);
    assert.deepEqual(rootWrite.readOnlyMounts, [git]);
    assert.deepEqual(sent(true, "read-only").readOnlyMounts, []);
    assert.equal(sent(false, "workspace-write").writableMounts, undefined);
    const { backend, policy } = setup(workspace, "x64", true);
    assert.equal(
      backend.enforcement(policy({ mode: "workspace-write" })).gaps.some((gap) =>
        gap.includes(".git")
      ),
      false,
    );
  });

  it("masks secrets in root's mount namespace, and grants reads around them without a user namespace", () => {
    using workspace = tempWorkspace();
    const masks = [
      { path: "/home/u/.ssh", directory: true, kind: "secret" as const },
      { path: `${workspace.root}/.npmrc`, directory: false, kind: "secret" as const },
      { path: "/run/app.sock", directory: false, kind: "socket" as const },
    ];
    const sent = (root: boolean) => {
      const { backend, policy } = setup(workspace, "x64", root);
      const wrapped = backend.wrap(launch, policy({ masks, mode: "workspace-write" }));
      const gaps = backend.enforcement(policy({ masks, mode: "workspace-write" })).gaps;
      const launcher = expanded(wrapped)[LAUNCHER_DENO_FLAGS.length + 1]!;
      return { policy: JSON.parse(launcher) as LandlockLauncherPolicy, gaps };
    };
    const root = sent(true);
    assert.deepEqual(root.policy.masks, [
      { path: "/home/u/.ssh" },
      { path: `${workspace.root}/.npmrc`, source: MASK_FILE },
      { path: "/run/app.sock", source: MASK_FILE },
    ]);
    assert.equal(root.policy.unreadable, undefined);
    assert.equal(root.gaps.includes(LISTED_SECRETS_GAP), false);
    const user = sent(false);
    assert.equal(user.policy.masks, undefined);
    assert.deepEqual(user.policy.unreadable, ["/home/u/.ssh", `${workspace.root}/.npmrc`]);
    assert.ok(user.gaps.includes(LISTED_SECRETS_GAP));
    // A writable root's grant reads too: a secret inside it stays readable, and says so.
    assert.ok(
      user.gaps.includes(
        `${workspace.root}/.npmrc readable (it lies in a writable root, and Landlock cannot narrow a subtree)`,
      ),
    );
    assert.equal(user.gaps.some((gap) => gap.startsWith("/home/u/.ssh")), false);
  });

  it("for another user, runs the launcher in a user namespace with the same view", () => {
    using workspace = tempWorkspace();
    const git = join(workspace.root, ".git");
    const unshare = "/usr/bin/unshare";
    const { backend, policy } = setup(workspace, "x64", false, { unshare });
    const wrapped = backend.wrap(launch, policy({ mode: "workspace-write", readOnlyPaths: [git] }));
    assert.equal(wrapped.program, unshare);
    assert.deepEqual(expanded(wrapped).slice(0, USER_NAMESPACE_ARGS.length + 1), [
      ...USER_NAMESPACE_ARGS,
      "/opt/deno",
    ]);
    const sent = JSON.parse(
      expanded(wrapped)[USER_NAMESPACE_ARGS.length + 1 + LAUNCHER_DENO_FLAGS.length + 1]!,
    ) as LandlockLauncherPolicy;
    assert.deepEqual(sent.writableMounts, sent.writeDirs);
    assert.deepEqual(sent.readOnlyMounts, [git]);
    assert.deepEqual(backend.runners(launch), [unshare, "/opt/deno"]);
    const facts = backend.enforcement(policy({ mode: "workspace-write" }));
    assert.equal(facts.filesystem, "full");
    assert.equal(facts.gaps.includes(METADATA_GAP), false);
    // unshare's own failure is the runner's, not the command's.
    assert.equal(backend.runnerFailed(outcome(1, "unshare: unshare failed: EPERM\n")), true);
  });

  it("for another user without a user namespace, names the protected paths gap", () => {
    using workspace = tempWorkspace();
    const reason = "unshare failed: Operation not permitted";
    const { backend, policy } = setup(workspace, "x64", false, { reason });
    const wrapped = backend.wrap(launch, policy({ mode: "workspace-write" }));
    assert.equal(wrapped.program, "/opt/deno");
    const facts = backend.enforcement(
      policy({ mode: "workspace-write", protectedPaths: [".git", ".envrc"] }),
    );
    assert.equal(facts.filesystem, "partial");
    assert.ok(facts.gaps.includes(protectedPathsGap([".git", ".envrc"], reason)));
    assert.match(
      protectedPathsGap([".git"], reason),
      /^`\.git` can be created, replaced or written: git, shells or editors may later run what a command planted/,
    );
  });

  it("read-only writes only the private tmp and the device files", () => {
    using workspace = tempWorkspace();
    const { backend, policy, tmpDir } = setup(workspace);
    const wrapped = backend.wrap(launch, policy({ writableRoots: ["/srv"] }));
    const sent = JSON.parse(
      expanded(wrapped)[LAUNCHER_DENO_FLAGS.length + 1]!,
    ) as LandlockLauncherPolicy;
    assert.deepEqual(sent.writeDirs, [tmpDir]);
  });

  it("the probe asks for the ABI, which then shapes the enforcement facts", () => {
    using workspace = tempWorkspace();
    // An architecture without a seccomp filter: Landlock alone.
    const { backend, policy } = setup(workspace, "mips");
    const probe = backend.probeLaunch(launch, policy());
    const sent = JSON.parse(
      expanded(probe)[LAUNCHER_DENO_FLAGS.length + 1]!,
    ) as LandlockLauncherPolicy;
    assert.equal(sent.reportAbi, true);

    assert.equal(
      backend.probeFailure({ exitCode: 0, stdout: "", stderr: "" }),
      "probe exited 0 without a message",
    );
    assert.equal(
      backend.probeFailure({ exitCode: 125, stdout: "", stderr: "shellseam-landlock: no\n" }),
      "probe exited 125: shellseam-landlock: no",
    );
    assert.equal(
      backend.probeFailure({ exitCode: 0, stdout: "shellseam-landlock-abi: 3\n", stderr: "" }),
      undefined,
    );
    assert.equal(backend.landlockAbi(), 3);
    assert.deepEqual(backend.enforcement(policy()), {
      filesystem: "partial",
      network: "none",
      gaps: [
        METADATA_GAP,
        HIDDEN_DIRS_GAP,
        HOST_TERMINALS_GAP,
        "landlock ABI 3: TCP not confined",
        "UDP not confined",
        "Unix sockets not confined",
        "kernel keyrings not confined (no seccomp filter for mips)",
        "System V IPC and message queues not confined (no seccomp filter for mips)",
        "landlock ABI 3: signals to processes outside the sandbox not confined",
        SETSID_GAP,
      ],
      launcher: "deno",
    });
    backend.probeFailure({ exitCode: 0, stdout: "shellseam-landlock-abi: 4\n", stderr: "" });
    assert.deepEqual(backend.enforcement(policy({ mode: "workspace-write" })), {
      filesystem: "partial",
      network: "partial",
      gaps: [
        METADATA_GAP,
        HIDDEN_DIRS_GAP,
        HOST_TERMINALS_GAP,
        "UDP not confined",
        "Unix sockets not confined",
        "kernel keyrings not confined (no seccomp filter for mips)",
        "System V IPC and message queues not confined (no seccomp filter for mips)",
        protectedPathsGap([".git"], "none was tried"),
        "landlock ABI 4: signals to processes outside the sandbox not confined",
        SETSID_GAP,
      ],
      launcher: "deno",
    });
    backend.probeFailure({ exitCode: 0, stdout: "shellseam-landlock-abi: 6\n", stderr: "" });
    assert.deepEqual(backend.enforcement(policy({ network: "allow" })), {
      filesystem: "partial",
      network: "full",
      gaps: [
        METADATA_GAP,
        HIDDEN_DIRS_GAP,
        HOST_TERMINALS_GAP,
        "kernel keyrings not confined (no seccomp filter for mips)",
        "System V IPC and message queues not confined (no seccomp filter for mips)",
        SETSID_GAP,
      ],
      launcher: "deno",
    });
  });

  it("with the seccomp filter, IP is confined whatever the ABI, and keyrings are", () => {
    using workspace = tempWorkspace();
    const { backend, policy } = setup(workspace, "x64", true);
    backend.probeFailure({ exitCode: 0, stdout: "shellseam-landlock-abi: 3\n", stderr: "" });
    assert.deepEqual(backend.enforcement(policy()), {
      filesystem: "full",
      network: "full",
      gaps: [
        "landlock ABI 3: signals to processes outside the sandbox not confined",
        SETSID_GAP,
      ],
      launcher: "deno",
    });
    assert.deepEqual(backend.enforcement(policy({ unixSockets: true })).gaps.slice(0, 1), [
      LATE_SOCKETS_GAP,
    ]);
    backend.probeFailure({ exitCode: 0, stdout: "shellseam-landlock-abi: 7\n", stderr: "" });
    assert.deepEqual(backend.enforcement(policy({ network: "allow" })).gaps, [SETSID_GAP]);
  });

  it("a launcher failure is a runner failure and never a denial", () => {
    using workspace = tempWorkspace();
    const { backend, policy } = setup(workspace);
    const failed = outcome(
      125,
      "shellseam-landlock: landlock_restrict_self failed (EPERM): Permission denied\n",
    );
    assert.equal(backend.runnerFailed(failed), true);
    assert.equal(backend.denied(failed, policy(), workspace.root), undefined);
    assert.equal(backend.runnerFailed(outcome(125, "other\n")), false);
    assert.equal(backend.runnerFailed(outcome(1, "shellseam-landlock: x\n")), false);
    const gone = "setsid: failed to execute /opt/deno: No such file or directory\n";
    assert.equal(backend.runnerFailed(outcome(127, gone)), true);
    assert.equal(backend.denied(outcome(127, gone), policy(), workspace.root), undefined);
    assert.equal(backend.runnerFailed(outcome(126, gone.replace("No such", "Permission"))), true);
    assert.equal(backend.runnerFailed(outcome(1, gone)), false);
    assert.equal(
      backend.runnerFailed(outcome(127, "bash: line 1: deno: command not found\n")),
      false,
    );
  });

  it("a denial is a Permission denied naming a path outside the writable roots", () => {
    using workspace = tempWorkspace();
    const { backend, policy, tmpDir } = setup(workspace);
    const write = policy({ mode: "workspace-write" });
    const denied = (stderr: string, p = write, code: number | null = 1) =>
      backend.denied(outcome(code, stderr), p, workspace.root);
    const FS = "filesystem";
    assert.equal(denied("touch: cannot touch '/etc/x': Permission denied"), FS);
    assert.equal(denied(`bash: ${workspace.base}/beside.txt: Permission denied`), FS);
    assert.equal(denied("bash: ../beside.txt: Permission denied"), FS);
    assert.equal(denied("Error: EACCES: permission denied, open '/etc/x'"), FS);
    assert.equal(denied(`Error: EACCES: permission denied, open '${workspace.root}/x'`), undefined);
    // Paths inside the writable roots: an ordinary permission problem.
    assert.equal(denied("bash: ./script.sh: Permission denied"), undefined);
    assert.equal(denied("/usr/bin/bash: line 1: ./script.sh: Permission denied"), undefined);
    assert.equal(denied(`cat: '${workspace.root}/secret': Permission denied`), undefined);
    assert.equal(denied(`bash: ${tmpDir}/x: Permission denied`), undefined);
    // The same workspace path is a denial under read-only.
    assert.equal(denied(`cat: '${workspace.root}/secret': Permission denied`, policy()), FS);
    // No signature, or no failure: no denial.
    assert.equal(denied("cp: cannot stat 'x': No such file or directory"), undefined);
    assert.equal(denied("touch: cannot touch '/etc/x': Permission denied", write, 0), undefined);
    assert.equal(denied("touch: cannot touch '/etc/x': Permission denied", write, null), undefined);
  });

  it("a pathless denial that speaks of sockets is the network's, only when it is denied", () => {
    using workspace = tempWorkspace();
    const { backend, policy } = setup(workspace);
    const deny = policy({ mode: "workspace-write" });
    const allow = policy({ mode: "workspace-write", network: "allow" });
    const denied = (stderr: string, p = deny) =>
      backend.denied(outcome(1, stderr), p, workspace.root);
    assert.equal(denied("bash: connect: Permission denied"), "network");
    assert.equal(denied("bash: socket: Permission denied"), "network");
    // The program path that leads the line is not what was denied.
    assert.equal(denied("/usr/bin/bash: socket: Permission denied"), "network");
    assert.equal(denied("/etc/x: Permission denied"), "filesystem");
    // Bash's /dev/tcp names an address, not a file.
    assert.equal(denied("bash: /dev/tcp/127.0.0.1/80: Permission denied"), "network");
    assert.equal(
      denied("/usr/bin/bash: line 1: /dev/tcp/127.0.0.1/80: Permission denied"),
      "network",
    );
    assert.equal(denied("curl: (6) Could not resolve host: x: Permission denied"), "network");
    // A read at a masked secret is the policy's, whatever the mode.
    const masked = policy({ masks: [{ path: "/home/u/.ssh", directory: true, kind: "secret" }] });
    assert.equal(denied("cat: /home/u/.ssh/id: Permission denied", masked), "secret");
    assert.equal(denied("Error: connect EACCES /run/x.sock"), "network");
    // A Landlock scope refuses an abstract Unix socket with EPERM.
    assert.equal(
      denied('socat[9] E connect(5, AF=1 "\\0x", 4): Operation not permitted'),
      "network",
    );
    // A pathless line without a network word (System V IPC, say), or any
    // pathless line with the network allowed: not classed, as under bwrap.
    assert.equal(denied("PermissionError: [Errno 13] Permission denied"), undefined);
    assert.equal(denied("ipcmk: create share memory failed: Permission denied"), undefined);
    assert.equal(denied("bash: connect: Permission denied", allow), undefined);
    assert.equal(denied("bash: /dev/tcp/127.0.0.1/80: Permission denied", allow), undefined);
    assert.equal(denied("chmod: changing permissions of '/x': Operation not permitted"), undefined);
    // The first denied line decides.
    assert.equal(
      denied("bash: connect: Permission denied\ntouch: cannot touch '/etc/x': Permission denied"),
      "network",
    );
    assert.equal(
      denied("touch: cannot touch '/etc/x': Permission denied\nbash: connect: Permission denied"),
      "filesystem",
    );
  });
});

describe("the landlock backend, its launcher run by perl", () => {
  /** The backend with `runtime` running its launcher, otherwise alike. */
  function made(workspace: Workspace, runtime: "perl" | "deno", root = false) {
    const tmpDir = join(workspace.base, "private-tmp");
    mkdirSync(tmpDir, { recursive: true });
    return createLandlockBackend({
      runner: runtime === "perl"
        ? { runtime, perl: "/usr/bin/perl" }
        : { runtime, deno: "/opt/deno", launcher: "data:l" },
      tmpDir,
      launcherDir: "/private/deno",
      root,
      arch: "x64",
    });
  }

  it("runs perl with the launcher's source and no environment, handed the same policy as a record", () => {
    using workspace = tempWorkspace();
    const policy = confinedPolicy({ workspaceRoot: workspace.root, mode: "workspace-write" });
    const limits = { rlimits: { fileSizeBytes: 10_000 }, cgroupProcs: ["/cg/1/cgroup.procs"] };
    const perl = made(workspace, "perl", true).wrap(launch, policy, limits);
    assert.deepEqual(
      { program: perl.program, args: perl.args, env: perl.env, cwd: perl.cwd },
      {
        program: "/usr/bin/perl",
        args: [...perlLauncherArgs(), LAUNCHER_INPUT_FLAG],
        env: {},
        cwd: "/srv",
      },
    );
    // What the Deno launcher gets as JSON, the Perl one gets as a launcher record.
    const [policyJson = "", ...rest] = expanded(
      made(workspace, "deno", true).wrap(
        launch,
        policy,
        limits,
      ),
    ).slice(LAUNCHER_DENO_FLAGS.length + 1);
    assert.deepEqual(
      perl.input,
      launcherInput("perl", [launcherText("perl", JSON.parse(policyJson)), ...rest], false),
    );
  });

  it("is run by its absolute perl, which the enforcement facts name", () => {
    using workspace = tempWorkspace();
    const backend = made(workspace, "perl");
    assert.deepEqual(backend.runners(launch), ["/usr/bin/perl"]);
    assert.equal(
      backend.enforcement(confinedPolicy({ workspaceRoot: workspace.root })).launcher,
      "perl",
    );
    const gone = "setsid: failed to execute /usr/bin/perl: No such file or directory\n";
    assert.equal(backend.runnerFailed(outcome(127, gone)), true);
    assert.equal(backend.runnerFailed(outcome(127, gone.replace("perl", "deno"))), false);
  });

  it("starts a standby with perl, and hands it { cwd, args } as a record", () => {
    using workspace = tempWorkspace();
    const backend = made(workspace, "perl");
    const policy = confinedPolicy({ workspaceRoot: workspace.root });
    const standby = backend.standby?.(launch, policy);
    assert.ok(standby !== undefined);
    assert.deepEqual(standby.prepare(["/cg/1/cgroup.procs"]), {
      program: "/usr/bin/perl",
      args: [...perlLauncherArgs(), LAUNCHER_STANDBY_FLAG, "/cg/1/cgroup.procs"],
      cwd: "/",
      env: {},
    });
    const deno = made(workspace, "deno").wrap(launch, policy, { rlimits: {}, cgroupProcs: [] });
    const [policyJson = "", ...rest] = expanded(deno).slice(LAUNCHER_DENO_FLAGS.length + 1);
    assert.deepEqual(
      standby.input({}),
      standbyInput("perl", launch.cwd, [launcherText("perl", JSON.parse(policyJson)), ...rest]),
    );
    assert.notEqual(standby.key, made(workspace, "deno").standby?.(launch, policy)?.key);
  });
});

describe("the landlock backend's standby", () => {
  /** A backend whose launcher is a real file in `workspace` (a standby's start rewrites it). */
  function withLauncher(workspace: Workspace, userNamespace?: LandlockSetup["userNamespace"]) {
    const launcherDir = join(workspace.base, "deno");
    mkdirSync(launcherDir);
    const launcher = landlockLauncherFile(launcherDir);
    const tmpDir = join(workspace.base, "private-tmp");
    mkdirSync(tmpDir);
    const made = (deno: string, unshare?: LandlockSetup["userNamespace"]) =>
      createLandlockBackend({
        runner: { runtime: "deno", deno, launcher },
        tmpDir,
        launcherDir,
        root: false,
        ...(unshare === undefined ? {} : { userNamespace: unshare }),
      });
    return { backend: made("/opt/deno", userNamespace), made, launcher, launcherDir };
  }

  it("starts the launcher ahead with its own environment, its cgroups in its arguments", () => {
    using workspace = tempWorkspace();
    const unshare = "/usr/bin/unshare";
    const { backend, launcher, launcherDir } = withLauncher(workspace, { unshare });
    const policy = setup(workspace).policy;
    const standby = backend.standby?.(launch, policy());
    assert.ok(standby !== undefined);
    const procs = ["/cg/pids/1/cgroup.procs", "/cg/memory/1/cgroup.procs"];
    const started = standby.prepare(procs);
    assert.deepEqual(started, {
      program: unshare,
      args: [
        ...USER_NAMESPACE_ARGS,
        "/opt/deno",
        ...LAUNCHER_DENO_FLAGS,
        launcher,
        LAUNCHER_STANDBY_FLAG,
        ...procs,
      ],
      cwd: "/",
      env: { DENO_DIR: LAUNCHER_DENO_DIR, HOME: launcherDir, DENO_NO_UPDATE_CHECK: "1" },
    });
  });

  it("hands it what a cold launch gets in its arguments, with the cwd, computed per call", () => {
    using workspace = tempWorkspace();
    const { backend, launcher } = withLauncher(workspace);
    const policy = setup(workspace).policy;
    const confined = policy({ mode: "workspace-write" });
    const standby = backend.standby?.(launch, confined);
    assert.ok(standby !== undefined);
    const rlimits = { fileSizeBytes: 10_000 };
    const handed = JSON.parse(new TextDecoder().decode(standby.input(rlimits)));
    const cold = expanded(backend.wrap(launch, confined, { rlimits, cgroupProcs: [] }));
    assert.deepEqual(handed, {
      cwd: launch.cwd,
      args: cold.slice(cold.indexOf(launcher) + 1),
    });
    assert.deepEqual(
      (JSON.parse(handed.args[0]!) as LandlockLauncherPolicy).rlimits,
      rlimitsToSet(rlimits),
    );
    // A writable root made since the standby was planned is in the next input.
    const extra = join(workspace.base, "extra");
    mkdirSync(extra);
    confined.writableRoots.push(extra);
    const later = JSON.parse(new TextDecoder().decode(standby.input({})));
    assert.ok((JSON.parse(later.args[0]) as LandlockLauncherPolicy).writeDirs.includes(extra));
  });

  it("is keyed by what starts it: deno, the launcher, the user namespace", () => {
    using workspace = tempWorkspace();
    const { backend, made } = withLauncher(workspace);
    const policy = setup(workspace).policy;
    const key = (of: typeof backend) => of.standby?.(launch, policy())?.key;
    assert.equal(key(backend), backend.standby?.({ ...launch, cwd: "/x" }, policy())?.key);
    assert.notEqual(key(made("/other/deno")), key(backend));
    assert.notEqual(key(made("/opt/deno", { unshare: "/usr/bin/unshare" })), key(backend));
  });

  it("writes the launcher again before a standby starts, when it was changed", () => {
    using workspace = tempWorkspace();
    const { backend, launcher } = withLauncher(workspace);
    const standby = backend.standby?.(launch, setup(workspace).policy());
    writeFileSync(launcher, "Deno.exit(0);\n");
    standby?.prepare([]);
    assert.equal(readFileSync(launcher, "utf8"), landlockLauncherScript());
  });
});

describe("the landlock backend's probe", () => {
  it("hands the launcher the executor's environment on stdin, never on a command line", () => {
    using workspace = tempWorkspace();
    const { backend, policy } = setup(workspace);
    const secret = "probe-secret-value";
    const probe = backend.probeLaunch({ ...launch, env: { TOKEN: secret } }, policy());
    assert.equal(probe.args.some((arg) => arg.includes(secret)), false, probe.args.join(" "));
    assert.ok(expanded(probe).includes(`TOKEN=${secret}`));
  });
});
