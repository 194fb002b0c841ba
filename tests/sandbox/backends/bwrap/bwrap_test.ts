import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { bwrapArgs, maskGroups } from "../../../../sandbox/backends/bwrap/_args.ts";
import { bwrapSetupRaced, createBwrapBackend } from "../../../../sandbox/backends/bwrap/_bwrap.ts";
import { OPTIONS_FILE_PREFIX } from "../../../../sandbox/backends/bwrap/_standby.ts";
import { findOnPath } from "../../../../engine/_session.ts";
import { APPLY_LIMITS, limitArgs } from "../../../../engine/_limits.ts";
import { LATE_SOCKETS_GAP } from "../../../../sandbox/backends/_backend.ts";
import { AF_NETLINK, AF_UNIX, seccompFilter } from "../../../../sandbox/backends/_seccomp.ts";
import {
  SET_UP_REPORTER,
  STANDBY_COMMAND_VARIABLE,
  STANDBY_LIMITS_VARIABLE,
  STANDBY_REPORTER,
} from "../../../../sandbox/backends/bwrap/_reporter.ts";
import { GLIBC_UNSECURE_ENV, MASK_FILE, tempWorkspace } from "../../_fixtures.ts";
import { coldAndStandby, FOLDERS, launch, policy, runLaunch, TMP } from "./_policy.ts";

/**
 * What the wrapper reads after its line `head`: the sizes of `entries`,
 * then the entries back to back (ASCII here, so a character is a byte).
 */
function sized(head: string, entries: string[]): string {
  const sizes = entries.map((entry) => entry.length).join(" ");
  return `${head} ${sizes.length}\n${sizes}${entries.join("")}`;
}

/** The entries of a wrapper's input (see `sized`). */
function entriesOf(input: string): string[] {
  const newline = input.indexOf("\n");
  const sizeBytes = Number(input.slice(0, newline).split(" ")[3]);
  const sizes = input.slice(newline + 1, newline + 1 + sizeBytes).split(" ").map(Number);
  let offset = newline + 1 + sizeBytes;
  return sizes.map((size) => input.slice(offset, offset += size));
}

/** A private folder of its own (the filters' files go there), with the shared TMPDIR. */
const OWN = { privateDir: realpathSync(mkdtempSync(join(tmpdir(), "bwrap-test-"))), tmpDir: TMP };
after(() => rmSync(OWN.privateDir, { recursive: true, force: true }));

