// A real OpenSSH server for the remote executor's tests: sshd on 127.0.0.1 on a free port,
// a throwaway host key and user key in a temp folder, a default-ish sshd_config (MaxSessions
// left at its default of 10), stopped by dispose().
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { SshBashExecutorConfig } from "../../remote/mod.ts";

/** Where sshd is expected; without it the SSH tests skip with a message naming it. */
export const SSHD = "/usr/sbin/sshd";

/** Why the SSH tests cannot run here, or false. */
export const sshdMissing: string | false = existsSync(SSHD) && existsSync("/usr/bin/ssh-keygen")
  ? false
  : `no OpenSSH server at ${SSHD} (apt-get install -y openssh-server)`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A running test sshd. */
export interface TestSshd {
  port: number;
  dir: string;
  /** The config an executor needs to reach it as the current user. */
  config: SshBashExecutorConfig;
  /** Pid of the listening sshd. */
  pid: number;
  dispose(): Promise<void>;
}

/** How to start the test sshd. */
export interface SshdOptions {
  /** Lines added to sshd_config (no SetEnv: see `env`). */
  extraConfig?: string;
  /**
   * Variables every session gets (sshd's SetEnv). HOME is a folder of the sshd's own unless
   * given here.
   */
  env?: Record<string, string>;
  /**
   * Starts sshd with SIGPIPE ignored (through `bash -c "trap '' PIPE; exec sshd ..."`), as a
   * supervisor that ignores it does: its processes inherit the ignored signal.
   */
  ignoreSigpipe?: boolean;
}

/** Starts sshd; resolves once it accepts connections. */
export async function startSshd(
  { extraConfig = "", env = {}, ignoreSigpipe = false }: SshdOptions = {},
): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-sshd-"));
  const keygen = (file: string): void => {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, file)]);
  };
  keygen("host_key");
  keygen("user_key");
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "user_key.pub")));
  mkdirSync(join(dir, "home"));
  mkdirSync("/run/sshd", { recursive: true });
  const port = await freePort();
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  const sessionEnv = Object.entries({ HOME: join(dir, "home"), ...env })
    .map(([name, value]) => `${name}=${value}`);
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      extraConfig,
      // One SetEnv line: sshd ignores every SetEnv line after the first. A home of its own, so
      // the remote login shell reads no rc file of the user running the tests: root's .bashrc
      // here runs pyenv's rehash under a lock, which serialized every session (a run took up to
      // 70 s, and a session about 6 s on a loaded machine).
      `SetEnv ${sessionEnv.join(" ")}`,
    ].join("\n") + "\n",
  );
  const argv = [SSHD, "-D", "-e", "-f", join(dir, "sshd_config")];
  const sshd = ignoreSigpipe
    ? spawn("/bin/bash", ["-c", `trap '' PIPE; exec "$@"`, "sshd", ...argv], {
      stdio: ["ignore", "ignore", "pipe"],
    })
    : spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  sshd.stderr.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => sshd.once("exit", () => resolve()));
  const config: SshBashExecutorConfig = {
    host: "127.0.0.1",
    port,
    user: userInfo().username,
    identityFile: join(dir, "user_key"),
    knownHostsFile: join(dir, "known_hosts"),
  };
  // Ready once a connection gets through.
  for (let attempt = 0;; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
      socket.connect(port, "127.0.0.1");
    });
    if (ok) break;
    if (attempt > 200 || sshd.exitCode !== null) {
      sshd.kill("SIGKILL");
      throw new Error(`sshd did not start: ${log}`);
    }
    await new Promise((done) => setTimeout(done, 25));
  }
  return {
    port,
    dir,
    config,
    pid: sshd.pid!,
    async dispose() {
      sshd.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Pids of sshd processes serving a connection (children of the listener). */
export function sshdConnections(listener: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === listener) found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}
