// What sshd and the remote login shell read before the bootstrap runs, over a real sshd whose
// sessions get a home of their own (SetEnv HOME): a confined call whose writable roots hold the
// remote home, or a file the login shell reads there through a symlink, is refused and runs
// nothing; a workspace below the home runs; `.ssh` in a workspace is protected.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { SshBashExecutor } from "../../remote/mod.ts";
import { findOnPath } from "../../engine/mod.ts";
import { type SandboxPolicy, SandboxUnavailableError } from "../../seam/mod.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

const noBwrap = findOnPath("bwrap", process.env.PATH) === null && "needs bwrap";

const policy = (root: string, writableRoots: string[] = []): SandboxPolicy => ({
  mode: "workspace-write",
  workspaceRoot: root,
  writableRoots,
  network: "deny",
});

/** A real sshd whose sessions get the home `home`, a folder of `base` (SetEnv HOME). */
interface RemoteHome {
  sshd: TestSshd | undefined;
  /** Holds the remote home and folders beside it. */
  base: string;
  home: string;
}

/**
 * Starts a {@linkcode RemoteHome} before the tests of the describe it is called in, with the
 * variables `env` gives the sessions beside HOME (made in `base`), and stops it after them.
 */
function remoteHome(
  prefix: string,
  env: (base: string) => Record<string, string> = () => ({}),
): RemoteHome {
  const remote: RemoteHome = { sshd: undefined, base: "", home: "" };
  before(async () => {
    remote.base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    remote.home = join(remote.base, "home");
    mkdirSync(remote.home);
    remote.sshd = await startSshd({ env: { HOME: remote.home, ...env(remote.base) } });
  });
  after(async () => {
    await remote.sshd?.dispose();
    rmSync(remote.base, { recursive: true, force: true });
  });
  return remote;
}

