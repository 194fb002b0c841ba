// The real launchers, the Perl one run by the real perl and the Deno one by the real deno,
// through the local executor.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { LocalBashExecutor } from "../../../../local/mod.ts";
import { findDeno } from "../../../../sandbox/backends/landlock/_deno.ts";
import { findOnPath } from "../../../../engine/_session.ts";
import { cgroupSupport } from "../../../../engine/_cgroup_support.ts";
import { rlimitsToSet } from "../../../../engine/_limits.ts";
import { LAUNCH_STARTED } from "../../../../engine/_start.ts";
import { LAUNCHER_DENO_FLAGS } from "../../../../sandbox/backends/landlock/_landlock.ts";
import {
  landlockLauncherFile,
  landlockLauncherScript,
} from "../../../../sandbox/backends/landlock/_launcher_file.ts";
import {
  LAUNCHER_ABI_PREFIX,
  LAUNCHER_FAILURE_EXIT,
  LAUNCHER_FAILURE_PREFIX,
  LAUNCHER_INPUT_FLAG,
  LAUNCHER_STANDBY_FLAG,
  launcherInput,
  type LauncherRuntime,
  launcherText,
  standbyInput,
} from "../../../../sandbox/backends/landlock/_launcher_protocol.ts";
import {
  PERL_SELF_CHECK_FLAG,
  PERL_SELF_CHECK_PASSED,
  perlLauncherArgs,
  perlLauncherSource,
} from "../../../../sandbox/backends/landlock/_perl_launcher.ts";
import { AF_UNIX, seccompFilter } from "../../../../sandbox/backends/_seccomp.ts";
import {
  closeServer,
  listener,
  probeHere,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../../_fixtures.ts";

const deno = findDeno(process.env.PATH);
const perl = findOnPath("perl", process.env.PATH);
const statuses = await probeHere();
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

describe("the Landlock launcher script", () => {
  it("is standalone JavaScript carrying the shared prefixes", () => {
    const script = landlockLauncherScript();
    assert.doesNotThrow(() => new Function(script));
    assert.doesNotMatch(script, /\bimport\b|\brequire\(/);
    assert.ok(script.includes(`${LAUNCHER_FAILURE_PREFIX} `));
    assert.ok(script.includes(`${LAUNCHER_ABI_PREFIX} `));
    assert.ok(script.includes(`exit(${LAUNCHER_FAILURE_EXIT})`));
  });

  it("is written whole into the folder given, and again when it was changed or removed", () => {
    using folder = tempWorkspace();
    const path = landlockLauncherFile(folder.root);
    assert.equal(path, join(folder.root, "landlock-launcher.mjs"));
    assert.equal(readFileSync(path, "utf8"), landlockLauncherScript());
    writeFileSync(path, "Deno.exit(0);\n");
    assert.equal(landlockLauncherFile(folder.root), path);
    assert.equal(readFileSync(path, "utf8"), landlockLauncherScript());
    rmSync(path);
    landlockLauncherFile(folder.root);
    assert.equal(readFileSync(path, "utf8"), landlockLauncherScript());
    // No draft is left beside it.
    assert.deepEqual(readdirSync(folder.root), ["landlock-launcher.mjs"]);
  });

  it("throws when the file cannot be read", () => {
    using folder = tempWorkspace();
    mkdirSync(join(folder.root, "landlock-launcher.mjs"));
    assert.throws(() => landlockLauncherFile(folder.root), /EISDIR/);
  });
});

/** Why the `runtime` launcher cannot run here, or false. */
function skipFor(runtime: LauncherRuntime): string | false {
  if (runtime === "perl" && perl === null) return "perl is not installed here";
  if (runtime === "deno" && "reason" in deno) return deno.reason;
  return skipUnless(statuses, "landlock");
}

describe(
  "the Perl launcher",
  { skip: perl === null ? "perl is not installed here" : false },
  () => {
    it("loads no module, and compiles under strict and warnings", () => {
      const source = perlLauncherSource();
      assert.doesNotMatch(source, /^\s*(use|require|do)\b/m);
      const checked = spawnSync(perl ?? "perl", ["-Mstrict", "-Mwarnings", "-c", "-e", source], {
        encoding: "utf8",
        env: {},
      });
      assert.equal(checked.status, 0, checked.stderr);
      assert.equal(checked.stderr, "-e syntax OK\n");
    });

    it("passes its self-check here, with no environment", () => {
      const checked = spawnSync(perl ?? "perl", [...perlLauncherArgs(), PERL_SELF_CHECK_FLAG], {
        encoding: "utf8",
        env: {},
      });
      assert.equal(checked.status, 0, checked.stderr);
      assert.equal(checked.stdout, `${PERL_SELF_CHECK_PASSED}\n`);
    });
  },
);

for (const runtime of ["perl", "deno"] as const) {
  describe(`the ${runtime} Landlock launcher, run`, { skip: skipFor(runtime) }, () => {
    // Made in the running suite's before(): a skipped suite (or Deno's top-level
    // after(), which does not run then) would leave them behind.
    let launcher: string;
    let workspace: Workspace;
    let executor: LocalBashExecutor;
    const form = runtime === "deno" ? "JSON" : "a launcher record";

    /**
     * Runs the launcher with `args` (and `stdin`, if given); `shell` turns its
     * quoted command line into the bash command.
     */
    function launch(args: string[], options: {
      env?: Record<string, string>;
      shell?: (command: string) => string;
      stdin?: string | Uint8Array;
    } = {}) {
      const { env = {}, shell = (command) => `exec ${command}`, stdin } = options;
      const runner = runtime === "perl"
        ? [perl ?? "perl", ...perlLauncherArgs()]
        : ["reason" in deno ? "deno" : deno.path, ...LAUNCHER_DENO_FLAGS, launcher];
      const command = [...runner, ...args].map(quote).join(" ");
      return executor.run(
        executor.resolve({
          command: shell(command),
          env,
          ...(stdin === undefined ? {} : { stdin }),
        }),
      );
    }

    /** A policy that lets nothing but /dev/null be written, with `extra` fields. */
    const bare = (extra: object = {}) =>
      launcherText(runtime, {
        readPaths: ["/"],
        writeDirs: [],
        writeFiles: ["/dev/null"],
        network: "deny",
        envEntries: 0,
        ...extra,
      });

    /** A policy that lets the workspace be written, with `extra` fields. */
    const policy = (extra: object = {}) => bare({ writeDirs: [workspace.root], ...extra });

    before(() => {
      workspace = tempWorkspace();
      launcher = landlockLauncherFile(workspace.base);
      executor = new LocalBashExecutor({ cwd: workspace.root });
    });
    after(async () => {
      await executor[Symbol.asyncDispose]();
      workspace[Symbol.dispose]();
    });

    it("restricts itself, then execs the program with its arguments and the environment it was given", async () => {
      const result = await launch(
        [
          policy({ reportAbi: true, envEntries: 2 }),
          "GREETING=hi there",
          "EMPTY=",
          "/usr/bin/bash",
          "-c",
          'printf "%s|" "$@" "$GREETING" "${EMPTY-unset}" "${AMBIENT-unset}"; echo > inside.txt',
          "argv0",
          "two words",
          "ü",
        ],
        // Deno's own environment never reaches the command.
        { env: { AMBIENT: "leaked" } },
      );
      assert.equal(result.exitCode, 0, result.stderr.text);
      const [abiLine, out] = result.stdout.text.split("\n");
      assert.match(abiLine!, new RegExp(`^${LAUNCHER_ABI_PREFIX} [1-9]\\d*$`));
      assert.equal(out, "two words|ü|hi there||unset|");
      assert.equal(readFileSync(join(workspace.root, "inside.txt"), "utf8"), "\n");
    });

    it("the command runs with no capabilities, no new privileges and the default SIGPIPE action", async () => {
      const result = await launch([
        policy(),
        "/usr/bin/bash",
        "-c",
        "grep -E '^(NoNewPrivs|SigIgn|Cap)' /proc/self/status",
      ]);
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.match(result.stdout.text, /NoNewPrivs:\s+1/);
      // Only root can (and must) empty the bounding set.
      const root = process.getuid?.() === 0;
      for (const set of ["CapPrm", "CapEff", "CapAmb", ...(root ? ["CapInh", "CapBnd"] : [])]) {
        assert.match(result.stdout.text, new RegExp(`${set}:\\s+0+\n`), `${set} is not empty`);
      }
      const ignored = BigInt(`0x${/SigIgn:\s+([0-9a-f]+)/.exec(result.stdout.text)![1]}`);
      assert.equal(ignored & (1n << 12n), 0n, "SIGPIPE is ignored in the command");
    });

    it("the command ignores no signal that a plain spawn here does not (perl ignores SIGFPE)", async () => {
      const status = "grep '^SigIgn:' /proc/self/status";
      const ignoredIn = (text: string) => BigInt(`0x${/SigIgn:\s+([0-9a-f]+)/.exec(text)![1]}`);
      const plain = await executor.run(executor.resolve({ command: status }));
      const launched = await launch([policy(), "/usr/bin/bash", "-c", status]);
      assert.equal(launched.exitCode, 0, launched.stderr.text);
      const extra = ignoredIn(launched.stdout.text) & ~ignoredIn(plain.stdout.text);
      assert.equal(
        extra.toString(16),
        "0",
        "signals ignored in the command alone (bit n - 1: signal n)",
      );
      // A signal sent to it acts: a shell does not undo what it was started ignoring.
      const killed = await launch([policy(), "/usr/bin/bash", "-c", "kill -FPE $$; echo survived"]);
      assert.deepEqual([killed.signal, killed.stdout.text], ["SIGFPE", ""], killed.stderr.text);
    });

    it("inheritable capabilities of its parent do not reach the command", {
      skip: process.getuid?.() !== 0 || findOnPath("setpriv", process.env.PATH) === null
        ? "needs root and util-linux setpriv to give the launcher an inheritable capability"
        : false,
    }, async () => {
      const result = await launch([policy(), "/usr/bin/grep", "^Cap", "/proc/self/status"], {
        shell: (command) => `exec setpriv --inh-caps +net_raw ${command}`,
      });
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.match(result.stdout.text, /^CapInh:\s+0+$/m);
      assert.match(result.stdout.text, /^CapAmb:\s+0+$/m);
    });

    it("installs the seccomp filter it is given, and none otherwise", async () => {
      const status = "grep '^Seccomp:' /proc/self/status";
      const filtered = await launch([
        policy({ seccompFilter: [...seccompFilter({ socketFamilies: [AF_UNIX] })!] }),
        "/usr/bin/bash",
        "-c",
        `${status}; exec 3<>/dev/tcp/127.0.0.1/9 || echo refused`,
      ]);
      assert.match(filtered.stdout.text, /^Seccomp:\s+2\nrefused\n$/);
      assert.match(filtered.stderr.text, /Permission denied/);
      const plain = await launch([policy(), "/usr/bin/bash", "-c", status]);
      assert.match(plain.stdout.text, /^Seccomp:\s+0\n$/);
    });

    it("with the network denied, Landlock alone refuses a TCP connect (ABI >= 4)", {
      skip: (statuses.landlock.landlockAbi ?? 0) < 4
        ? "this kernel's Landlock ABI is below 4"
        : false,
    }, async () => {
      const { port, accepted, server } = await listener();
      try {
        const connect = [
          "/usr/bin/bash",
          "-c",
          `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
        ];
        const denied = await launch([policy(), ...connect]);
        assert.equal(denied.stdout.text, "");
        assert.match(denied.stderr.text, /Permission denied/);
        assert.equal(accepted(), 0);
        const allowed = await launch([policy({ network: "allow" }), ...connect]);
        assert.equal(allowed.stdout.text, "connected\n", allowed.stderr.text);
      } finally {
        await closeServer(server);
      }
    });

    it("descriptors inherited without close-on-exec do not reach the command", async () => {
      const outside = join(workspace.base, "outside.txt");
      const result = await launch([policy(), "/usr/bin/ls", "/proc/self/fd"], {
        shell: (command) => `exec 7>>${quote(outside)} && exec ${command}`,
      });
      assert.equal(result.exitCode, 0, result.stderr.text);
      // ls lists 0-2 and the descriptor it reads the directory through.
      assert.deepEqual(result.stdout.text.trim().split("\n"), ["0", "1", "2", "3"]);
    });

    it("as root, hides folders under an empty read-only tmpfs, and skips one that is gone", {
      skip: process.getuid?.() === 0 ? false : "only root may mount the read-only view",
    }, async () => {
      const hidden = join(workspace.base, "hidden");
      mkdirSync(hidden, { recursive: true });
      writeFileSync(join(hidden, "secret"), "s");
      const gone = join(workspace.base, "gone");
      const result = await launch([
        policy({ writableMounts: [workspace.root], hiddenMounts: [hidden, gone] }),
        "/usr/bin/bash",
        "-c",
        `ls -A '${hidden}'; touch '${hidden}/x' 2>&1 | grep -c 'Read-only'`,
      ]);
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, "1\n");
      assert.equal(readFileSync(join(hidden, "secret"), "utf8"), "s");
    });

    it("sets the rlimits it is given right before the exec, soft then hard, in bytes", async () => {
      const rlimits = rlimitsToSet({
        processes: 300,
        memoryBytes: 3 * 1024 ** 3,
        cpuSeconds: 7,
        fileSizeBytes: 10_000,
      });
      const result = await launch([
        policy({ rlimits }),
        "/usr/bin/bash",
        "-c",
        "for flag in u d t f; do echo $(ulimit -S$flag) $(ulimit -H$flag); done; " +
        "head -c 20000 /dev/zero > out.bin; ulimit -f unlimited || echo refused",
      ]);
      // CPU time gets a hard limit a second above the soft one; the file is
      // cut at 10,000 bytes (which ulimit shows as 9 whole KiB).
      assert.equal(
        result.stdout.text,
        `300 300\n${3 * 1024 ** 2} ${3 * 1024 ** 2}\n7 8\n9 9\nrefused\n`,
        result.stderr.text,
      );
      assert.equal(readFileSync(join(workspace.root, "out.bin")).length, 10_000);
    });

    it("leaves a stricter rlimit in force, as ulimit does", async () => {
      const result = await launch([
        policy({ rlimits: rlimitsToSet({ fileSizeBytes: 1024 ** 2, cpuSeconds: 7 }) }),
        "/usr/bin/bash",
        "-c",
        "echo $(ulimit -Sf) $(ulimit -Hf) $(ulimit -St) $(ulimit -Ht)",
      ], { shell: (command) => `ulimit -f 50 && ulimit -St 5 && exec ${command}` });
      // A soft limit above the hard one in force is refused, and a hard one
      // above it too (capabilities are gone by then, root's included); a
      // lower soft limit in force is raised to the one asked for.
      assert.equal(result.stdout.text, "50 50 7 8\n", result.stderr.text);
    });

    it("joins the cgroups it is given before the command runs", {
      skip: "unavailable" in cgroupSupport().processes
        ? "no cgroup this process can make for processes here"
        : false,
    }, async () => {
      const found = cgroupSupport().processes;
      assert.ok("dir" in found);
      const cgroup = join(found.dir, `shellseam-launcher-test-${process.pid}`);
      mkdirSync(cgroup);
      try {
        // The command's children too: cat is a child of the command's bash.
        const result = await launch([
          policy({ cgroupProcs: [join(cgroup, "cgroup.procs")] }),
          "/usr/bin/bash",
          "-c",
          "cat /proc/self/cgroup",
        ]);
        assert.equal(result.exitCode, 0, result.stderr.text);
        assert.match(
          result.stdout.text,
          new RegExp(`/shellseam-launcher-test-${process.pid}$`, "m"),
        );
      } finally {
        rmdirSync(cgroup);
      }
    });

    it("denies a write outside the writable paths", async () => {
      const result = await launch([
        policy(),
        "/usr/bin/bash",
        "-c",
        `echo > ${quote(join(workspace.base, "out.txt"))}`,
      ]);
      assert.equal(result.exitCode, 1);
      assert.match(result.stderr.text, /Permission denied/);
    });

    it("keeps the unreadable paths unreadable, and reads and lists around them", async () => {
      const dir = join(workspace.base, "around");
      mkdirSync(join(dir, "keys"), { recursive: true });
      writeFileSync(join(dir, "keys", "id"), "secret");
      writeFileSync(join(dir, "token"), "secret");
      writeFileSync(join(dir, "plain"), "plain");
      const result = await launch([
        policy({ unreadable: [join(dir, "keys"), join(dir, "token")] }),
        "/usr/bin/bash",
        "-c",
        `cd ${quote(dir)}; cat plain; echo; ls; cat keys/id token; ls / > /dev/null && echo root`,
      ]);
      assert.equal(result.stdout.text, "plain\nkeys\nplain\ntoken\nroot\n", result.stderr.text);
      assert.equal(result.stderr.text.match(/Permission denied/g)?.length, 2, result.stderr.text);
    });

    it("masks paths in a private mount namespace, skipping one that is gone, as root only", {
      skip: process.getuid?.() === 0 ? false : "only root gets the mount namespace here",
    }, async () => {
      const dir = join(workspace.base, "masked");
      mkdirSync(join(dir, "keys"), { recursive: true });
      writeFileSync(join(dir, "keys", "id"), "secret");
      writeFileSync(join(dir, "token"), "secret");
      const file = join(workspace.base, "mask-file");
      writeFileSync(file, "");
      chmodSync(file, 0);
      const result = await launch([
        policy({
          writableMounts: [workspace.root],
          masks: [
            { path: join(dir, "keys") },
            { path: join(dir, "token"), source: file },
            // Listed at launch, gone since (a socket whose server quit): skipped, not a failure.
            { path: join(dir, "gone.sock"), source: file },
          ],
        }),
        "/usr/bin/bash",
        "-c",
        `cd ${quote(dir)}; ls keys; cat keys/id token; chmod 700 keys; ls -d keys`,
      ]);
      assert.equal(result.stdout.text, "keys\n", result.stderr.text);
      const lines = result.stderr.text.trim().split("\n");
      assert.equal(
        lines.filter((line) => /Permission denied/.test(line)).length,
        3,
        lines.join("\n"),
      );
      assert.match(lines.at(-1)!, /Read-only file system/);
    });

    it("refuses an architecture whose system call numbers it does not know, and runs nothing", {
      skip: runtime === "deno" ? false : "the Deno launcher's own: its architecture can be faked",
    }, async () => {
      // The same script, told by a Deno namespace of its own that it runs on riscv64.
      const script = "Object.defineProperty(globalThis, 'Deno', { value: { ...Deno, " +
        "args: Deno.args, build: { ...Deno.build, arch: 'riscv64' } } });\n" +
        landlockLauncherScript();
      const url = `data:application/javascript;base64,${btoa(script)}`;
      const path = "reason" in deno ? "deno" : deno.path;
      const command = [path, ...LAUNCHER_DENO_FLAGS, url, bare(), "/usr/bin/touch", "ran"]
        .map(quote).join(" ");
      const result = await executor.run(executor.resolve({ command }));
      assert.equal(result.exitCode, LAUNCHER_FAILURE_EXIT, result.stderr.text);
      assert.equal(
        result.stderr.text,
        `${LAUNCHER_FAILURE_PREFIX} no system call numbers for "riscv64" (x86_64 and aarch64 ` +
          "only); use the bwrap backend\n",
      );
      assert.equal(existsSync(join(workspace.root, "ran")), false);
    });

    it("moves its exec'ing thread by a v1 tasks file, else its whole process by cgroup.procs", async () => {
      // Plain files stand in for the cgroups: what the launcher writes shows how it joins.
      const v1 = join(workspace.base, "v1-cgroup");
      const v2 = join(workspace.base, "v2-cgroup");
      for (const dir of [v1, v2]) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "cgroup.procs"), "");
      }
      writeFileSync(join(v1, "tasks"), "");
      const result = await launch([
        policy({ cgroupProcs: [join(v1, "cgroup.procs"), join(v2, "cgroup.procs")] }),
        "/usr/bin/bash",
        "-c",
        "echo $$",
      ]);
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(readFileSync(join(v1, "tasks"), "utf8"), "0");
      assert.equal(readFileSync(join(v1, "cgroup.procs"), "utf8"), "");
      // The command is the launcher's process, exec'd.
      assert.equal(readFileSync(join(v2, "cgroup.procs"), "utf8"), result.stdout.text.trim());
    });

    it(`exits ${LAUNCHER_FAILURE_EXIT} and runs nothing when it cannot join a cgroup`, async () => {
      const file = join(workspace.base, "no-cgroup", "cgroup.procs");
      const result = await launch([
        policy({ cgroupProcs: [file] }),
        "/usr/bin/touch",
        join(workspace.root, "ran"),
      ]);
      assert.equal(result.exitCode, LAUNCHER_FAILURE_EXIT);
      assert.equal(
        result.stderr.text,
        `${LAUNCHER_FAILURE_PREFIX} could not move the command into the cgroup of "${file}" ` +
          "(ENOENT), so it was not run\n",
      );
      assert.equal(existsSync(join(workspace.root, "ran")), false);
    });

    it(`exits ${LAUNCHER_FAILURE_EXIT} with a prefixed message when it throws`, {
      skip: runtime === "deno" ? false : "the Deno launcher's own: a JSON null throws there",
    }, async () => {
      // A JSON policy that is not an object throws on its first field.
      const result = await launch(["null", "/usr/bin/touch", "ran"]);
      assert.equal(result.exitCode, LAUNCHER_FAILURE_EXIT, result.stderr.text);
      assert.match(result.stderr.text, new RegExp(`^${LAUNCHER_FAILURE_PREFIX} TypeError: `));
      assert.equal(existsSync(join(workspace.root, "ran")), false);
    });

    for (
      const [name, args, message] of [
        [
          "no arguments",
          [],
          `usage: <policy ${
            runtime === "deno" ? "JSON" : "record"
          }> [NAME=value...] <program> [args...]`,
        ],
        [
          `a policy that is not ${form}`,
          ["{nope", "/bin/true"],
          `the policy argument is not ${form}`,
        ],
        [
          "a policy without an environment count",
          [launcherText(runtime, {}), "/bin/true"],
          "the policy's envEntries must count the NAME=value arguments",
        ],
        [
          "more environment entries than arguments",
          [bare({ envEntries: 1 }), "/bin/true"],
          "the policy's envEntries must count the NAME=value arguments",
        ],
        [
          "an environment entry without a name",
          [bare({ envEntries: 1 }), "=x", "/bin/true"],
          "every environment argument must be NAME=value",
        ],
        [
          "a policy without its path lists",
          [launcherText(runtime, { envEntries: 0 }), "/bin/true"],
          "the policy needs readPaths, writeDirs and writeFiles, each a list of paths",
        ],
        ["a writable path that does not exist", [
          bare({ writeDirs: ["/nonexistent-shellseam"] }),
          "/bin/true",
        ], 'cannot open "/nonexistent-shellseam" without following a symlink ('],
        ["a writable path reached through a symlink", [
          bare({ writeDirs: ["/proc/self/cwd"] }),
          "/bin/true",
        ], 'cannot open "/proc/self/cwd" without following a symlink ('],
        ["a seccomp filter that is not bytes", [
          bare({ seccompFilter: [1, 2, 3] }),
          "/bin/true",
        ], "the policy's seccompFilter must be a list of bytes, 8 per instruction"],
        ["masks without a mount namespace", [
          bare({ masks: [{ path: "/etc/hostname" }] }),
          "/bin/true",
        ], "the policy's masks need writableMounts (a private mount namespace)"],
        ["masks that are not paths", [
          bare({ masks: [{ path: 1 }] }),
          "/bin/true",
        ], "the policy's masks must be a list of { path, source? }"],
        ["cgroupProcs that are not paths", [
          bare({ cgroupProcs: "/sys/fs/cgroup/cgroup.procs" }),
          "/bin/true",
        ], "the policy's cgroupProcs must be a list of paths"],
        ["rlimits that are not whole numbers", [
          bare({ rlimits: [{ resource: 1, soft: 1.5, hard: 2 }] }),
          "/bin/true",
        ], "the policy's rlimits must be a list of { resource, soft, hard }, whole numbers"],
        [
          "a program that does not exist",
          [bare(), "/nonexistent-shellseam"],
          'execve of "/nonexistent-shellseam" failed (',
        ],
      ] as const
    ) {
      it(`exits ${LAUNCHER_FAILURE_EXIT} with a prefixed message for ${name}`, async () => {
        const result = await launch([...args]);
        assert.equal(result.exitCode, LAUNCHER_FAILURE_EXIT);
        assert.ok(
          result.stderr.text.startsWith(`${LAUNCHER_FAILURE_PREFIX} ${message}`),
          result.stderr.text,
        );
      });
    }

    for (
      const [name, text] of [
        ["a string past the end", "s99:x"],
        ["bytes after the record", "dex"],
        ["an unended record", "ds8:readPathsls1:/e"],
        ["a field name that is no string", "dn1;te"],
        ["a field without a value", "ds1:ae"],
        ["a number that is no number", "ds10:envEntriesn0e"],
        ["an unknown tag", "q"],
        ["records nested too deep", `${"l".repeat(40)}${"e".repeat(40)}`],
      ] as const
    ) {
      it(`refuses ${name} with the failure prefix, and runs nothing`, {
        skip: runtime === "perl" ? false : "the Perl launcher's own: the Deno launcher reads JSON",
      }, async () => {
        const ran = join(workspace.root, "ran");
        const direct = await launch([text, "/usr/bin/touch", ran]);
        assert.equal(direct.exitCode, LAUNCHER_FAILURE_EXIT);
        assert.equal(
          direct.stderr.text,
          `${LAUNCHER_FAILURE_PREFIX} the policy argument is not a launcher record\n`,
        );
        const handed = await launch([LAUNCHER_INPUT_FLAG], {
          stdin: `${new TextEncoder().encode(text).length}\n${text}`,
        });
        assert.equal(handed.exitCode, LAUNCHER_FAILURE_EXIT);
        assert.equal(
          handed.stderr.text,
          `${LAUNCHER_FAILURE_PREFIX} its input must be a length line and { args, keepStdin } (a launcher record)\n`,
        );
        assert.equal(existsSync(ran), false);
      });
    }

    it("with --input, reads its arguments from stdin and leaves the rest to the command", async () => {
      const args = (keep: boolean) =>
        launcherInput(runtime, [
          policy({ envEntries: 1 }),
          "GREETING=from stdin",
          "/usr/bin/bash",
          "-c",
          'echo "$GREETING"; readlink /proc/self/fd/0 | sed "s/:.*//"; cat',
        ], keep);
      const rest = new TextEncoder().encode("the command's own stdin\n");
      const kept = await launch([LAUNCHER_INPUT_FLAG], {
        stdin: new Uint8Array([...args(true), ...rest]),
        env: { GREETING: "leaked" },
      });
      assert.equal(kept.exitCode, 0, kept.stderr.text);
      // A pipe under Deno, a socket under Node: the executor's stdin, not /dev/null.
      assert.match(kept.stdout.text, /^from stdin\n(pipe|socket)\nthe command's own stdin\n$/);
      const dropped = await launch([LAUNCHER_INPUT_FLAG], {
        stdin: new Uint8Array([...args(false), ...rest]),
      });
      assert.equal(dropped.exitCode, 0, dropped.stderr.text);
      assert.equal(dropped.stdout.text, "from stdin\n/dev/null\n");
    });

    for (
      const [name, stdin] of [
        ["no input", ""],
        ["no length line", launcherText(runtime, { args: [], keepStdin: false })],
        ["fewer bytes than its length says", `100\n${launcherText(runtime, { args: [] })}`],
        [`input that is not ${form}`, "5\n{nope"],
        [
          "no keepStdin",
          `${launcherText(runtime, { args: [] }).length}\n${launcherText(runtime, { args: [] })}`,
        ],
      ] as const
    ) {
      it(`with --input, exits ${LAUNCHER_FAILURE_EXIT} for ${name}`, async () => {
        const result = await launch([LAUNCHER_INPUT_FLAG], { stdin });
        assert.equal(result.exitCode, LAUNCHER_FAILURE_EXIT);
        assert.ok(
          result.stderr.text.startsWith(
            `${LAUNCHER_FAILURE_PREFIX} its input must be a length line and { args, keepStdin } (${form})`,
          ),
          result.stderr.text,
        );
      });
    }

    it("as a standby, joins its cgroups, then runs the launch read from stdin in its cwd", async () => {
      const cgroup = join(workspace.base, "standby-cgroup");
      mkdirSync(cgroup);
      writeFileSync(join(cgroup, "cgroup.procs"), "");
      writeFileSync(join(cgroup, "tasks"), "");
      const dir = join(workspace.root, "standby-cwd");
      mkdirSync(dir);
      const outside = join(workspace.base, "standby-outside");
      const input = {
        cwd: dir,
        args: [
          policy({ envEntries: 1 }),
          "GREETING=hi",
          "/usr/bin/bash",
          "-c",
          'echo "$PWD $GREETING $1"; readlink /proc/self/fd/0; echo > inside.txt; ' +
          `echo > ${quote(outside)} || echo denied`,
          "argv0",
          "one\nline",
        ],
      };
      const result = await launch([LAUNCHER_STANDBY_FLAG, join(cgroup, "cgroup.procs")], {
        stdin: standbyInput(runtime, input.cwd, input.args),
        env: { GREETING: "leaked" },
      });
      assert.equal(result.exitCode, 0, result.stderr.text);
      // It says it runs the launch (LAUNCH_STARTED) before the command's first byte. The
      // command's stdin is /dev/null, not the pipe it was handed its launch on.
      assert.equal(
        result.stdout.text,
        `${String.fromCharCode(LAUNCH_STARTED)}${dir} hi one\nline\n/dev/null\ndenied\n`,
      );
      assert.equal(readFileSync(join(cgroup, "tasks"), "utf8"), "0");
      assert.ok(existsSync(join(dir, "inside.txt")));
      assert.equal(existsSync(outside), false, "Landlock held the standby's command too");
    });

    for (
      const [name, stdin, procs, message] of [
        ["no input", "", [], `the standby got no launch: its input is not ${form}`],
        [
          `an input that is not ${form}`,
          "{nope",
          [],
          `the standby got no launch: its input is not ${form}`,
        ],
        [
          "an input without a cwd",
          launcherText(runtime, { args: [] }),
          [],
          "the standby's input must be { cwd, args }: a path and a list of strings",
        ],
        [
          "a cwd that does not exist",
          launcherText(runtime, { cwd: "/nonexistent-shellseam", args: [] }),
          [],
          'cannot enter the working directory "/nonexistent-shellseam" (ENOENT)',
        ],
        [
          "a NUL byte in an environment entry",
          launcherText(runtime, {
            cwd: "/",
            args: [bare({ envEntries: 1 }), "A=x\0B=y", "/bin/true"],
          }),
          [],
          "no environment entry, program or argument may hold a NUL byte",
        ],
        [
          "a cgroup it cannot join (before its input is read)",
          "{nope",
          ["/nonexistent-shellseam/cgroup.procs"],
          'could not move the command into the cgroup of "/nonexistent-shellseam/cgroup.procs"',
        ],
      ] as const
    ) {
      it(`as a standby, exits ${LAUNCHER_FAILURE_EXIT} for ${name}`, async () => {
        const result = await launch([LAUNCHER_STANDBY_FLAG, ...procs], { stdin });
        assert.equal(result.exitCode, LAUNCHER_FAILURE_EXIT);
        assert.ok(
          result.stderr.text.startsWith(`${LAUNCHER_FAILURE_PREFIX} ${message}`),
          result.stderr.text,
        );
      });
    }
  });
}
