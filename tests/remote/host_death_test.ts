// Nothing outlives a host that uses the SSH executor: a real host process
// (Deno, or Node against the built package) runs commands over a real sshd,
// is SIGKILLed, and then neither its local `ssh` master (found by its unique
// control socket) nor any remote command (found by a unique marker) is left,
// nor its private folder. The same against an sshd started with SIGPIPE
// ignored, as under a supervisor that ignores it, with a remote shell that
// keeps it ignored (OpenSSH resets it for the sessions it starts; other
// servers and login shells may not). The same when the host dies while a
// remote session is still in its login rc. And a host that called killOnSignals()
// disposes on SIGTERM, SIGINT or SIGHUP: every remote command ended before it exits
// with 128 + the signal's number, as on the local executor.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import type { SshBashExecutorConfig } from "../../remote/mod.ts";
import { cmdline, marker, processesWith, until } from "../local/_helpers.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

// .ts under Deno, .js once compiled for the Node leg.
const EXT = import.meta.url.slice(import.meta.url.lastIndexOf("."));
const HOST = fileURLToPath(new URL(`./_host${EXT}`, import.meta.url));
const onDeno = "Deno" in globalThis;

/** A running host: its process, its exit, and what it printed. */
interface Host {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  controlPath: string;
  folder: string;
}

/** Starts a host over `config` and waits until `sleeps` of its three remote sleeps run. */
async function startHost(
  config: SshBashExecutorConfig,
  token: string,
  mode?: "hook",
  sleeps = 3,
): Promise<Host> {
  const args = [
    ...(onDeno ? ["run", "-A"] : []),
    HOST,
    JSON.stringify(config),
    token,
    ...(mode === undefined ? [] : [mode]),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal }))
  );
  let text = "";
  for await (const chunk of child.stdout!) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  assert.ok(text.includes("\n"), `the host printed nothing: ${JSON.stringify(text)}`);
  const { controlPath, folder } = JSON.parse(text) as { controlPath: string; folder: string };
  const running = (): number[] =>
    processesWith(`sleep\0${token}\0`).filter((pid) => cmdline(pid).startsWith("sleep\0"));
  await until(
    () => running().length >= sleeps,
    () => `fewer than ${sleeps} "sleep ${token}" processes appeared`,
  );
  return { child, exited, controlPath, folder };
}

/** Every ssh process of the host names the control socket. */
const sshOf = (host: Host): number[] => processesWith(`ControlPath=${host.controlPath}\0`);

describe(`a ${onDeno ? "Deno" : "Node"} host using the SSH executor`, { skip: sshdMissing }, () => {
  let sshd: TestSshd | undefined;
  before(async () => (sshd = await startSshd()));
  after(() => sshd?.dispose());

  it("SIGKILLed leaves no ssh master, no remote command and no private folder", async () => {
    const token = marker();
    const host = await startHost(sshd!.config, token);
    // The master also says it is one.
    const masters = sshOf(host).filter((pid) => cmdline(pid).includes("ControlMaster=yes\0"));
    assert.equal(masters.length, 1, "the host runs one ssh master");
    host.child.kill("SIGKILL");
    assert.equal((await host.exited).signal, "SIGKILL");
    await until(
      () => sshOf(host).length === 0,
      () => `ssh processes outlived their host: ${sshOf(host)}`,
    );
    await until(
      () => processesWith(token).length === 0,
      () => `remote commands carrying "${token}" outlived the host: ${processesWith(token)}`,
    );
    await until(() => !existsSync(host.folder), () => `"${host.folder}" was left behind`);
  });

  for (const [signal, number] of [["SIGTERM", 15], ["SIGINT", 2], ["SIGHUP", 1]] as const) {
    it(`that called killOnSignals() ends every remote command on ${signal}, then exits with 128 + ${number}`, async () => {
      const token = marker();
      const host = await startHost(sshd!.config, token, "hook");
      // By pid, as the local host test does: node:child_process under Deno reports a child it
      // was asked to kill() as ended by that signal, whatever its exit status.
      process.kill(host.child.pid!, signal);
      assert.deepEqual(await host.exited, { code: 128 + number, signal: null });
      // Disposal awaited every end, so nothing is left at the moment the host ends.
      assert.deepEqual(processesWith(token), []);
      assert.deepEqual(sshOf(host), []);
      assert.ok(!existsSync(host.folder), `"${host.folder}" was left behind`);
    });
  }
});

