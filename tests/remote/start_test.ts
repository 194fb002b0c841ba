// A remote command's start over a real sshd: a connection cut at each point of it leaves nothing
// running on the remote host (this machine) and never reads as "nothing was started"; and a fast
// command never loses its status. The remote side is slowed at chosen points by programs on its
// PATH that stop (until the test resumes them) and then run the real one: `mktemp` (before the
// command forks, for a command with stdin), the `sleep` that becomes the command's parent, and
// the command's `setsid`. Everything the remote side starts carries that PATH, so what is left is
// found by it. A plain command runs no program by name but `setsid` and the holder's `sleep`
// (each is a process of every call), and gets none of the session's functions or the
// bootstrap's shell options.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { readdirSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SshBashExecutor, type SshBashExecutorConfig } from "../../remote/mod.ts";
import { REMOTE_TOOLS } from "../../remote/_tools.ts";
import { cmdline, marker, processesWith, until } from "../local/_helpers.ts";
import { stressSized } from "../_stress.ts";
import { sshdConnections, sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

let sshd: TestSshd | undefined;

/** A program of the remote side's start that the test can stop. */
type Point = "mktemp" | "sleep" | "setsid" | "env";

/**
 * A remote shell whose PATH starts with a folder holding the program `point` that stops the
 * start: when its condition holds, it makes `at.<point>` and waits for `resume`, then runs the
 * real program under its own name.
 */
function slowRemote(point: Point): { dir: string; shell: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-start-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const wait =
    `for ((i = 0; i < 1200; i++)); do [[ -e ${dir}/resume ]] && break; read -r -t 0.1 -u "$z"; done`;
  const program = (name: string, condition: string): void => {
    const file = join(bin, name);
    writeFileSync(
      file,
      [
        "#!/bin/bash",
        `if ${condition}; then`,
        `  : >${dir}/at.${name}`,
        "  exec {z}<> <(:)",
        `  ${wait}`,
        "fi",
        `PATH=\${PATH#${bin}:} exec -a ${name} ${name} "$@"`,
      ].join("\n") + "\n",
    );
    chmodSync(file, 0o755);
  };
  program(point, point === "sleep" ? "[[ $1 == 2147483647 ]]" : "true");
  const shell = join(dir, "bash");
  writeFileSync(shell, `#!/bin/bash\nPATH=${bin}:$PATH exec /bin/bash "$@"\n`);
  chmodSync(shell, 0o755);
  return { dir, shell, bin };
}

/** Live processes whose environment holds `PATH=<bin>:` (everything the slow remote started). */
function startedBy(bin: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // PATH may come first (the bootstrap's own shell and the subshells it forks have it there).
      const environ = `\0${readFileSync(`/proc/${name}/environ`, "latin1")}`;
      if (!environ.includes(`\0PATH=${bin}:`)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && state !== "X") found.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

function describeProcesses(pids: number[]): string {
  return pids.map((pid) => {
    try {
      return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ")}`;
    } catch {
      return `${pid}: gone`;
    }
  }).join("; ");
}

/** The local `ssh` processes that carry channels (not the master) over `controlPath`. */
function channelClients(controlPath: string): number[] {
  return processesWith(`ControlPath=${controlPath}\0`).filter((pid) =>
    cmdline(pid).includes("ControlMaster=no\0")
  );
}

/**
 * A remote shell whose PATH starts with a folder where each of the remote side's own programs
 * (and `grep`, which the census ran before) notes its name in `ran` and then runs the real one.
 */
function loggingRemote(): { dir: string; shell: string; ran: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-ran-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  for (const name of [...REMOTE_TOOLS, "grep"]) {
    const file = join(bin, name);
    writeFileSync(
      file,
      `#!/bin/bash\nprintf '%s\\n' ${name} >>${dir}/ran\n` +
        `PATH=\${PATH#${bin}:} exec -a ${name} ${name} "$@"\n`,
    );
    chmodSync(file, 0o755);
  }
  const shell = join(dir, "bash");
  writeFileSync(shell, `#!/bin/bash\nPATH=${bin}:$PATH exec /bin/bash "$@"\n`);
  chmodSync(shell, 0o755);
  const ran = (): string[] => {
    const file = join(dir, "ran");
    return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).sort() : [];
  };
  return { dir, shell, ran };
}

describe("a remote command's start over a real sshd", { skip: sshdMissing }, () => {
  before(async () => (sshd = await startSshd()));
  after(() => sshd?.dispose());

  const config = (extra: Partial<SshBashExecutorConfig>): SshBashExecutorConfig => ({
    ...sshd!.config,
    cwd: "/tmp",
    killGraceMs: 500,
    timeoutMs: 120_000,
    ...extra,
  });

  for (const point of ["mktemp", "sleep", "setsid"] as const) {
    for (const cut of ["the local ssh", "the sshd connection"] as const) {
      it(`a cut of ${cut} while the remote side runs ${point} leaves nothing running and says the connection was lost`, async () => {
        const { dir, shell, bin } = slowRemote(point);
        try {
          await using executor = new SshBashExecutor(config({ shell }));
          // The connection is open before the cut, so the cut falls inside the start.
          await executor.transport.connect();
          const token = marker();
          const running = executor.run(executor.resolve({
            command: `sleep ${token}`,
            // A command with stdin makes the remote side run mktemp before it forks the command.
            ...(point === "mktemp" ? { stdin: "input" } : {}),
          }));
          const settled = running.then(() => {}, () => {});
          await until(() => existsSync(join(dir, `at.${point}`)), () => `the remote ${point}`);
          const cutOff = cut === "the local ssh"
            ? channelClients(executor.transport.controlPath)
            : sshdConnections(sshd!.pid);
          assert.ok(cutOff.length > 0, `no process of ${cut} found`);
          for (const pid of cutOff) process.kill(pid, "SIGKILL");
          // The remote side goes on past the point where it stopped.
          writeFileSync(join(dir, "resume"), "");
          await settled;
          await until(
            () => startedBy(bin).length === 0,
            () => `the remote side to end: ${describeProcesses(startedBy(bin))}`,
          );
          assert.deepEqual(processesWith(token), [], `"sleep ${token}" was left running`);
          // The command may have run before the cut was noticed: never "nothing was started".
          const result = await running;
          assert.equal(result.connectionLost, true);
          assert.equal(result.exitCode, null);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }

  // The command's environment was env's arguments (env NAME=VALUE ... setsid
  // ...), on a command line any user of the remote host reads while env runs;
  // a slow env keeps it there long enough to look.
  it("puts no value of the call's environment on a command line while the command starts", async () => {
    const { dir, shell, bin } = slowRemote("env");
    try {
      await using executor = new SshBashExecutor(config({ shell }));
      const secret = `secret-${randomBytes(12).toString("hex")}`;
      const running = executor.run(executor.resolve({
        command: "env | grep -aE '^(SECRET_X|envs|kv|odd-name)=' | LC_ALL=C sort",
        // Names of the bootstrap's own variables arrive as given, and so does one that is no
        // identifier (it alone goes on env's command line). (Names bash makes its own, such as
        // RANDOM, cannot be checked here: the slow env is a bash script, which rewrites them.)
        env: { SECRET_X: secret, envs: "e", kv: "k", "odd-name": "v" },
      }));
      await until(() => existsSync(join(dir, "at.env")), () => "the remote env");
      const shown = describeProcesses(processesWith(secret));
      // The look was not blind: env's command line is there.
      const envs = processesWith(`${bin}/env\0`);
      writeFileSync(join(dir, "resume"), "");
      const result = await running;
      assert.notDeepEqual(envs, [], "the remote env was not seen");
      assert.equal(shown, "", "a command line shows the environment");
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(
        result.stdout.text,
        `SECRET_X=${secret}\nenvs=e\nkv=k\nodd-name=v\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Each program is a process of every call on the remote host: env ran for every command (it
  // now runs only for a name bash cannot export), and a grep searched the environments of what
  // the command may have left (bash reads them now).
  it("runs no program by name but setsid and the holder's sleep for a plain command", async () => {
    const { dir, shell, ran } = loggingRemote();
    try {
      await using executor = new SshBashExecutor(config({ shell }));
      const result = await executor.run(executor.resolve({ command: "true", env: { GIVEN: "g" } }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.deepEqual(ran(), ["setsid", "sleep"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The bootstrap's bash imports what its environment holds: functions, which could replace a
  // command it runs (listed only when there is one), and SHELLOPTS and BASHOPTS, which bash
  // makes read-only and exports again with the bootstrap's own options (noglob among them).
  it("runs no function of the session's, and gives the command none of its functions or options", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-opts-"));
    try {
      const shell = join(dir, "bash");
      writeFileSync(
        shell,
        [
          "#!/bin/bash",
          `printf() { : >${dir}/hijacked; builtin printf "$@"; }`,
          "export -f printf",
          "shopt -s nullglob",
          "export SHELLOPTS BASHOPTS",
          'exec /bin/bash "$@"',
        ].join("\n") + "\n",
      );
      chmodSync(shell, 0o755);
      await using executor = new SshBashExecutor(config({ shell }));
      const none = `/shellseam-none-${marker()}-*`;
      const result = await executor.run(executor.resolve({
        command: `declare -F; echo /e[t]c ${none} "\${SHELLOPTS@a}\${BASHOPTS@a}"`,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, `/etc ${none} rr\n`);
      assert.equal(existsSync(join(dir, "hijacked")), false, "the session's printf ran");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the status of fast commands whose parent becomes the holder only late", async () => {
    // The command's parent is a bash that execs the holder (the sleep that never reaps it); here
    // that bash takes long to find sleep: its PATH has 60,000 entries that each end in a symlink
    // loop (each lookup fails only after 40 links), with env and setsid found first and sleep
    // only after them. A command that ran at once (its own PATH is short) would exit while its
    // parent was still the bash that reaps it, and its status would be gone. The size is what
    // makes the race certain, so it stays whole in every run: with the go given as soon as the
    // command's process was found, 60,000 entries lost 2 to 3 of the 4 statuses in every run,
    // 20,000 none in 1 run of 5 (on a loaded 2-core machine).
    const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-reap-"));
    try {
      const bin = join(dir, "bin");
      mkdirSync(bin);
      for (const name of ["env", "setsid"]) symlinkSync(`/usr/bin/${name}`, join(bin, name));
      // Relative entries, found from the workdir: "l" is a link to itself.
      symlinkSync("l", join(dir, "l"));
      const shell = join(dir, "bash");
      writeFileSync(
        shell,
        `#!/bin/bash\nPATH=${bin}:${"l:".repeat(60_000)}/usr/bin:/bin exec /bin/bash "$@"\n`,
      );
      chmodSync(shell, 0o755);
      await using executor = new SshBashExecutor(config({ shell, cwd: dir }));
      const commands: [string, number | null, string | null, string][] = [
        ["true", 0, null, ""],
        ["exit 3", 3, null, ""],
        ["echo x", 0, null, "x\n"],
        ["kill -KILL $$", null, "SIGKILL", ""],
      ];
      const results = await Promise.all(
        commands.map(([command]) =>
          executor.run(executor.resolve({ command, env: { PATH: "/usr/bin:/bin" } })).then(
            (result) => [result.exitCode, result.signal, result.stdout.text, result.connectionLost],
            (error: Error) => error.message,
          )
        ),
      );
      assert.deepEqual(
        results,
        commands.map(([, code, signal, stdout]) => [code, signal, stdout, false]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The statistical twin of the case above, at a normal PATH: 30 commands (300 under
  // test:stress), three rounds of the 10 channels, still catch a status lost on the common path
  // or in the queue behind the channels; the race itself is made certain above.
  const fast = stressSized(30, 300);
  it(`keeps the status of every one of ${fast} fast commands, 10 at a time`, async () => {
    await using executor = new SshBashExecutor(config({}));
    const commands: [string, number, string][] = [
      ["true", 0, ""],
      ["exit 3", 3, ""],
      ["echo x", 0, "x\n"],
    ];
    // The executor runs 10 at once (maxChannels) and queues the rest.
    const results = await Promise.allSettled(
      Array.from(
        { length: fast },
        (_, i) => executor.run(executor.resolve({ command: commands[i % 3]![0] })),
      ),
    );
    const wrong = results.flatMap((settled, i) => {
      const [command, exitCode, stdout] = commands[i % 3]!;
      if (settled.status === "rejected") return [`${i} (${command}): ${settled.reason}`];
      const { value } = settled;
      const got = [value.exitCode, value.signal, value.stdout.text, value.connectionLost];
      return JSON.stringify(got) === JSON.stringify([exitCode, null, stdout, false])
        ? []
        : [`${i} (${command}): ${JSON.stringify(got)}`];
    });
    assert.deepEqual(wrong, []);
  });
});
