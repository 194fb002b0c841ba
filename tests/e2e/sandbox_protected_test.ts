// A confined command plants git metadata (or another protected path) the way
// an attacker would, so that the next unconfined `git status` in the
// workspace runs what it planted: for every shape of `.git` (missing, a
// symlink, a `gitdir:` file, a linked worktree's commondir), nested
// repositories and submodules, a custom protected path, and a background
// task; over each backend, as root and as nobody. Afterwards the host runs
// git unconfined, as the workspace's owner, and nothing planted may run; the
// workspace listing is diffed before and after.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import type { BashSandboxInfo } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { protectionGaps } from "../../sandbox/protected/mod.ts";
import { DEFAULT_PROTECTED_PATHS } from "../../sandbox/mod.ts";
import {
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";
import { TEST_GIT_ENV } from "../_git.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOBODY = 65534;
const statuses = await probeHere();
const deno = findDeno(process.env.PATH);
const needs = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : "reason" in deno
  ? deno.reason
  : findOnPath("git", process.env.PATH) === null
  ? "git is not installed here; install git"
  : false;
const nobodyNeeds = process.getuid?.() !== 0 ||
    findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : false;

/** One planted attack: where, which command, and what the test checks afterwards. */
interface Attack {
  /** The workspace root (its own directory under the test's base). */
  root: string;
  /** Where the command runs. */
  workdir: string;
  command: string;
  protectedPaths?: string[];
  /** Run as a background task through the tools, reading it while it runs. */
  background?: boolean;
}

/** What the child process reports for one attack. */
interface Outcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  sandbox?: BashSandboxInfo;
  /** The tool rendering (for a background task: the final task_output). */
  text: string;
  /** Background: whether `<root>/.git` existed after a read once it was planted. */
  plantedAfterRead?: boolean;
  /** Background: what the reads of the running command said they moved. */
  moved?: { path: string; quarantinedTo: string | null }[];
  /** Whether every quarantined path was there before the executor was disposed. */
  kept: boolean;
}

/** The executor's side, run as the user under test; prints the outcomes as JSON. */
const CHILD = `
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SandboxBashExecutor } from ${JSON.stringify(join(ROOT, "sandbox/mod.ts"))};
import { renderRunResult } from ${JSON.stringify(join(ROOT, "tool/mod.ts"))};
import { renderTaskOutput } from ${JSON.stringify(join(ROOT, "tool/render/mod.ts"))};
const { backend, base, attacks } = JSON.parse(Deno.args[0]);
await using executor = new SandboxBashExecutor({
  workspaceRoot: base,
  defaultMode: "workspace-write",
  backends: [backend],
});
const outcomes: Record<string, unknown> = {};
for (const [name, attack] of Object.entries(attacks) as [string, Record<string, unknown>][]) {
  const sandboxPolicy = {
    mode: "workspace-write" as const,
    workspaceRoot: attack.root as string,
    network: "deny" as const,
    ...(attack.protectedPaths ? { protectedPaths: attack.protectedPaths as string[] } : {}),
  };
  const spec = executor.resolve({
    command: attack.command as string,
    workdir: attack.workdir as string,
    sandboxPolicy,
  });
  if (!attack.background) {
    const result = await executor.run(spec);
    outcomes[name] = {
      exitCode: result.exitCode,
      stdout: result.stdout.text,
      stderr: result.stderr.text,
      sandbox: result.sandbox,
      text: renderRunResult(result).text,
    };
    continue;
  }
  const process = await executor.start(spec);
  let seen = "";
  const moved = [];
  for (let i = 0; i < 200 && !seen.includes("planted"); i++) {
    const read = process.readOutput();
    seen += read.stdout.text;
    moved.push(...(read.violations ?? []));
    await new Promise((done) => setTimeout(done, 50));
  }
  // This read moves what was planted (if none before did), while the command still runs.
  moved.push(...(process.readOutput().violations ?? []));
  const plantedAfterRead = existsSync(join(attack.root as string, ".git"));
  await process.done;
  const snapshot = {
    id: "bash-1",
    kind: "bash",
    label: name,
    startedAt: 0,
    status: process.status,
    exitCode: process.exitCode,
    signal: process.signal,
  };
  outcomes[name] = {
    exitCode: process.exitCode,
    stdout: "",
    stderr: "",
    sandbox: process.sandbox,
    text: renderTaskOutput({ snapshot, output: { ...process.readOutput(), sandbox: process.sandbox } }),
    plantedAfterRead,
    moved,
  };
}
// The quarantine lives in the executor's private directory, until disposal.
for (const outcome of Object.values(outcomes) as { sandbox?: { violations?: { quarantinedTo: string | null }[] }; kept?: boolean }[]) {
  outcome.kept = (outcome.sandbox?.violations ?? []).every((v) => v.quarantinedTo !== null && existsSync(v.quarantinedTo));
}
console.log(JSON.stringify(outcomes));
`;

