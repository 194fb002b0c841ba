// The ssh transport's look at its control socket: a look that fails for
// another reason than "not there" is a typed error before any ssh starts,
// never taken for a socket not there yet (which would wait out the connect
// timeout, or start a master whose socket cannot be made).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { BashSpawnError } from "../../seam/mod.ts";
import { SshTransport } from "../../remote/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { plantedProgram, tempWorkspace } from "../sandbox/_fixtures.ts";

/** A transport over `ssh`, its private folder in `base`. */
function transportOf(ssh: string, base: string, setsidPath: string | null = null): SshTransport {
  return new SshTransport({
    ssh,
    setsidPath,
    host: "build-1",
    hostKeyChecking: "strict",
    configFile: null,
    options: [],
    connectTimeoutSeconds: 5,
    maxChannels: 10,
    dir: join(base, "private"),
  });
}

describe("the ssh transport's control socket", () => {
  it("fails typed, naming the socket and why, when its private folder is not a folder", async () => {
    const base = mkdtempSync(join(tmpdir(), "shellseam-transport-"));
    try {
      const dir = join(base, "private");
      writeFileSync(dir, "a file where the private folder should be\n");
      const transport = new SshTransport({
        // Never run: the look at the socket comes first.
        ssh: join(base, "no-ssh-here"),
        host: "build-1",
        hostKeyChecking: "strict",
        configFile: null,
        options: [],
        connectTimeoutSeconds: 30,
        maxChannels: 10,
        dir,
        keepDir: true,
      });
      try {
        await assert.rejects(transport.connect(), (error: unknown) => {
          assert.ok(error instanceof BashSpawnError, String(error));
          assert.match(error.message, /control socket ".*\/private\/control" \(.*ENOTDIR/);
          return true;
        });
      } finally {
        await transport.close();
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("what the ssh transport runs on this host, against the roots sandboxes granted", () => {
  /** Whether `error` refuses `program`, naming it, the root and what to do. */
  const refusal = (error: unknown, program: string, root: string) =>
    error instanceof BashSpawnError &&
    error.message.startsWith(
      `The remote executor runs "${program}" on this host outside any sandbox`,
    ) &&
    error.message.includes(`lies in "${root}"`) &&
    error.message.includes(`install "${program}" elsewhere`);

  it("never runs an ssh that lies in a root a sandbox of this process granted", async () => {
    using workspace = tempWorkspace();
    const { planted, canary } = plantedProgram(workspace, "ssh");
    // Its commands may write the workspace: an earlier one could have planted that ssh.
    await using _executor = new SandboxBashExecutor({ workspaceRoot: workspace.root });
    const transport = transportOf(planted, workspace.base);
    try {
      await assert.rejects(transport.connect(), (error) => refusal(error, planted, workspace.root));
      assert.throws(
        () => transport.command("true"),
        (error) => refusal(error, planted, workspace.root),
      );
    } finally {
      await transport.close();
    }
    assert.equal(existsSync(canary), false, "the planted ssh ran");
  });

  it("never starts ssh through a setsid that lies in such a root", async () => {
    using workspace = tempWorkspace();
    const { planted, canary } = plantedProgram(workspace, "setsid");
    await using _executor = new SandboxBashExecutor({ workspaceRoot: workspace.root });
    const transport = transportOf("/usr/bin/ssh", workspace.base, planted);
    try {
      assert.throws(
        () => transport.command("true"),
        (error) => refusal(error, planted, workspace.root),
      );
    } finally {
      await transport.close();
    }
    assert.equal(existsSync(canary), false, "the planted setsid ran");
  });

  it("starts ssh through the setsid it was given, which execs it in a session of its own", () => {
    const transport = transportOf("/usr/bin/ssh", tmpdir(), "/usr/bin/setsid");
    const { program, args, session } = transport.command("true");
    assert.equal(program, "/usr/bin/setsid");
    assert.equal(session, "setsid-binary");
    assert.deepEqual([args[0], ...args.slice(-3)], ["/usr/bin/ssh", "build-1", "--", "true"]);
  });

  it("never runs its watchdog with a bash that lies in such a root", async () => {
    using workspace = tempWorkspace();
    const { bin, planted, canary } = plantedProgram(workspace, "bash");
    await using _executor = new SandboxBashExecutor({ workspaceRoot: workspace.root });
    // Never run: the watchdog comes first.
    const transport = transportOf(join(workspace.base, "no-ssh-here"), workspace.base);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await assert.rejects(transport.connect(), (error) => refusal(error, planted, workspace.root));
    } finally {
      process.env.PATH = path;
      await transport.close();
    }
    assert.equal(existsSync(canary), false, "the planted bash ran as the watchdog");
  });
});