describe("what the remote login reads before the sandbox applies", {
  skip: sshdMissing || noBwrap,
}, () => {
  const remote = remoteHome("shellseam-remote-login-");
  /** Whether `error` is the refusal that names `root` holding `location`, read for `path`. */
  const refusedFor = (root: string, location: string, path: string) => (error: unknown) =>
    error instanceof SandboxUnavailableError &&
    error.attempts[0]?.reason.startsWith(
        `the writable root "${root}" holds ${
          location === path
            ? `"${path}", which sshd or the remote login shell reads`
            : `"${location}", through which sshd or the remote login shell reads "${path}"`
        } before the sandbox applies`,
      ) === true &&
    error.message.includes(`below the remote home "${remote.home}"`);

  it("refuses a writable root that holds the remote home, and runs nothing; a workspace below it runs", async () => {
    const beside = join(remote.base, "beside");
    const below = join(remote.home, "project");
    mkdirSync(beside);
    mkdirSync(below);
    await using executor = new SshBashExecutor({ ...remote.sshd!.config, cwd: beside });
    for (
      const [sandboxPolicy, root] of [
        [policy(remote.home), remote.home],
        [policy(beside, [remote.base]), remote.base],
      ] as const
    ) {
      await assert.rejects(
        executor.run(executor.resolve({
          command: `touch ${remote.home}/ran ${beside}/ran`,
          sandboxPolicy,
        })),
        refusedFor(root, remote.home, remote.home),
      );
    }
    assert.equal(existsSync(join(remote.home, "ran")), false);
    assert.equal(existsSync(join(beside, "ran")), false);
    // The home read-only, and a workspace below it.
    const readOnly = await executor.run(executor.resolve({
      command: "echo read",
      sandboxPolicy: { mode: "read-only", workspaceRoot: remote.home, network: "deny" },
    }));
    assert.equal(readOnly.stdout.text, "read\n", readOnly.stderr.text);
    const inside = await executor.run(executor.resolve({
      command: "touch made && echo made",
      workdir: below,
      sandboxPolicy: policy(below),
    }));
    assert.equal(inside.stdout.text, "made\n", inside.stderr.text);
    assert.equal(existsSync(join(below, "made")), true);
  });

  it("refuses a writable root that a login file of the home reaches through a symlink", async () => {
    // ~/.bashrc links into a dotfiles folder beside the home; ~/.config is a link to a folder
    // that holds fish's config.
    const dotfiles = join(remote.base, "dotfiles");
    const config = join(remote.base, "config");
    const beside = join(remote.base, "beside-config");
    mkdirSync(beside);
    mkdirSync(dotfiles);
    mkdirSync(join(config, "fish"), { recursive: true });
    writeFileSync(join(dotfiles, "bashrc"), ": kept\n");
    symlinkSync(join(dotfiles, "bashrc"), join(remote.home, ".bashrc"));
    symlinkSync(config, join(remote.home, ".config"));
    try {
      // They are learned before the executor's first confined call: a new executor.
      await using executor = new SshBashExecutor({ ...remote.sshd!.config, cwd: remote.base });
      await assert.rejects(
        executor.run(executor.resolve({
          command: "echo 'touch ran' >bashrc",
          sandboxPolicy: policy(dotfiles),
        })),
        refusedFor(dotfiles, join(dotfiles, "bashrc"), join(remote.home, ".bashrc")),
      );
      await assert.rejects(
        executor.run(executor.resolve({
          command: "echo 'touch ran' >fish/config.fish",
          sandboxPolicy: policy(beside, [config]),
        })),
        refusedFor(config, join(config, "fish"), join(remote.home, ".config", "fish")),
      );
      assert.equal(readFileSync(join(dotfiles, "bashrc"), "utf8"), ": kept\n");
      assert.equal(existsSync(join(config, "fish", "config.fish")), false);
    } finally {
      rmSync(join(remote.home, ".bashrc"));
      rmSync(join(remote.home, ".config"));
    }
  });

  it("protects .ssh in a workspace: a confined command cannot write its rc", async () => {
    const workspace = join(remote.home, "with-ssh");
    const fresh = join(remote.home, "without-ssh");
    mkdirSync(join(workspace, ".ssh"), { recursive: true });
    mkdirSync(fresh);
    writeFileSync(join(workspace, ".ssh", "authorized_keys"), "kept\n");
    await using executor = new SshBashExecutor({ ...remote.sshd!.config, cwd: workspace });
    const written = await executor.run(executor.resolve({
      command: "echo 'touch ran' >.ssh/rc; echo evil >>.ssh/authorized_keys; rm -rf .ssh; true",
      sandboxPolicy: policy(workspace),
    }));
    assert.equal(written.exitCode, 0, written.stderr.text);
    assert.equal(existsSync(join(workspace, ".ssh", "rc")), false);
    assert.equal(readFileSync(join(workspace, ".ssh", "authorized_keys"), "utf8"), "kept\n");
    // A missing one: what the command made there is moved to the quarantine once it settled.
    const made = await executor.run(executor.resolve({
      command: "mkdir .ssh && echo 'touch ran' >.ssh/rc",
      workdir: fresh,
      sandboxPolicy: policy(fresh),
    }));
    assert.equal(made.sandbox?.violations?.[0]?.path, join(fresh, ".ssh"), made.stderr.text);
    assert.equal(existsSync(join(fresh, ".ssh")), false);
  });
});

describe("a remote user database that cannot be read", {
  skip: sshdMissing || noBwrap,
}, () => {
  // A getent that fails, first on the sessions' PATH: the home sshd reads from is unknown.
  const remote = remoteHome("shellseam-remote-passwd-", (base) => {
    const fake = join(base, "fake-bin");
    mkdirSync(fake);
    writeFileSync(join(fake, "getent"), "#!/bin/sh\nexit 2\n", { mode: 0o755 });
    return { PATH: `${fake}:${process.env.PATH}` };
  });

  it("refuses every workspace-write call, naming getent, and runs nothing; a read-only call runs", async () => {
    const workspace = join(remote.home, "project");
    mkdirSync(workspace);
    await using executor = new SshBashExecutor({ ...remote.sshd!.config, cwd: workspace });
    await assert.rejects(
      executor.run(executor.resolve({
        command: `touch ${workspace}/ran`,
        sandboxPolicy: policy(workspace),
      })),
      (error: unknown) =>
        error instanceof SandboxUnavailableError &&
        error.attempts[0]?.reason.startsWith(
            `the remote user's entry in the user database could not be read ("getent passwd" ` +
              "exited with 2), so the home where sshd reads ~/.ssh/rc",
          ) === true &&
        error.message.includes(`make "getent passwd" work on ${remote.sshd!.config.host}`),
    );
    assert.equal(existsSync(join(workspace, "ran")), false);
    const readOnly = await executor.run(executor.resolve({
      command: "echo read",
      sandboxPolicy: { mode: "read-only", workspaceRoot: workspace, network: "deny" },
    }));
    assert.equal(readOnly.stdout.text, "read\n", readOnly.stderr.text);
  });
});
