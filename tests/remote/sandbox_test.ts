// The remote sandbox hides secrets and names what it leaves open, over a real sshd whose
// sessions get a home of their own (SetEnv HOME), so "~/" must mean the remote home, and a
// TMPDIR of their own (SetEnv TMPDIR), which holds every private folder and stdin spool: the
// cases look for them there, not through the whole shared /tmp (gigabytes on a busy machine).
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { missingProtectedGap, REMOTE_SANDBOX_GAPS } from "../../remote/_sandbox.ts";
import { SshBashExecutor } from "../../remote/mod.ts";
import {
  BashConfigError,
  type BashExecRequest,
  type BashRunResult,
  BashSpawnError,
  type SandboxPolicy,
} from "../../seam/mod.ts";
import { processesWith } from "../local/_helpers.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

/**
 * Runs `request` on `executor` with `await-flag` in its command standing for
 * a wait until a flag file exists, and resolves once its output includes
 * `said` (it fails the case if the call ends first): the command is then
 * running and waiting. `release()` creates the flag (`flag`, a unique path);
 * `running` is the call.
 */
async function runUntilSaid(
  executor: SshBashExecutor,
  request: BashExecRequest,
  said: string,
  workspace: string,
): Promise<{ running: Promise<BashRunResult>; release: () => void; flag: string }> {
  const flag = join(workspace, `go-${randomBytes(6).toString("hex")}`);
  let heard!: () => void;
  const saidIt = new Promise<void>((resolve) => (heard = resolve));
  let text = "";
  const running = executor.run(executor.resolve({
    ...request,
    command: request.command.replace("await-flag", `until [ -e ${flag} ]; do sleep 0.05; done`),
    onOutput: (chunk) => {
      text += chunk.text;
      if (text.includes(said)) heard();
    },
  }));
  await Promise.race([saidIt, running.then((result) => assert.fail(result.stderr.text))]);
  const release = () => writeFileSync(flag, "");
  return { running: running.finally(() => rmSync(flag, { force: true })), release, flag };
}