/** Runs `git` (as `uid`) and fails the test when it cannot start. */
function git(uid: number, cwd: string, ...args: string[]): { status: number | null; out: string } {
  const env: Record<string, string> = { ...TEST_GIT_ENV, HOME: cwd };
  // Its own home's config (none there), not the other tests' /dev/null.
  delete env.GIT_CONFIG_GLOBAL;
  const as = uid === 0 ? [] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
  const [program, ...rest] = [...as, "git", ...args];
  const result = spawnSync(program!, rest, { cwd, env, encoding: "utf8" });
  assert.equal(result.error, undefined);
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

/** Every path below `root` with its kind, sorted: what the host sees. */
function listing(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" }).map((name) => {
    const stat = lstatSync(join(root, name));
    return `${stat.isSymbolicLink() ? "l" : stat.isDirectory() ? "d" : "f"} ${name}`;
  }).sort();
}

/** Gives `path` and everything beneath it to nobody (symlinks themselves, never their targets). */
function giveToNobody(path: string): void {
  lchownSync(path, NOBODY, NOBODY);
  for (const name of readdirSync(path, { recursive: true, encoding: "utf8" })) {
    lchownSync(join(path, name), NOBODY, NOBODY);
  }
}

/** The attacks, each in a workspace of its own under `workspace.base`, set up by root. */
function prepare(workspace: Workspace): Record<string, Attack> {
  const { base } = workspace;
  const fsmonitor = (canary: string) => `config core.fsmonitor 'touch ${canary}; false'`;
  const plant = (canary: string) => `git ${fsmonitor(canary)}`;
  const dir = (name: string): string => {
    const root = join(base, name);
    mkdirSync(root);
    return root;
  };
  const attacks: Record<string, Attack> = {};

  const absent = dir("absent");
  attacks.absent = {
    root: absent,
    workdir: absent,
    command: `git init -q . && ${plant(join(base, "canary-absent"))}`,
  };

  // .git -> meta, a repository inside the workspace.
  const symlink = dir("symlink");
  git(0, symlink, "init", "-q", ".");
  renameSync(join(symlink, ".git"), join(symlink, "meta"));
  symlinkSync("meta", join(symlink, ".git"));
  const symlinkCanary = join(base, "canary-symlink");
  attacks.symlink = {
    root: symlink,
    workdir: symlink,
    command: `${plant(symlinkCanary)}; rm .git && git init -q . && ${plant(symlinkCanary)}`,
  };

  // .git is a "gitdir: <workspace>/store" file.
  const file = dir("gitdir-file");
  git(0, base, "init", "-q", `--separate-git-dir=${join(file, "store")}`, file);
  const fileCanary = join(base, "canary-gitdir-file");
  attacks.gitdirFile = {
    root: file,
    workdir: file,
    command: `${plant(fileCanary)}; rm -f .git; git init -q . && ${plant(fileCanary)}; ` +
      `echo evil >> store/config`,
  };

  // A linked worktree whose main repository (named only by the worktree's
  // commondir) lies in the workspace, and no longer has a checkout.
  const worktree = dir("worktree");
  const main = join(worktree, "main");
  git(0, base, "init", "-q", `--separate-git-dir=${join(worktree, "store.git")}`, main);
  git(0, main, "commit", "-q", "--allow-empty", "-m", "first");
  git(0, main, "worktree", "add", "-q", join(worktree, "wt"));
  rmSync(main, { recursive: true });
  attacks.worktree = {
    root: worktree,
    workdir: join(worktree, "wt"),
    command: plant(join(base, "canary-worktree")),
  };

  // A repository with a submodule (its .git a gitdir: file into .git/modules)
  // and a nested repository that is not a submodule; the command also makes
  // a fresh nested one.
  const nested = dir("nested");
  const upstream = join(base, "upstream");
  git(0, base, "init", "-q", upstream);
  git(0, upstream, "commit", "-q", "--allow-empty", "-m", "first");
  git(0, nested, "init", "-q", ".");
  git(0, nested, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "lib");
  git(0, nested, "init", "-q", "sub");
  const nestedCanary = join(base, "canary-nested");
  attacks.nested = {
    root: nested,
    workdir: nested,
    command: `git -C sub ${fsmonitor(nestedCanary)} && echo planted-sub; ` +
      `git -C lib ${fsmonitor(nestedCanary)} && echo planted-lib; rm -rf sub/.git lib/.git; ` +
      `mkdir fresh && git init -q fresh && git -C fresh ${fsmonitor(nestedCanary)} && ` +
      "echo planted-fresh",
  };

  // The agent's own config folder, existing, and a .envrc, missing.
  const custom = dir("custom");
  mkdirSync(join(custom, ".shellseam"));
  writeFileSync(join(custom, ".shellseam", "config"), "safe\n");
  attacks.custom = {
    root: custom,
    workdir: custom,
    protectedPaths: [".git", ".shellseam", ".envrc"],
    command: `echo evil >> .shellseam/config; echo 'touch ${join(base, "canary-custom")}' > .envrc`,
  };

  // A fresh repository inside a directory left unlistable (a user who is not
  // root cannot list it, but could still enter it and run git there).
  const hidden = dir("hidden");
  attacks.hidden = {
    root: hidden,
    workdir: hidden,
    command: `mkdir -p cover/x cover/locked && git init -q cover/x && ` +
      `git -C cover/x ${fsmonitor(join(base, "canary-hidden"))} && ` +
      "chmod 000 cover/locked && chmod 111 cover",
  };

  const background = dir("background");
  attacks.background = {
    root: background,
    workdir: background,
    background: true,
    command: `git init -q . && ${
      plant(join(base, "canary-background"))
    } && echo planted; sleep 2; echo done`,
  };
  return attacks;
}