describe("the bwrap backend", () => {
  it("is unavailable without bwrap on the search path, saying what to install", () => {
    assert.deepEqual(createBwrapBackend("/nonexistent", FOLDERS), {
      reason: '"bwrap" was not found on PATH; install bubblewrap',
    });
  });

  const backend = createBwrapBackend(process.env.PATH, OWN);
  const skip = "reason" in backend ? backend.reason : false;

  it("wraps the launch in bwrap, behind a shell that opens it the seccomp filter's file", {
    skip,
  }, () => {
    assert.ok(!("reason" in backend));
    const wrapped = backend.wrap(launch("/srv/ws"), policy({}));
    assert.equal(wrapped.program, "/usr/bin/bash");
    const [
      norc,
      noprofile,
      privileged,
      c,
      script,
      name,
      noLimits,
      filter,
      report,
      input,
      bwrap,
      ...args
    ] = wrapped.args;
    assert.equal(input, "--input");
    // No report file asked for: none opened, and the launch runs as it is.
    assert.equal(report, "");
    assert.deepEqual(
      [norc, noprofile, privileged, c, name, noLimits],
      ["--norc", "--noprofile", "-p", "-c", "shellseam-bwrap", "--"],
    );
    assert.match(script!, /exec \$fd>&-/);
    // A file of the private folder, opened as fd 3, or the wrapper fails.
    assert.match(
      script!,
      /exec 3<"\$1"; \} 2>\/dev\/null \|\| \{ echo "shellseam-bwrap: cannot open/,
    );
    const bytes = (path: string) => [...readFileSync(path)];
    // Under deny, no Unix socket unless some are allowed (the others are masked).
    const deny = seccompFilter({ denyIpc: true, socketFamilies: [AF_NETLINK] })!;
    assert.equal(filter, join(OWN.privateDir, "seccomp-none.bpf"));
    assert.deepEqual(bytes(filter!), [...deny]);
    const unix = backend.wrap(launch("/srv/ws"), policy({ unixSockets: true })).args[7]!;
    assert.deepEqual(bytes(unix), [
      ...seccompFilter({ denyIpc: true, socketFamilies: [AF_UNIX, AF_NETLINK] })!,
    ]);
    assert.match(bwrap!, /\/bwrap$/);
    // bwrap's options come on stdin (fd 4 for --args), the command on its command line.
    const all = ["--seccomp", "3", ...bwrapArgs(launch("/srv/ws"), policy({}), OWN)];
    const command = all.splice(all.indexOf("--", all.indexOf("--chdir")));
    assert.deepEqual(args, command);
    assert.equal(new TextDecoder().decode(wrapped.input), sized(`0 ${all.length} 0`, all));
    // The masks come after the options, for the wrapper to put after `--args 4`.
    const masks = [
      { path: "/home/u/.ssh", directory: true, kind: "secret" as const },
      { path: "/run/app.sock", directory: false, kind: "socket" as const },
    ];
    const masked = backend.wrap(launch("/srv/ws"), policy({ masks }));
    assert.deepEqual(masked.args.slice(11), command);
    const groups = [
      ["6", "--perms", "0000", "--tmpfs", "/home/u/.ssh", "--remount-ro", "/home/u/.ssh"],
      ["3", "--ro-bind", MASK_FILE, "/run/app.sock"],
    ];
    assert.equal(
      new TextDecoder().decode(masked.input),
      sized(`0 ${all.length} 2`, [...all, ...groups.flat()]),
    );
    // The masks kept go after the options, on the same descriptor.
    assert.match(script!, /exec 4< <\(printf "%s\\0" "\$\{o\[@\]\}" "\$\{v\[@\]\}"\)/);
    assert.match(script!, /set -- "\$1" --args 4 "\$\{@:2\}"/);
    const open = backend.wrap(launch("/srv/ws"), policy({ network: "allow" })).args[7]!;
    assert.deepEqual(bytes(open), [...seccompFilter({ denyIpc: true })!]);
    // The wrapper, setsid and bwrap run unconfined with no environment at all.
    assert.deepEqual(wrapped.env, {});
    assert.deepEqual(backend.enforcement(policy({})), {
      filesystem: "full",
      network: "full",
      gaps: [],
    });
    assert.deepEqual(backend.enforcement(policy({ unixSockets: true })).gaps, [LATE_SOCKETS_GAP]);
    assert.deepEqual(backend.enforcement(policy({ network: "allow" })).gaps, []);
  });

  it("starts a standby with no rc file and no environment, its command in bwrap's options", {
    skip,
  }, () => {
    assert.ok(!("reason" in backend));
    const bashLaunch = { ...launch("/srv/ws"), args: ["--norc", "--noprofile", "-c", "echo hi"] };
    const standby = backend.standby!(bashLaunch, policy({}))!;
    const prepared = standby.prepare(["/cg/1/cgroup.procs"]);
    // It execs bwrap as it starts, before any call's runners are vetted: vetted at its start.
    assert.deepEqual(standby.runs, [findOnPath("bwrap", process.env.PATH)]);
    // A bash whose stdin is a socket (Node's piped stdin) reads ~/.bashrc without --norc.
    assert.deepEqual(prepared.args.slice(0, 4), ["--norc", "--noprofile", "-p", "-c"]);
    assert.deepEqual(prepared.env, {});
    // bwrap, exec'd before the call, reads its options to the end: the input is nothing else.
    const input = new TextDecoder().decode(standby.input({ fileSizeBytes: 4096 }));
    assert.ok(input.startsWith("--seccomp\u00003\u0000--ro-bind\u0000"), input.slice(0, 40));
    assert.ok(input.endsWith("\0"), "every option NUL-terminated");
    // The command and its rlimits, for the reporter inside, after the environment's --clearenv.
    const options = input.split("\0");
    const at = options.indexOf(STANDBY_COMMAND_VARIABLE);
    assert.ok(at > options.indexOf("--clearenv"), "set after the environment is cleared");
    assert.deepEqual(options.slice(at - 1, at + 5), [
      "--setenv",
      STANDBY_COMMAND_VARIABLE,
      "echo hi",
      "--setenv",
      STANDBY_LIMITS_VARIABLE,
      "-f 4 4 --",
    ]);
    assert.equal(
      backend.standby!(
        { ...bashLaunch, args: ["--norc", "--noprofile", "-c", "a\0b"] },
        policy({}),
      ),
      undefined,
      "a NUL would end its option: such a command starts cold",
    );
    for (const name of [STANDBY_COMMAND_VARIABLE, STANDBY_LIMITS_VARIABLE]) {
      assert.equal(
        backend.standby!({ ...bashLaunch, env: { [name]: "mine" } }, policy({})),
        undefined,
        `a caller's ${name} would be taken and unset by the reporter: such a call starts cold`,
      );
    }
    // The masks whose path is there when the input is made, last among the options.
    const masks = [
      { path: "/nonexistent/.ssh", directory: true, kind: "secret" as const },
      { path: "/tmp", directory: true, kind: "secret" as const },
    ];
    const masked = new TextDecoder().decode(
      backend.standby!(bashLaunch, policy({ masks }))!.input({}),
    );
    assert.ok(
      masked.endsWith(`\0--\0${maskGroups(policy({ masks }))[1]!.join("\0")}\0`),
      masked.slice(-120),
    );
    assert.ok(!masked.includes("/nonexistent/.ssh"), "a mask whose path is gone is dropped");
    assert.equal(
      backend.standby!(
        { ...bashLaunch, args: ["--norc", "--noprofile", "-c", "x", "y"] },
        policy({}),
      ),
      undefined,
      "a command in pieces starts cold",
    );
  });

  it("applies the command's limits in the same shell, before bwrap starts", { skip }, () => {
    assert.ok(!("reason" in backend));
    const limits = {
      rlimits: { fileSizeBytes: 4096, cpuSeconds: 5 },
      cgroupProcs: ["/cg/1/procs"],
    };
    const wrapped = backend.wrap(launch("/srv/ws"), policy({}), limits);
    const [, , , , script, , ...rest] = wrapped.args;
    assert.ok(script!.startsWith(APPLY_LIMITS), "the limits first, then the descriptors");
    assert.deepEqual(
      rest.slice(0, rest.indexOf("--") + 1),
      limitArgs(limits.rlimits, ["/cg/1/procs"]),
    );
    assert.equal(rest[rest.indexOf("--") + 2], "");
    assert.equal(rest[rest.indexOf("--") + 3], "--input");
    assert.match(rest[rest.indexOf("--") + 4]!, /\/bwrap$/);
  });

  it("with a report file, opens it outside and runs the launch under the reporter inside", {
    skip,
  }, () => {
    assert.ok(!("reason" in backend));
    const wrapped = backend.wrap(launch("/srv/ws"), policy({ strayReport: "/p/strays-1" }));
    const [, , , , script, , , , report] = wrapped.args;
    assert.equal(report, "/p/strays-1");
    assert.match(script!, /exec 9>>"\$1"/);
    const inside = wrapped.args.slice(wrapped.args.lastIndexOf("--") + 1);
    const [bash, norc, noprofile, privileged, c, reporter, name, ...command] = inside;
    assert.deepEqual([bash, norc, noprofile, privileged, c, name], [
      "/usr/bin/bash",
      "--norc",
      "--noprofile",
      "-p",
      "-c",
      "shellseam-strays",
    ]);
    // The command's own shell runs with the report descriptor closed.
    assert.match(reporter!, /"\$@" 9>&-/);
    assert.deepEqual(command, [launch("/srv/ws").program, ...launch("/srv/ws").args]);
    const bashLaunch = { ...launch("/srv/ws"), args: ["--norc", "--noprofile", "-c", "echo hi"] };
    // A standby opens its own report file before its call: named after its pid, in the
    // private folder it is given last.
    const standby = backend.standby!(bashLaunch, policy({ strayReport: "/p/strays-2" }))!;
    const prepared = standby.prepare([]).args;
    assert.deepEqual(prepared.slice(-2), [OWN.privateDir, ""]);
    assert.equal(standby.strayReport?.(42), join(OWN.privateDir, "strays-standby-42"));
    assert.ok(!new TextDecoder().decode(standby.input({})).includes("/p/strays-2"));
    // Its reporter takes the command from bwrap's options, then is the reporter.
    assert.equal(prepared.at(-3), STANDBY_REPORTER);
    assert.ok(STANDBY_REPORTER.endsWith(reporter!));
    // Set up ahead, its reporter takes the command (and its marker) from its stdin, and bwrap
    // its options, the same but for them.
    const setUp = standby.setUp!();
    const ahead = setUp.prepare([]);
    assert.deepEqual(ahead.args.slice(-3), [SET_UP_REPORTER, OWN.privateDir, setUp.file]);
    assert.ok(SET_UP_REPORTER.endsWith(reporter!));
    const marked = backend.standby!(
      { ...bashLaunch, env: { ...bashLaunch.env, SHELLSEAM_WATCHDOG: "t.7" } },
      policy({ strayReport: "/p/strays-3" }),
    )!
      .setUp!();
    assert.equal(marked.options, setUp.options, "the marker is no option");
    assert.equal(
      new TextDecoder().decode(marked.input({ fileSizeBytes: 1024 })),
      `${limitArgs({ fileSizeBytes: 1024 }).join(" ")}\0t.7\0echo hi\0`,
    );
    // bwrap's options in a file of the private folder, the host's alone; nothing on stdin.
    assert.equal(dirname(setUp.file), OWN.privateDir);
    assert.ok(basename(setUp.file).startsWith(OPTIONS_FILE_PREFIX));
    assert.equal(readFileSync(setUp.file, "utf8"), setUp.options);
    assert.equal(statSync(setUp.file).mode & 0o777, 0o600);
    assert.ok(!setUp.options.includes("echo hi"), "its options alone");
    assert.equal(ahead.input, undefined);
    assert.notEqual(marked.file, setUp.file, "a file of its own for each standby");
    rmSync(setUp.file);
  });

  it("sets up a standby ahead from its options file, and fails before anything runs without it", {
    skip,
  }, () => {
    using workspace = tempWorkspace();
    const folders = { privateDir: workspace.base, tmpDir: join(workspace.base, "tmp") };
    mkdirSync(folders.tmpDir);
    const local = createBwrapBackend(process.env.PATH, folders);
    assert.ok(!("reason" in local));
    const setUp = () =>
      local.standby!(
        { ...launch(workspace.root), args: ["--norc", "--noprofile", "-c", "echo ran; pwd"] },
        policy({ workspaceRoot: workspace.root }),
      )!.setUp!();
    const ready = setUp();
    const ran = runLaunch({ ...ready.prepare([]), input: ready.input({}) });
    assert.equal(ran.stdout, `\u0006ran\n${workspace.root}\n`, ran.stderr);
    rmSync(ready.file);
    // Gone before the standby opened it (an unconfined command's removal, or the host's).
    const gone = setUp();
    const prepared = gone.prepare([]);
    rmSync(gone.file);
    const failed = runLaunch({ ...prepared, input: gone.input({}) });
    assert.equal(failed.status, 125, failed.stderr);
    assert.match(failed.stderr, /^shellseam-bwrap: cannot open the options /);
    assert.equal(failed.stdout, "");
    // A launch that cannot be made (its filter's file can be written no more) leaves no options.
    const unmade = setUp();
    const filter = join(folders.privateDir, "seccomp-none.bpf");
    rmSync(filter);
    mkdirSync(join(filter, "in-the-way"), { recursive: true });
    assert.throws(() => unmade.prepare([]), /Cannot write the seccomp filter/);
    assert.ok(!existsSync(unmade.file));
  });

  it("hands the command its environment inside, never to the programs before it", { skip }, () => {
    assert.ok(!("reason" in backend));
    const hostile = Object.fromEntries(GLIBC_UNSECURE_ENV.map((name) => [name, "/ws/evil"]));
    const wrapped = backend.wrap({ ...launch("/srv/ws"), env: hostile }, policy({}));
    assert.deepEqual(wrapped.env, {});
    // On the wrapper's stdin, for bwrap's --args: never on a command line.
    const options = entriesOf(new TextDecoder().decode(wrapped.input));
    const setenv = options.flatMap((arg, index) =>
      arg === "--setenv" ? [`${options[index + 1]}=${options[index + 2]}`] : []
    );
    assert.ok(setenv.includes("LD_PRELOAD=/ws/evil"));
    assert.ok(setenv.includes(`TMPDIR=${TMP}`));
    assert.ok(options.indexOf("--clearenv") < options.indexOf("--setenv"));
    assert.ok(!wrapped.args.some((arg) => arg.includes("/ws/evil") || arg === "--setenv"));
    assert.deepEqual(backend.runnerFolders(), []);
  });

  it("really hides other executors' folders, shows its own, and races no folder's removal", {
    skip,
  }, () => {
    using workspace = tempWorkspace();
    const parent = join(workspace.base, "shellseam-u0");
    const own = join(parent, "shellseam-exec-own");
    const folders = { privateDir: own, tmpDir: join(own, "tmp") };
    for (const dir of [folders.tmpDir, join(parent, "shellseam-exec-other")]) {
      mkdirSync(dir, { recursive: true });
    }
    writeFileSync(join(own, "spill.out"), "own output");
    writeFileSync(join(parent, "shellseam-exec-other", "spill.out"), "another session's output");
    const args = bwrapArgs(
      {
        ...launch(workspace.root),
        program: "/bin/sh",
        args: ["-c", `ls -A "${parent}"; cat "${own}/spill.out"; touch "${parent}/x" 2>&1`],
      },
      policy({ workspaceRoot: workspace.root, hiddenParents: [parent] }),
      folders,
    );
    const result = spawnSync(findOnPath("bwrap", process.env.PATH)!, args, { encoding: "utf8" });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stdout, /^shellseam-exec-own\nown output.*Read-only file system\n$/s);
  });

  it("runs a launch whose masked paths went before bwrap started, masking those still there", {
    skip,
  }, () => {
    assert.ok(!("reason" in backend));
    using workspace = tempWorkspace();
    const secret = join(workspace.base, "secret");
    writeFileSync(secret, "SECRET");
    const maskFile = join(workspace.base, "mask");
    writeFileSync(maskFile, "");
    chmodSync(maskFile, 0);
    // A socket and a folder that were there when the launch was planned, and
    // went (their folder too) before it started: bwrap cannot make their
    // mount points in the read-only root, and would fail the whole launch.
    const gone = join(workspace.base, "gone");
    const masked = policy({
      workspaceRoot: workspace.root,
      maskFile,
      masks: [
        { path: join(gone, "peer.sock"), directory: false, kind: "socket" },
        { path: join(gone, "folder"), directory: true, kind: "secret" },
        { path: secret, directory: false, kind: "secret" },
      ],
    });
    const folders = { privateDir: workspace.base, tmpDir: join(workspace.base, "tmp") };
    mkdirSync(folders.tmpDir);
    const local = createBwrapBackend(process.env.PATH, folders);
    assert.ok(!("reason" in local));
    // By a relative path (the workdir is the workspace beside it), so that only
    // a mask could put the secret's path on bwrap's command line, which the
    // namespace's pid 1 (a copy of bwrap) shows every command.
    const command = 'cat ../secret; tr "\\0" " " </proc/1/cmdline; echo; echo ran';
    const bashLaunch = {
      ...launch(workspace.root),
      args: ["--norc", "--noprofile", "-c", command],
    };
    const cold = local.wrap(bashLaunch, masked);
    const standby = local.standby!(bashLaunch, masked)!;
    const launches = coldAndStandby(cold, standby);
    for (const [how, run] of launches) {
      const result = runLaunch(run);
      assert.equal(result.status, 0, `${how}: ${result.stderr}`);
      assert.ok(result.stdout.endsWith("ran\n"), `${how}: ${result.stdout}`);
      assert.match(result.stderr, /secret: Permission denied/, how);
      assert.doesNotMatch(result.stdout, /SECRET/, how);
      assert.match(result.stdout, /bwrap/, how);
      assert.ok(!result.stdout.includes(secret), `${how}: ${result.stdout}`);
    }
  });

  it(
    "without a filter (an unknown architecture) loads none and names the keyring gap",
    { skip },
    () => {
      const bare = createBwrapBackend(process.env.PATH, FOLDERS, "sparc");
      assert.ok(!("reason" in bare));
      const args = bare.wrap(launch("/srv/ws"), policy({})).args;
      assert.equal(args[7], "");
      assert.equal(args.includes("--seccomp"), false);
      assert.deepEqual(bare.enforcement(policy({ network: "allow" })).gaps, [
        "kernel keyrings not confined (no seccomp filter here)",
        "System V IPC, message queues and a private loopback allowed (no seccomp filter here)",
      ]);
      assert.deepEqual(bare.enforcement(policy({})).gaps, [
        "Unix sockets not confined",
        "kernel keyrings not confined (no seccomp filter here)",
        "System V IPC, message queues and a private loopback allowed (no seccomp filter here)",
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
    // The seccomp filter refuses IP sockets (EACCES), as under Landlock.
    assert.equal(denied(1, "bash: socket: Permission denied"), "network");
    assert.equal(denied(1, "bash: /dev/tcp/127.0.0.1/80: Permission denied"), "network");
    assert.equal(denied(1, "bash: connect: Permission denied", open), undefined);
    assert.equal(denied(1, "ipcmk: create share memory failed: Permission denied"), undefined);
    assert.equal(denied(1, "cat: /root/x: Permission denied"), undefined);
    // A Permission denied naming a file is the sandbox's at a mask, or for a
    // Unix socket it refuses.
    const masked = policy({
      masks: [
        { path: "/home/u/.ssh", directory: true, kind: "secret" },
        { path: "/run/app.sock", directory: false, kind: "socket" },
      ],
    });
    const secret = "cat: /home/u/.ssh/id: Permission denied";
    assert.equal(denied(1, secret, masked), "secret");
    assert.equal(denied(1, "cat: /etc/shadow: Permission denied", masked), undefined);
    assert.equal(denied(1, "Error: connect EACCES /run/app.sock", masked), "network");
    const node = "Error: connect EACCES /run/other.sock";
    assert.equal(denied(1, node), "network");
    assert.equal(denied(1, node, policy({ unixSockets: true })), undefined);
    assert.equal(denied(1, node, open), undefined);
    const python =
      "    _socket.socket.__init__(self, family)\nPermissionError: [Errno 13] Permission denied";
    assert.equal(denied(1, python), "network");
    // The first line with a signature decides.
    assert.equal(denied(1, "Connection refused\ntouch: x: Read-only file system"), "network");
    assert.equal(denied(1, "touch: x: Read-only file system\nConnection refused"), "filesystem");
  });
});

describe("bwrapSetupRaced", () => {
  it("is true only for bwrap's own failure at one of the policy's masks", () => {
    const masked = policy({
      masks: [{ path: "/tmp/app/peer.sock", directory: false, kind: "socket" }],
    });
    for (
      const line of [
        "bwrap: Can't mkdir parents for /tmp/app/peer.sock: Read-only file system",
        "bwrap: Can't create file at /tmp/app/peer.sock: Read-only file system",
        'bwrap: Can\'t bind mount /oldroot/run/mask on /newroot/tmp/app/peer.sock: Unable to find "/tmp/app/peer.sock" in mount table',
      ]
    ) {
      assert.equal(bwrapSetupRaced(`${line}\n`, masked), true, line);
    }
    // Another path, or the command's own words about the mask path.
    assert.equal(
      bwrapSetupRaced("bwrap: Can't create file at /srv/x: No such file", masked),
      false,
    );
    assert.equal(bwrapSetupRaced("cat: /tmp/app/peer.sock: Permission denied\n", masked), false);
    assert.equal(
      bwrapSetupRaced("bwrap: Can't create file at /tmp/app/peer.sock", policy({})),
      false,
    );
  });

  it("is true for bwrap's failure when a host mount came or went while it bound the root", () => {
    // As CI met it: a test's tmpfs unmounted while bwrap, as nobody, remounted the tree.
    const line = "bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: " +
      'remount "/newroot/tmp/shellseam-tmpfs-Ut9SnP": Invalid argument';
    assert.equal(bwrapSetupRaced(`${line}\n`, policy({})), true);
    // The command's own line, or bwrap's other failures, are no race.
    assert.equal(bwrapSetupRaced(`echo: ${line}\n`, policy({})), false);
    assert.equal(
      bwrapSetupRaced(
        "bwrap: Can't bind mount /oldroot/srv on /newroot/srv: Permission denied",
        policy({}),
      ),
      false,
    );
  });
});

describe("the bwrap backend's probe", () => {
  const backend = createBwrapBackend(process.env.PATH, OWN);
  const skip = "reason" in backend ? backend.reason : false;

  it("hands bwrap the executor's environment on stdin, never on a command line", { skip }, () => {
    assert.ok(!("reason" in backend));
    const secret = "probe-secret-value";
    const probe = backend.probeLaunch(
      { ...launch("/srv/ws"), env: { TOKEN: secret } },
      policy({}),
    );
    assert.equal(probe.args.some((arg) => arg.includes(secret)), false, probe.args.join(" "));
    assert.ok(new TextDecoder().decode(probe.input).includes(secret));
  });
});
