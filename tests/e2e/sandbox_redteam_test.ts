// Attacks of a prompt-injected model that runs confined commands and may call
// git_commit, over each backend as root (the gitCommit checks run on the host
// and do not depend on the command's user): each test fails if the attack
// works. A confined command plants a whole repository where the sandbox does
// not keep `.git` read-only, with `COMMIT_EDITMSG` and `logs/HEAD` linked to a
// file outside the workspace; git writes the commit message (the model's
// words) through such links, so a commit there would write any file the host
// user can write (for example a shell start-up file).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { findOnPath } from "../../engine/_session.ts";
import { gitCommit, GitCommitError } from "../../git/mod.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import {
  executorFor,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";

const statuses = await probeHere();
const noGit = findOnPath("git", process.env.PATH) === null
  ? "git is not installed here; install git"
  : false;
const AUTHOR = { name: "Agent", email: "agent@example.com" };
const VICTIM_TEXT = "the user's own start-up file\n";

/** A file outside the workspace that the host user can write, standing for ~/.bashrc. */
function victim(workspace: Workspace): string {
  const path = join(workspace.base, "victim-bashrc");
  writeFileSync(path, VICTIM_TEXT);
  return path;
}

/** A confined script that makes a repository in `dir` whose writes lead to `target`. */
function plantRepository(dir: string, target: string): string {
  return `mkdir -p '${dir}' && cd '${dir}' && git init -q && ` +
    `ln -s '${target}' .git/COMMIT_EDITMSG && mkdir -p .git/logs && ` +
    `ln -s '${target}' .git/logs/HEAD && echo planted > file.txt`;
}

/** Commits `file.txt` in `dir` through gitCommit, with a message a shell would run. */
function commitThere(workspace: Workspace, dir: string): Promise<unknown> {
  return gitCommit({
    workspaceRoot: workspace.root,
    cwd: dir,
    paths: ["file.txt"],
    message: `x; touch '${join(workspace.base, "canary")}'`,
    author: AUTHOR,
  });
}