/** The quarantine line the tools show for `path`. */
function markerOf(path: string, quarantinedTo: string): string {
  return `[sandbox: the command created or replaced the protected path ${path}, which commands may not write; it was moved to ${quarantinedTo}]`;
}

/** Asserts one violation, moved out of every workspace; returns where it went. */
function movedOut(outcome: Outcome, path: string, base: string): string {
  assert.equal(outcome.sandbox?.violations?.length, 1, JSON.stringify(outcome.sandbox));
  const [violation] = outcome.sandbox!.violations!;
  assert.equal(violation!.path, path);
  const to = violation!.quarantinedTo;
  assert.ok(to !== null && !to.startsWith(`${base}/`), `moved to ${to}`);
  assert.ok(outcome.kept, "the quarantined copy is kept");
  return to;
}

for (const backend of SANDBOX_BACKENDS) {
  for (const uid of [0, NOBODY]) {
    const user = uid === 0 ? "root" : "nobody";
    const skip = needs || skipUnless(statuses, backend) || (uid !== 0 && nobodyNeeds);
    describe(`protected paths over ${backend}, as ${user}`, { skip }, () => {
      it("nothing a confined command plants runs when git runs unconfined afterwards", async () => {
        assert.ok(!("reason" in deno));
        using workspace = tempWorkspace();
        const { base } = workspace;
        const attacks = prepare(workspace);
        const home = join(base, "home");
        mkdirSync(home);
        const script = join(base, "attacks.ts");
        writeFileSync(script, CHILD);
        if (uid !== 0) giveToNobody(base);
        const before = Object.fromEntries(
          Object.entries(attacks).map(([name, attack]) => [name, listing(attack.root)]),
        );

        await using executor = new LocalBashExecutor({ cwd: base });
        const as = uid === 0 ? "" : `setpriv --reuid=${uid} --regid=${uid} --clear-groups `;
        const result = await executor.run(executor.resolve({
          command: `exec ${as}"$DENO" run --no-config --no-lock --allow-all attacks.ts "$SPEC"`,
          env: {
            DENO: deno.path,
            HOME: home,
            DENO_DIR: join(home, "deno-dir"),
            SPEC: JSON.stringify({ backend, base, attacks }),
          },
          timeoutMs: 120_000,
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        const outcomes = JSON.parse(result.stdout.text) as Record<string, Outcome>;
        if (process.env.DEBUG_PROTECTED) console.log(JSON.stringify(outcomes, null, 1));
        const afterAll = Object.fromEntries(
          Object.entries(attacks).map(([name, attack]) => [name, listing(attack.root)]),
        );
        const after = (name: string): string[] => afterAll[name]!;
        const run = (name: string): Outcome => outcomes[name]!;
        const { absent, symlink, gitdirFile, worktree, nested, custom, hidden, background } =
          attacks;

        // Now the person (or the harness) runs git, unconfined, as the owner.
        const places = [
          absent!.root,
          symlink!.root,
          gitdirFile!.root,
          worktree!.workdir,
          nested!.root,
          join(nested!.root, "sub"),
          join(nested!.root, "lib"),
          join(nested!.root, "fresh"),
          background!.root,
        ];
        // Root reads the hidden directory and moves the repository in it; another
        // user cannot, so the directory goes whole.
        const cover = join(hidden!.root, "cover");
        places.push(join(cover, "x"));
        for (const place of places.filter((place) => existsSync(place))) git(uid, place, "status");
        assert.equal(
          git(uid, worktree!.workdir, "status").status,
          0,
          "the worktree still works",
        );
        const canaries = readdirSync(base).filter((name) => name.startsWith("canary-"));
        assert.deepEqual(canaries, [], "git ran what a confined command planted");

        // Missing: planted during the call, gone when it ended, nothing left.
        const planted = run("absent");
        assert.equal(planted.exitCode, 0, planted.stderr);
        const to = movedOut(planted, join(absent!.root, ".git"), base);
        assert.ok(planted.text.includes(markerOf(join(absent!.root, ".git"), to)), planted.text);
        assert.ok(
          planted.sandbox?.enforcement?.gaps.includes(protectionGaps(DEFAULT_PROTECTED_PATHS)[0]!),
        );
        assert.deepEqual(after("absent"), before.absent);

        // Symlink: the target refused the write; the replaced link is put back.
        movedOut(run("symlink"), join(symlink!.root, ".git"), base);
        assert.equal(readlinkSync(join(symlink!.root, ".git")), "meta");
        assert.doesNotMatch(
          readFileSync(join(symlink!.root, "meta", "config"), "utf8"),
          /fsmonitor/,
        );
        assert.deepEqual(after("symlink"), before.symlink);

        // A gitdir: file and its target, and a worktree's commondir: refused outright.
        for (const name of ["gitdirFile", "worktree"]) {
          const outcome = run(name);
          assert.notEqual(outcome.exitCode, 0, `${name}: ${outcome.stderr}`);
          assert.equal(outcome.sandbox?.violations, undefined, `${name}: ${outcome.stderr}`);
          assert.deepEqual(after(name), before[name], name);
        }
        assert.doesNotMatch(
          readFileSync(join(gitdirFile!.root, "store", "config"), "utf8"),
          /evil|fsmonitor/,
        );

        // Nested and submodule refused; the fresh nested repository moved away.
        const inner = run("nested");
        assert.equal(inner.stdout, "planted-fresh\n", inner.stderr);
        movedOut(inner, join(nested!.root, "fresh", ".git"), base);
        assert.deepEqual(after("nested"), [...before.nested!, "d fresh"].sort());

        // A custom protected path: the existing one refused, the missing one moved away.
        movedOut(run("custom"), join(custom!.root, ".envrc"), base);
        assert.equal(readFileSync(join(custom!.root, ".shellseam", "config"), "utf8"), "safe\n");
        assert.deepEqual(after("custom"), before.custom);

        // The hidden repository: moved away with or without its directory.
        const hiding = run("hidden");
        assert.equal(hiding.exitCode, 0, hiding.stderr);
        if (uid === 0) {
          movedOut(hiding, join(cover, "x", ".git"), base);
          assert.deepEqual(after("hidden"), ["d cover", "d cover/locked", "d cover/x"]);
        } else {
          movedOut(hiding, cover, base);
          assert.equal(hiding.sandbox?.violations?.[0]?.unlisted, true);
          assert.ok(hiding.text.includes("left it unreadable"), hiding.text);
          assert.deepEqual(after("hidden"), before.hidden);
        }

        // A background task: moved at a read while it still ran, reported when settled.
        const task = run("background");
        assert.equal(task.plantedAfterRead, false);
        // A read that lands while git init still writes moves a partial .git,
        // and git goes on to make another: one move or more, each reported.
        const taskViolations = task.sandbox?.violations ?? [];
        assert.ok(taskViolations.length >= 1, JSON.stringify(task.sandbox));
        for (const violation of taskViolations) {
          assert.equal(violation.path, join(background!.root, ".git"));
          const to = violation.quarantinedTo;
          assert.ok(to !== null && !to.startsWith(`${base}/`), `moved to ${to}`);
          assert.ok(task.text.includes(markerOf(violation.path, to)), task.text);
        }
        assert.ok(task.kept, "the quarantined copies are kept");
        assert.deepEqual(task.moved, taskViolations);
        assert.deepEqual(after("background"), before.background);
      });
    });
  }
}