describe("the remote sandbox", { skip: sshdMissing }, () => {
  let sshd: TestSshd | undefined;
  let home = "";
  let workspace = "";
  /** The remote sessions' TMPDIR. */
  let sessionTmp = "";
  /**
   * One executor for the cases about what its commands see; a case about another executor, or
   * that breaks its executor's private folder, makes its own.
   */
  let executor: SshBashExecutor;
  before(async () => {
    home = mkdtempSync(join(tmpdir(), "shellseam-remote-home-"));
    workspace = mkdtempSync(join(tmpdir(), "shellseam-remote-ws-"));
    sessionTmp = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-remote-tmp-")));
    sshd = await startSshd({ env: { HOME: home, TMPDIR: sessionTmp } });
    executor = new SshBashExecutor({ ...sshd.config, cwd: workspace });
  });
  after(async () => {
    await executor?.[Symbol.asyncDispose]();
    await sshd?.dispose();
    for (const dir of [home, workspace, sessionTmp]) rmSync(dir, { recursive: true, force: true });
  });
  const policy = (extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
    mode: "workspace-write",
    workspaceRoot: workspace,
    network: "deny",
    ...extra,
  });

  it("masks the default denyRead paths of the remote home, with allowRead carved out", async () => {
    mkdirSync(join(home, ".ssh", "keys"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_test"), "SECRET\n");
    writeFileSync(join(home, ".ssh", "keys", "pub"), "PUBLIC\n");
    writeFileSync(join(home, ".netrc"), "NETRC\n");
    const run = (command: string, extra: Partial<SandboxPolicy> = {}) =>
      executor.run(executor.resolve({ command, sandboxPolicy: policy(extra) }));
    const key = await run("cat ~/.ssh/id_test", { allowRead: ["~/.ssh/keys"] });
    assert.notEqual(key.exitCode, 0);
    assert.match(key.stderr.text, /Permission denied/);
    assert.equal(key.sandbox?.denial, "secret", key.stderr.text);
    const netrc = await run("cat ~/.netrc");
    assert.match(netrc.stderr.text, /Permission denied/);
    assert.equal(netrc.sandbox?.denial, "secret");
    const carved = await run("cat ~/.ssh/keys/pub", { allowRead: ["~/.ssh/keys"] });
    assert.equal(carved.exitCode, 0, carved.stderr.text);
    assert.equal(carved.stdout.text, "PUBLIC\n");
    // Without the carve-out the whole folder is hidden.
    const whole = await run("ls ~/.ssh");
    assert.match(whole.stderr.text, /Permission denied/);
    // The denial is the sandbox's: unconfined, the same read works.
    const full = await executor.run(executor.resolve({
      command: "cat ~/.ssh/id_test",
      sandboxPolicy: policy({ mode: "danger-full-access" }),
    }));
    assert.equal(full.stdout.text, "SECRET\n");
  });

  it("masks an absolute denyRead path given by the policy, and only what it lists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-remote-secret-"));
    try {
      writeFileSync(join(dir, "token"), "TOKEN\n");
      writeFileSync(join(dir, "open"), "OPEN\n");
      const result = await executor.run(executor.resolve({
        command: `cat ${dir}/open; cat ${dir}/token`,
        sandboxPolicy: policy({ mode: "read-only", denyRead: [join(dir, "token")] }),
      }));
      assert.equal(result.stdout.text, "OPEN\n");
      assert.match(result.stderr.text, /token: Permission denied/);
      assert.equal(result.sandbox?.denial, "secret");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // bwrap's options (the environment among them) were its arguments, on a
  // command line that any user of the remote host reads (ps auxww) for as long
  // as the command runs.
  it("hands the call's environment to bwrap on a pipe: no command line on the remote host shows it", async () => {
    for (const stdin of [undefined, "line\n"]) {
      const secret = `secret-${randomBytes(12).toString("hex")}`;
      const { running, release, flag } = await runUntilSaid(
        executor,
        {
          command: `read -r line; printf 'got:%s:%s\\n' "$SECRET_X" "$line"; await-flag`,
          env: { SECRET_X: secret },
          ...(stdin === undefined ? {} : { stdin }),
          sandboxPolicy: policy(),
        },
        "got:",
        workspace,
      );
      // While it runs (it said so and waits for the flag).
      assert.deepEqual(processesWith(secret), [], "a command line shows the environment");
      // The look was not blind: the command's own command line is there.
      assert.notDeepEqual(processesWith(flag), [], "the command was not seen");
      release();
      const result = await running;
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, `got:${secret}:${stdin === undefined ? "" : "line"}\n`);
    }
  });

  // Each call's stdin was spooled to a file in the remote TMPDIR, which a
  // confined command of the same remote user reads (/tmp is read-only to it,
  // not hidden): another call's stdin bytes.
  it("hides every call's stdin spool from a confined command, and keeps it 0600 in 0700 folders", async () => {
    for (const mode of ["danger-full-access", "workspace-write"] as const) {
      const token = `stdin-${randomBytes(12).toString("hex")}`;
      // Call A read its stdin (so the spool holds it) and runs on until the flag.
      const { running, release } = await runUntilSaid(
        executor,
        {
          command: "read -r line; echo read; await-flag",
          stdin: `${token}\n`,
          sandboxPolicy: policy({ mode }),
        },
        "read",
        workspace,
      );
      try {
        // Unconfined, on the host (the remote host here): the spool holds the token.
        const grep = (dirs: string[]) =>
          spawnSync("grep", ["-rlsF", "-D", "skip", "--", token, ...dirs], { encoding: "utf8" })
            .stdout.split("\n").filter((line) => line !== "");
        const spools = grep([sessionTmp]);
        assert.notDeepEqual(spools, [], "the host found no spool: the look was blind");
        for (const spool of spools) {
          assert.equal(statSync(spool).mode & 0o777, 0o600, `${spool} is not 0600`);
          assert.equal(statSync(dirname(spool)).mode & 0o777, 0o700, `${dirname(spool)} not 0700`);
        }
        // Call B, confined, looks in the same places and in its own TMPDIR.
        const spool = spools[0]!;
        const look = await executor.run(executor.resolve({
          command: `grep -rlsF -D skip -- ${token} ${sessionTmp} "$TMPDIR"; ` +
            `ls -la ${dirname(spool)}; cat ${spool}; echo looked`,
          sandboxPolicy: policy(),
        }));
        assert.match(look.stdout.text, /looked\n$/, look.stderr.text);
        assert.doesNotMatch(
          look.stdout.text,
          new RegExp(token),
          "a confined command read the spool",
        );
        assert.doesNotMatch(look.stdout.text, /spool/, "a confined command saw the spool");
        // A denyRead path in the hidden folder needs no mask (one there fails the launch).
        const masked = await executor.run(executor.resolve({
          command: "echo ran",
          sandboxPolicy: policy({ denyRead: [dirname(spool)] }),
        }));
        assert.equal(masked.stdout.text, "ran\n", masked.stderr.text);
      } finally {
        release();
      }
      const result = await running;
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, "read\n");
    }
  });

  // Every executor's private folder (its commands' TMPDIR among them) lay in
  // the remote TMPDIR, read-only but readable to another executor's confined
  // commands of the same remote user.
  it("hides another executor's private folder from a confined command, its own shown", async () => {
    const first = executor;
    await using second = new SshBashExecutor({ ...sshd!.config, cwd: workspace });
    const token = `tmp-${randomBytes(12).toString("hex")}`;
    const wrote = await first.run(first.resolve({
      command: `echo ${token} >"$TMPDIR/s" && cat "$TMPDIR/s" && echo "$TMPDIR/s"`,
      sandboxPolicy: policy(),
    }));
    const [own, path] = wrote.stdout.text.split("\n");
    assert.equal(own, token, wrote.stderr.text);
    // The file is there: unconfined, the second executor reads it.
    const full = await second.run(second.resolve({
      command: `cat ${path}`,
      sandboxPolicy: policy({ mode: "danger-full-access" }),
    }));
    assert.equal(full.stdout.text, `${token}\n`, full.stderr.text);
    const look = await second.run(second.resolve({
      command: `cat ${path}; grep -rlsF -D skip -- ${token} ${sessionTmp}; echo looked`,
      sandboxPolicy: policy(),
    }));
    assert.equal(look.stdout.text, "looked\n", "a confined command read another executor's file");
  });

  // Its own executor: it removes that executor's private folder.
  it("runs nothing, and rejects with BashSpawnError, when it cannot look at the remote filesystem", async () => {
    await using executor = new SshBashExecutor({ ...sshd!.config, cwd: workspace });
    const confined = { sandboxPolicy: policy({ mode: "read-only" }) };
    const tmp = await executor.run(executor.resolve({ command: 'echo "$TMPDIR"', ...confined }));
    // An unconfined command removes the remote private folder (the mask file with it).
    const folder = dirname(tmp.stdout.text.trim());
    await executor.run(executor.resolve({ command: `rm -rf ${folder}` }));
    const planted = join(workspace, "planted");
    await assert.rejects(
      executor.run(executor.resolve({ command: `touch ${planted}`, ...confined })),
      (error: Error) => error instanceof BashSpawnError && error.message.includes(folder),
    );
    assert.ok(!existsSync(planted), "the command ran");
  });

  // bwrap keeps the private folder (mask file, quarantine, TMPDIR) read-only
  // in a writable root that holds it, judged by the paths: a root given
  // through a symlink, or a private folder made under a symlinked TMPDIR,
  // hid it, and a confined command could swap the quarantine the unconfined
  // bootstrap moves files into.
  it("keeps its private folder read-only to a writable root that reaches it through a symlink", async () => {
    const tmp = await executor.run(executor.resolve({
      command: 'echo "$TMPDIR"',
      sandboxPolicy: policy({ mode: "read-only" }),
    }));
    const folder = dirname(tmp.stdout.text.trim());
    const links = mkdtempSync(join(tmpdir(), "shellseam-remote-links-"));
    try {
      symlinkSync(dirname(folder), join(links, "parent"));
      const result = await executor.run(executor.resolve({
        command: `touch ${folder}/planted ${folder}/quarantine/planted; echo done`,
        sandboxPolicy: policy({ workspaceRoot: join(links, "parent"), protectedPaths: [] }),
      }));
      assert.equal(result.stdout.text, "done\n");
      assert.match(result.stderr.text, /Read-only file system/);
      assert.ok(!existsSync(join(folder, "planted")), "the command wrote the private folder");
      assert.ok(!existsSync(join(folder, "quarantine", "planted")), "it wrote the quarantine");
    } finally {
      rmSync(links, { recursive: true, force: true });
    }
  });

  it("refuses protected paths that leave the root, running nothing", async () => {
    for (const entry of ["../outside", "a/../../b", "/abs", ""]) {
      await assert.rejects(
        executor.run(executor.resolve({
          command: `touch ${workspace}/ran`,
          sandboxPolicy: policy({ protectedPaths: [entry] }),
        })),
        (error: Error) =>
          error instanceof BashConfigError && error.message.includes(JSON.stringify(entry)),
      );
    }
    assert.ok(!existsSync(join(workspace, "ran")));
  });

  it("names the protected paths that are missing when the command starts, and none that exist", async () => {
    const protectedPaths = [".git", ".envrc"];
    const gapsOf = async (): Promise<string[]> => {
      const result = await executor.run(
        executor.resolve({ command: "true", sandboxPolicy: policy({ protectedPaths }) }),
      );
      assert.equal(result.sandbox?.enforcement?.filesystem, "partial");
      return result.sandbox?.enforcement?.gaps ?? [];
    };
    const git = join(workspace, ".git");
    const envrc = join(workspace, ".envrc");
    assert.ok((await gapsOf()).includes(missingProtectedGap([git, envrc])));
    mkdirSync(git);
    assert.ok((await gapsOf()).includes(missingProtectedGap([envrc])));
    writeFileSync(envrc, "");
    const gaps = await gapsOf();
    assert.deepEqual(gaps.filter((gap) => gap.includes("missing on the remote host")), []);
    // What remains open for every remote command is still said.
    for (const open of REMOTE_SANDBOX_GAPS) assert.ok(gaps.includes(open), open);
  });

  it("lists what the resource limits could not enforce among the sandbox's gaps, as the local sandbox does", async () => {
    const command = "true";
    for (const background of [false, true]) {
      const spec = executor.resolve({ command, sandboxPolicy: policy() });
      let limits: string[] | undefined;
      let sandbox: string[] | undefined;
      if (background) {
        const process_ = await executor.start(spec);
        await process_.done;
        // A background process carries no limits of its own: its run's are the same call's.
        limits = (await executor.run(spec)).limits?.gaps;
        sandbox = process_.sandbox?.enforcement?.gaps;
      } else {
        const result = await executor.run(spec);
        limits = result.limits?.gaps;
        sandbox = result.sandbox?.enforcement?.gaps;
      }
      // The sandbox's default limits hold no cgroup on the remote host: that much is a gap.
      assert.ok(limits !== undefined && limits.length > 0, JSON.stringify(limits));
      for (const gap of limits) assert.ok(sandbox?.includes(gap), `${background}: ${gap}`);
    }
  });

  it("moves what a command made at a missing protected path to the remote quarantine", async () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-remote-plant-"));
    try {
      const planted = await executor.run(executor.resolve({
        command: "mkdir -p .git/hooks && echo 'touch /tmp/owned' > .git/hooks/post-checkout",
        workdir: root,
        sandboxPolicy: policy({ workspaceRoot: root }),
      }));
      assert.equal(planted.exitCode, 0, planted.stderr.text);
      assert.ok(!existsSync(join(root, ".git")), "the planted .git stayed in the workspace");
      const [violation] = planted.sandbox?.violations ?? [];
      assert.equal(violation?.path, join(root, ".git"));
      assert.match(violation?.quarantinedTo ?? "", /\/quarantine\/[0-9a-f-]+-\.git$/);
      assert.equal(
        readFileSync(join(violation!.quarantinedTo!, "hooks", "post-checkout"), "utf8"),
        "touch /tmp/owned\n",
      );
      // A background process: moved once it settled.
      const task = await executor.start(executor.resolve({
        command: "mkdir .git",
        workdir: root,
        sandboxPolicy: policy({ workspaceRoot: root }),
      }));
      await task.done;
      assert.equal(task.sandbox?.violations?.[0]?.path, join(root, ".git"));
      assert.ok(!existsSync(join(root, ".git")));
      // Nothing made there: nothing to report.
      const clean = await executor.run(executor.resolve({
        command: "true",
        workdir: root,
        sandboxPolicy: policy({ workspaceRoot: root }),
      }));
      assert.equal(clean.sandbox?.violations, undefined);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the remote sandbox under a symlinked TMPDIR", { skip: sshdMissing }, () => {
  // The private folder is made in the session's TMPDIR: through a symlink,
  // its path did not lie in the root that holds it, judged by the paths.
  it("keeps its private folder read-only to a writable root that holds it", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-remote-tmp-")));
    mkdirSync(join(base, "real"));
    symlinkSync(join(base, "real"), join(base, "link"));
    const sshd = await startSshd({ env: { TMPDIR: join(base, "link") } });
    try {
      await using executor = new SshBashExecutor({ ...sshd.config, cwd: base });
      const result = await executor.run(executor.resolve({
        command: 'touch "${TMPDIR%/tmp}/planted"; echo "$TMPDIR"',
        sandboxPolicy: {
          mode: "workspace-write",
          workspaceRoot: join(base, "real"),
          network: "deny",
        },
      }));
      const folder = dirname(result.stdout.text.trim());
      // In the user's folder of shellseam folders there.
      assert.equal(dirname(dirname(folder)), join(base, "real"));
      assert.match(result.stderr.text, /Read-only file system/);
      assert.ok(!existsSync(join(folder, "planted")), "the command wrote the private folder");
    } finally {
      await sshd.dispose();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