for (const backend of SANDBOX_BACKENDS) {
  describe(`gitCommit after a confined command planted a repository (${backend})`, {
    skip: skipUnless(statuses, backend) || noGit,
  }, () => {
    // The sandbox never bound these read-only: gitCommit must not trust them. A plant past the
    // walk's depth is moved to the quarantine when the call settles (the sweep walks that root
    // again without a bound), so no repository is left there; one in a skipped tree stays, and
    // gitCommit refuses it.
    const refusals: Record<string, RegExp> = {
      "a/b/c/d/e/f/g": /^No git repository holds ".*\/a\/b\/c\/d\/e\/f\/g"/,
      "node_modules/pkg": /does not keep ".*\/\.git" read-only/,
      ".venv/lib": /does not keep ".*\/\.git" read-only/,
    };
    for (const [dir, refusal] of Object.entries(refusals)) {
      it(`refuses a repository planted at ${dir}, past the walk or in a skipped tree`, async () => {
        using workspace = tempWorkspace();
        const target = victim(workspace);
        await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
        const result = await executor.run(executor.resolve({
          command: plantRepository(dir, target),
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        await assert.rejects(
          commitThere(workspace, dir),
          (error) => error instanceof GitCommitError && refusal.test(error.message),
        );
        assert.equal(readFileSync(target, "utf8"), VICTIM_TEXT);
      });
    }

    // A background command's plant is moved only when it settles or is read:
    // until then the plant is there, and git would write through it.
    it("refuses a repository a background command planted and keeps, until that command ends", async () => {
      using workspace = tempWorkspace();
      const target = victim(workspace);
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const task = await executor.start(executor.resolve({
        command: `${plantRepository("sub", target)} && exec sleep 60`,
      }));
      // Polled on the host: reading the task's output would sweep the plant away.
      const ready = join(workspace.root, "sub", "file.txt");
      for (const deadline = Date.now() + 30_000; !existsSync(ready) && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(existsSync(ready), "the background command did not plant its repository");
      await assert.rejects(
        commitThere(workspace, "sub"),
        (error) => error instanceof GitCommitError && /still running can write/.test(error.message),
      );
      assert.equal(readFileSync(target, "utf8"), VICTIM_TEXT);
      await task.kill();
      await task.done;
      // Its settling sweep took the plant away.
      assert.ok(task.sandbox?.violations?.some((v) => v.path.endsWith("/sub/.git")));
    });

    // The other way round: while a commit holds the repository, a confined
    // call that could write it does not start (a slow git stands for a big
    // repository).
    it("refuses to launch a command that could write a repository a commit holds", async () => {
      using workspace = tempWorkspace();
      const { root, base } = workspace;
      execFileSync("git", ["init", "-q", root]);
      writeFileSync(join(root, "file.txt"), "mine\n");
      mkdirSync(join(base, "bin"));
      const real = findOnPath("git", process.env.PATH)!;
      writeFileSync(join(base, "bin", "git"), `#!/bin/sh\nsleep 0.3\nexec '${real}' "$@"\n`);
      chmodSync(join(base, "bin", "git"), 0o755);
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const path = process.env.PATH;
      process.env.PATH = `${join(base, "bin")}:${path}`;
      let committing: Promise<unknown>;
      try {
        committing = gitCommit({
          workspaceRoot: root,
          paths: ["file.txt"],
          message: "m",
          author: AUTHOR,
        });
      } finally {
        process.env.PATH = path;
      }
      await assert.rejects(
        executor.run(executor.resolve({ command: `touch '${join(base, "canary")}'` })),
        (error) =>
          error instanceof BashSpawnError &&
          /commit \(gitCommit\) is in progress/.test(error.message),
      );
      assert.equal(existsSync(join(base, "canary")), false);
      await committing;
      const after = await executor.run(executor.resolve({ command: "echo ran" }));
      assert.equal(after.stdout.text, "ran\n");
    });

    // gitCommit's checks are a snapshot: a command still running could swap
    // a nested repository (rename its folder away, plant one with a filter
    // driver in its place) between them and git add. None may run meanwhile.
    it("refuses while any background command that can write the repository runs", async () => {
      using workspace = tempWorkspace();
      const { root } = workspace;
      mkdirSync(join(root, "sub"));
      execFileSync("git", ["init", "-q", join(root, "sub")]);
      writeFileSync(join(root, "sub", "file.txt"), "mine\n");
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const task = await executor.start(executor.resolve({ command: "exec sleep 60" }));
      await assert.rejects(
        commitThere(workspace, "sub"),
        (error) =>
          error instanceof GitCommitError &&
          error.message.includes(`still running can write "${root}"`),
      );
      await task.kill();
      await task.done;
      await commitThere(workspace, "sub");
      assert.equal(
        execFileSync("git", ["-C", join(root, "sub"), "show", "HEAD:file.txt"], {
          encoding: "utf8",
        }),
        "mine\n",
      );
    });
  });
}

for (const backend of SANDBOX_BACKENDS) {
  // denyRead masks by mounts in the command's mount namespace; Landlock runs
  // without a pid namespace, so /proc/1/root and /proc/<host pid>/root lead
  // to the host's unmasked view. Root may follow them by permissions alone:
  // Landlock's ptrace scoping is what refuses it (bwrap shows no host pid).
  it(`a denied secret stays unread through /proc/<pid>/root of the host (${backend}, root)`, {
    skip: skipUnless(statuses, backend) ||
      (process.getuid?.() !== 0 ? "needs root, who may follow any /proc/<pid>/root" : false),
  }, async () => {
    using workspace = tempWorkspace();
    const secret = join(workspace.base, "secrets", "key");
    mkdirSync(join(workspace.base, "secrets"));
    writeFileSync(secret, "SECRET-KEY-CONTENT\n");
    await using executor = executorFor(backend, workspace, {
      denyRead: [join(workspace.base, "secrets")],
    });
    const result = await executor.run(executor.resolve({
      command:
        `for p in 1 ${process.pid} $PPID; do cat /proc/$p/root${secret} /proc/$p/cwd/../secrets/key; done; ` +
        `cat ${secret}; true`,
    }));
    assert.doesNotMatch(result.stdout.text, /SECRET-KEY-CONTENT/);
    assert.match(result.stderr.text, /Permission denied/);
  });
}

for (const backend of SANDBOX_BACKENDS) {
  // Landlock has no pid namespace: a process that left the command's session
  // (and dropped the watchdog's marker) outlived the call and its sweep, and
  // planted a .git that every later call then saw at launch and kept.
  // Without cgroups, which would hold it where this process can make them.
  it(`a process that calls setsid does not outlive its call to plant later (${backend}, root)`, {
    skip: skipUnless(statuses, backend),
  }, async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor(backend, workspace, {
      defaultMode: "workspace-write",
      useCgroups: false,
    });
    const result = await executor.run(executor.resolve({
      command: "env -u SHELLSEAM_WATCHDOG setsid sh -c 'sleep 1; mkdir -p sub/.git; " +
        "echo planted > sub/.git/config' </dev/null >/dev/null 2>&1 & echo started",
    }));
    assert.equal(result.stdout.text, "started\n");
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(existsSync(join(workspace.root, "sub", ".git")), false);
  });
}

for (const backend of SANDBOX_BACKENDS) {
  // Projects share git settings with `git config include.path ../<file>`:
  // that file is read by the user's git as its own config, so a command that
  // wrote an fsmonitor there had the user's next git status run it, unconfined.
  it(`a config file a repository includes can be neither written nor created (${backend}, root)`, {
    skip: skipUnless(statuses, backend) || noGit,
  }, async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    const canary = join(workspace.base, "canary");
    execFileSync("git", ["init", "-q", root]);
    writeFileSync(join(root, "shared.gitconfig"), "[user]\n\tname = shared\n");
    execFileSync("git", ["-C", root, "config", "include.path", "../shared.gitconfig"]);
    execFileSync("git", ["-C", root, "config", "includeIf.onbranch:*.path", "../tools/later.inc"]);
    await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
    const plant = `[core]\n\tfsmonitor = \"touch '${canary}'; false\"\n`;
    const result = await executor.run(executor.resolve({
      command:
        `printf '${plant}' >> shared.gitconfig; mkdir -p tools; printf '${plant}' > tools/later.inc`,
    }));
    assert.deepEqual(result.sandbox?.violations?.map((v) => v.path), [
      join(root, "tools", "later.inc"),
    ]);
    assert.equal(readFileSync(join(root, "shared.gitconfig"), "utf8"), "[user]\n\tname = shared\n");
    // The user's own git, unhardened, afterwards.
    execFileSync("git", ["-C", root, "status", "--short"]);
    assert.equal(existsSync(canary), false);
  });
}

for (const backend of SANDBOX_BACKENDS) {
  // git reads an included file's includes and its core.hooksPath as its own
  // config: a second-level include, or the hooks folder an included file
  // names, was left writable, and the user's next git commit ran a hook.
  it(
    `includes of includes, and the hooks folder an include names, stay unwritable (${backend}, root)`,
    {
      skip: skipUnless(statuses, backend) || noGit,
    },
    async () => {
      using workspace = tempWorkspace();
      const { root } = workspace;
      const canary = join(workspace.base, "canary");
      execFileSync("git", ["init", "-q", root]);
      writeFileSync(join(root, "team.gitconfig"), "[core]\n\thooksPath = .githooks\n");
      writeFileSync(join(root, "team.gitconfig"), "[include]\n\tpath = more.gitconfig\n", {
        flag: "a",
      });
      writeFileSync(join(root, "more.gitconfig"), "[user]\n\tname = more\n");
      execFileSync("git", ["-C", root, "config", "include.path", "../team.gitconfig"]);
      mkdirSync(join(root, ".githooks"));
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const plant = `[core]\n\tfsmonitor = \"touch '${canary}'; false\"\n`;
      const result = await executor.run(executor.resolve({
        command: `printf '${plant}' >> more.gitconfig; ` +
          `printf '#!/bin/sh\\ntouch ${canary}\\n' > .githooks/pre-commit; ` +
          "chmod +x .githooks/pre-commit; true",
      }));
      assert.equal(result.exitCode, 0);
      assert.equal(readFileSync(join(root, "more.gitconfig"), "utf8"), "[user]\n\tname = more\n");
      assert.equal(existsSync(join(root, ".githooks", "pre-commit")), false);
      // The user's own git, unhardened, afterwards.
      execFileSync("git", ["-C", root, "status", "--short"]);
      execFileSync("git", [
        "-C",
        root,
        "-c",
        "user.name=u",
        "-c",
        "user.email=u@x",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
      ]);
      assert.equal(existsSync(canary), false);
    },
  );
}