describe("a host using an sshd started with SIGPIPE ignored", { skip: sshdMissing }, () => {
  let sshd: TestSshd | undefined;
  let dir: string | undefined;
  let shell: string | undefined;
  before(async () => {
    sshd = await startSshd({ ignoreSigpipe: true });
    dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-sigpipe-"));
    shell = join(dir, "bash");
    writeFileSync(shell, `#!/bin/bash\ntrap '' PIPE\nexec /bin/bash "$@"\n`);
    chmodSync(shell, 0o755);
  });
  after(async () => {
    await sshd?.dispose();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("SIGKILLed 5 times leaves no remote command", async () => {
    for (let kill = 0; kill < 5; kill++) {
      const token = marker();
      const host = await startHost({ ...sshd!.config, shell: shell! }, token);
      // The remote side runs with SIGPIPE ignored.
      const [sleep] = processesWith(`sleep\0${token}\0`);
      const ignored = /^SigIgn:\s*([0-9a-f]+)$/m.exec(
        readFileSync(`/proc/${sleep}/status`, "latin1"),
      );
      assert.ok(ignored !== null && (BigInt(`0x${ignored[1]}`) & (1n << 12n)) !== 0n);
      host.child.kill("SIGKILL");
      await host.exited;
      await until(
        () => processesWith(token).length === 0,
        () =>
          `kill ${kill}: remote commands carrying "${token}" outlived the host: ${
            processesWith(token)
          }`,
      );
    }
  });
});

// A remote session that starts slowly (PAM, a login rc: a system sshd's sessions
// often do) is still starting when the host dies: the bootstrap runs only after
// the connection is gone, with the whole request already in its stdin. It once
// started the command before it watched for the lost connection, then died on
// SIGPIPE when it said so, and the command ran on (a host killed while such a
// session started left it every time). With SIGPIPE ignored by the login shell
// (OpenSSH restores it for the shell it starts, so only the shell's own rc can
// hand that on), it survived that write, but its kill found no process group yet.
describe("a host SIGKILLed while a remote session is still in its login rc", {
  skip: sshdMissing,
}, () => {
  let sshd: TestSshd | undefined;
  before(async () => (sshd = await startSshd()));
  after(() => sshd?.dispose());

  for (const ignorePipe of [false, true]) {
    it(
      `leaves no remote command once the session goes on${
        ignorePipe ? " (SIGPIPE ignored by the login shell)" : ""
      }`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), "shellseam-ssh-rc-"));
        try {
          // The second session (the host's run(), after its start()) waits in the rc for "go".
          writeFileSync(
            join(sshd!.dir, "home", ".bashrc"),
            [
              ...(ignorePipe ? ["trap '' PIPE"] : []),
              `n=$(cat ${dir}/count 2>/dev/null || echo 0); echo $((n + 1)) >${dir}/count`,
              `if ((n == 1)); then echo $$ >${dir}/pid; until [[ -e ${dir}/go ]]; do sleep 0.05; done; fi`,
            ].join("\n") + "\n",
          );
          const token = marker();
          const host = await startHost(sshd!.config, token, undefined, 2);
          await until(() => existsSync(join(dir, "pid")), () => "the run's session in its rc");
          const session = Number(readFileSync(join(dir, "pid"), "utf8"));
          host.child.kill("SIGKILL");
          await host.exited;
          // The connection is gone (its master with it) before the session goes on.
          await until(() => sshOf(host).length === 0, () => `ssh processes outlived their host`);
          writeFileSync(join(dir, "go"), "");
          // The session's shell (the bootstrap, once it execs) has ended.
          await until(() => !alive(session), () => `the remote session ${session} did not end`);
          await until(
            () => processesWith(token).length === 0,
            () => `remote commands carrying "${token}" outlived the host: ${processesWith(token)}`,
          );
        } finally {
          rmSync(join(sshd!.dir, "home", ".bashrc"), { force: true });
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }
});

/** True while `pid` runs (a zombie has ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
