// A bwrap standby set up ahead (its mounts made with the last call's options,
// its reporter waiting for the command alone) runs a call only when that
// call's setup would be the same: attacks that change what the mounts cover
// between two calls, without changing the options, get a setup of their own.
// The command tells which setup ran it by its namespace's pid 1 (the
// reporter's command line), never by timing; that none was set up while
// another call ran, a twin executor making the same calls, whose own setup
// is due no earlier (see `watchedPair`), never a pause.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { messageOf } from "../../seam/message.ts";
import type { BashExecRequest } from "../../seam/mod.ts";
import type { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { OPTIONS_FILE_PREFIX } from "../../sandbox/backends/bwrap/_standby.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import {
  executorFor,
  probeHere,
  recording,
  SET_UP_TOKEN,
  setUpStandbys,
  skipUnless,
  STANDBY_TOKENS,
  tempWorkspace,
  until,
  type Workspace,
} from "../sandbox/_fixtures.ts";

const statuses = await probeHere();
const support = cgroupSupport();
const skip = skipUnless(statuses, "bwrap") ||
  ("unavailable" in support.processes
    ? `no cgroup for "processes" here (standbys hold cgroups): ${support.processes.unavailable}`
    : false);

/**
 * Prints, first, which setup runs the command: "set-up" (ahead) or "other".
 * The token's last character in brackets: the pattern does not match
 * itself, in the command line of a reporter that runs this command.
 */
const WHICH = `if tr '\\0' ' ' < /proc/1/cmdline | grep -q -- "${SET_UP_TOKEN.slice(0, -1)}[${
  SET_UP_TOKEN.slice(-1)
}]"; then echo set-up; else echo other; fi; `;

/** Whether a recorded spawn's command line is a bwrap standby set up ahead's. */
const isSetUp = (line: string): boolean => line.includes(SET_UP_TOKEN);

/** Whether a standby set up ahead that `spawned` recorded waits for its command. */
const setUpWaiting = (spawned: { pid: number; line: string }[]) => (): boolean =>
  spawned.some(({ pid, line }) => isSetUp(line) && setUpStandbys().includes(pid));

/**
 * An executor of `workspace` whose spawns are `watched`, and its `twin`,
 * whose spawns are `control`: the same calls made on the twin, with no
 * other call meanwhile, tell when the executor's standby set up ahead would
 * have started (its setup asked for earlier, due no later than the twin's).
 * Nothing else shows that a standby was not set up.
 */
function watchedPair(workspace: Workspace) {
  const watched = recording();
  const control = recording();
  const config = { defaultMode: "workspace-write" as const };
  const executor = executorFor("bwrap", workspace, { ...config, runtime: watched.runtime });
  const twin = executorFor("bwrap", workspace, { ...config, runtime: control.runtime });
  return {
    executor,
    watched,
    twin,
    control,
    [Symbol.asyncDispose]: async () => {
      await twin[Symbol.asyncDispose]();
      await executor[Symbol.asyncDispose]();
    },
  };
}

/**
 * Makes a call of `true` with `request` on `pair`'s twin, waits until the
 * twin's standby set up ahead waits, and asserts that the executor set up
 * none (since its `since`th spawn): its own setup, asked for earlier, would
 * have been due no later.
 */
async function noneSetUpBeforeTwin(
  pair: ReturnType<typeof watchedPair>,
  request: Omit<BashExecRequest, "command"> = {},
  since = 0,
): Promise<void> {
  await run(pair.twin, "true", request);
  await until(setUpWaiting(pair.control.spawned), 30_000, "the twin's standby set up ahead");
  const setUp = pair.watched.spawned.slice(since).filter(({ line }) => isSetUp(line));
  assert.deepEqual(setUp, [], "set up while another call ran");
}

/** Runs `during` while an unconfined command of `executor` runs, then ends that command. */
async function whileUnconfined(
  executor: SandboxBashExecutor,
  during: () => Promise<void>,
): Promise<void> {
  using signals = tempWorkspace();
  const ran = join(signals.root, "ran");
  const go = join(signals.root, "go");
  const other = executor.run({
    command: `: > '${ran}'; until [ -e '${go}' ]; do sleep 0.02; done`,
    sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
  });
  try {
    await until(() => existsSync(ran), 30_000, "the unconfined command's start");
    await during();
  } finally {
    writeFileSync(go, "");
    assert.equal((await other).exitCode, 0);
  }
}

/** Runs `command` after `WHICH`: which setup ran it, and the rest of its result. */
async function run(
  executor: SandboxBashExecutor,
  command: string,
  request: Omit<BashExecRequest, "command"> = {},
): Promise<{ which: string; stdout: string; stderr: string; exitCode: number | null }> {
  const result = await executor.run({ command: WHICH + command, ...request });
  const [which = "", ...rest] = result.stdout.text.split("\n");
  return { which, stdout: rest.join("\n"), stderr: result.stderr.text, exitCode: result.exitCode };
}

/**
 * `step`'s result, made again (at most 3 times in all) while the host's
 * mount table changed during it: a mount made meanwhile, by another test
 * (this file's own mount tests, the spill tests' full disk), keeps every
 * call out of a standby set up before it (see `PathBindings`).
 */
async function withSteadyMounts<T>(step: () => Promise<T>): Promise<T> {
  const mounts = () => readFileSync("/proc/self/mountinfo", "utf8");
  for (let tries = 1;; tries++) {
    const before = mounts();
    const result = await step();
    if (mounts() === before || tries === 3) return result;
  }
}

/** Why this process cannot mount a tmpfs on a folder of its own, or false when it can. */
function noMount(): string | false {
  if (process.getuid?.() !== 0) return "mounting needs root";
  const dir = mkdtempSync(join(tmpdir(), "shellseam-mount-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "tmpfs", dir], { stdio: "pipe" });
    execFileSync("umount", [dir], { stdio: "pipe" });
    return false;
  } catch (error) {
    return `cannot mount a tmpfs here: ${messageOf(error)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A workspace on a tmpfs of its own, whose later mounts reach the copies of
 * it in other mount namespaces (bwrap's, made slaves of the host's) when
 * `propagation` is "shared", and do not when it is "private" (on a host
 * whose root is shared, as systemd makes it, a new mount is shared too).
 * `mount(path)` mounts a tmpfs there; disposing unmounts them all, the last
 * first, then removes everything.
 */
function tmpfsWorkspace(
  propagation: "private" | "shared",
): Workspace & { mount(path: string): void } {
  const workspace = tempWorkspace();
  const mounted: string[] = [];
  const mount = (path: string) => {
    execFileSync("mount", ["-t", "tmpfs", "tmpfs", path], { stdio: "pipe" });
    mounted.push(path);
  };
  try {
    mount(workspace.base);
    execFileSync("mount", [`--make-${propagation}`, workspace.base], { stdio: "pipe" });
    mkdirSync(workspace.root);
  } catch (error) {
    for (const path of mounted) execFileSync("umount", ["-l", path], { stdio: "pipe" });
    workspace[Symbol.dispose]();
    throw error;
  }
  return {
    base: workspace.base,
    root: workspace.root,
    mount,
    [Symbol.dispose]: () => {
      try {
        // Lazily: a command's process still in one does not keep it.
        for (const path of mounted.reverse()) {
          execFileSync("umount", ["-l", path], { stdio: "pipe" });
        }
      } finally {
        workspace[Symbol.dispose]();
      }
    },
  };
}

/** Waits until exactly one standby set up ahead waits for its command (its paths settled, 1 s). */
async function setUpWaits(): Promise<void> {
  await until(() => setUpStandbys().length === 1, 30_000, "a standby set up ahead");
}

describe("a bwrap standby set up ahead", () => {
  it("runs a call made as the last one, and none whose setup differs", { skip }, async () => {
    using workspace = tempWorkspace();
    const sub = join(workspace.root, "sub");
    mkdirSync(join(workspace.root, ".git", "hooks"), { recursive: true });
    mkdirSync(sub);
    await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
    const probe = 'pwd; echo "${FOO-}"; ulimit -f; [ -c /dev/stdin ] && echo null; ' +
      "echo ${SHELLSEAM_WATCHDOG:+marked}; touch .git/hooks/x 2>&1 || true";
    const cold = await run(executor, probe);
    const warm = await withSteadyMounts(async () => {
      await setUpWaits();
      return await run(executor, probe);
    });
    assert.equal(warm.which, "set-up", warm.stderr);
    assert.equal(warm.stdout, cold.stdout, "what the call's own launch saw");
    assert.match(warm.stdout, /Read-only file system/);
    // Another environment, working folder, or policy: a setup of its own.
    await setUpWaits();
    const env = await run(executor, probe, { env: { FOO: "bar" } });
    assert.deepEqual([env.which, env.stdout.split("\n")[1]], ["other", "bar"]);
    await setUpWaits();
    const back = await run(executor, probe);
    assert.deepEqual([back.which, back.stdout], ["other", cold.stdout], "set up with FOO");
    await setUpWaits();
    const moved = await run(executor, "pwd", { workdir: sub });
    assert.deepEqual([moved.which, moved.stdout], ["other", `${sub}\n`]);
    await setUpWaits();
    const policy = await executor.run({
      command: WHICH + "pwd",
      workdir: sub,
      sandboxPolicy: { mode: "read-only", workspaceRoot: workspace.root, network: "deny" },
    });
    assert.equal(policy.stdout.text, `other\n${sub}\n`);
    const again = await withSteadyMounts(async () => {
      await setUpWaits();
      return await run(executor, "pwd", {
        workdir: sub,
        sandboxPolicy: { mode: "read-only", workspaceRoot: workspace.root, network: "deny" },
      });
    });
    assert.deepEqual([again.which, again.stdout], ["set-up", `${sub}\n`]);
  });

  it("is not set up while another call runs, asked for by a call that settles after it came", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    await using pair = watchedPair(workspace);
    const { executor, watched } = pair;
    await run(executor, "true");
    // At once after the call, which the engine settles once its caller has the result: the
    // setup that its settling asks for (here, after this one came) would start while it runs.
    await whileUnconfined(executor, () => noneSetUpBeforeTwin(pair));
    await run(executor, "true");
    await until(
      setUpWaiting(watched.spawned),
      30_000,
      "a standby set up ahead after the next call",
    );
  });

  it("is not set up while another call runs, asked for by a call that settled before it came", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    await using pair = watchedPair(workspace);
    const { executor, watched } = pair;
    await run(executor, "true", { env: { FOO: "x" } });
    await setUpWaits();
    // The workspace and its folder changed, their times a whole second 1 to 2 s ahead: a setup
    // waits until they settle, a second after that, for the executor and its twin alike.
    const ahead = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
    for (const path of [workspace.base, workspace.root]) utimesSync(path, ahead, ahead);
    const since = watched.spawned.length;
    // With stdin it takes no standby. As it settles, the one set up with FOO=x gives way to
    // one that waits for its options, and a setup with FOO=y is due once the times settle.
    await run(executor, "true", { env: { FOO: "y" }, stdin: "" });
    await until(
      () => watched.spawned.slice(since).some(({ line }) => line.includes(STANDBY_TOKENS.bwrap)),
      30_000,
      "the standby that waits for its options, started as the call settled",
    );
    await whileUnconfined(executor, () => noneSetUpBeforeTwin(pair, { env: { FOO: "y" } }, since));
  });

  it("binds what a background command made since, as a call's own launch does", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, ".git"));
    await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
    await run(executor, "true");
    await setUpWaits();
    // With stdin, it takes no standby: the one set up before knows neither of what it makes.
    const planter = await executor.start({
      command: "echo 'echo safe' > .envrc; mkdir -p n/.git/hooks; : > made; sleep 60",
      stdin: "",
    });
    try {
      await until(() => existsSync(join(workspace.root, "made")), 30_000, "the plant");
      await setUpWaits();
      const attack = await run(
        executor,
        "echo evil >> .envrc; echo evil > n/.git/hooks/pre-commit; true",
      );
      assert.equal((attack.stderr.match(/Read-only file system/g) ?? []).length, 2, attack.stderr);
      assert.equal(readFileSync(join(workspace.root, ".envrc"), "utf8"), "echo safe\n");
      assert.ok(!existsSync(join(workspace.root, "n", ".git", "hooks", "pre-commit")));
      assert.equal(attack.which, "other");
    } finally {
      await planter.kill();
      await planter.done;
    }
  });

  it("covers no other folder than the one its mount was made on (a folder on the way moved)", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "sub", ".git", "hooks"), { recursive: true });
    await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
    await run(executor, "true");
    // A decoy in place of the folder that holds the repository, while the next standby is set
    // up; the real one where no walk looks (the launch's walk would bind it there).
    mkdirSync(join(root, "node_modules"));
    renameSync(join(root, "sub"), join(root, "node_modules", "real"));
    mkdirSync(join(root, "sub", ".git", "hooks"), { recursive: true });
    await run(executor, "true");
    await setUpWaits();
    // Back again: the path names the real repository, and the decoy is where no walk looks.
    renameSync(join(root, "sub"), join(root, "node_modules", "decoy"));
    renameSync(join(root, "node_modules", "real"), join(root, "sub"));
    const attack = await run(executor, "echo evil > sub/.git/hooks/pre-commit");
    assert.match(attack.stderr, /Read-only file system/);
    assert.ok(!existsSync(join(root, "sub", ".git", "hooks", "pre-commit")));
    assert.equal(attack.which, "other");
  });

  it("masks a secret replaced by a rename since it was set up", { skip }, async () => {
    using workspace = tempWorkspace();
    // Outside every writable root: only the host writes it (an editor or a login, by a rename).
    const secret = join(workspace.base, "token");
    writeFileSync(secret, "one\n");
    await using executor = executorFor("bwrap", workspace, {
      defaultMode: "workspace-write",
      denyRead: [secret],
    });
    await run(executor, "true");
    await setUpWaits();
    writeFileSync(`${secret}.new`, "two\n");
    renameSync(`${secret}.new`, secret);
    const attack = await run(executor, `cat ${secret}`);
    assert.match(attack.stderr, /Permission denied/);
    assert.doesNotMatch(attack.stdout, /two/);
    assert.equal(attack.which, "other");
  });

  it("covers a protected file replaced by a rename since it was set up", { skip }, async () => {
    using workspace = tempWorkspace();
    const envrc = join(workspace.root, ".envrc");
    writeFileSync(envrc, "echo one\n");
    await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
    await run(executor, "true");
    await setUpWaits();
    writeFileSync(`${envrc}.new`, "echo two\n");
    renameSync(`${envrc}.new`, envrc);
    const attack = await run(executor, "echo evil >> .envrc");
    assert.match(attack.stderr, /Read-only file system/);
    assert.equal(readFileSync(envrc, "utf8"), "echo two\n");
    assert.equal(attack.which, "other");
    rmSync(envrc);
  });
});

/**
 * What a confined command tries on each options file `$f` it finds (see
 * `OPTIONS_FILE_PREFIX`): each line it prints is a try that worked.
 */
const TAMPER = [
  `printf evil > "$f" && echo "wrote $f"`,
  `printf evil >> "$f" && echo "appended to $f"`,
  `printf evil > "$TMPDIR/o" && mv -f "$TMPDIR/o" "$f" && echo "moved over $f"`,
  `ln -sf /dev/null "$f" && echo "linked $f"`,
  `rm "$f" && echo "removed $f"`,
].map((attempt) => `{ ${attempt}; } 2>/dev/null; `).join("");

describe("a bwrap standby set up ahead, its options file", () => {
  it("is out of every confined command's reach, and gone once the standby ran a call or ended", {
    skip,
  }, async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
    const found = await executor.run({ command: 'echo "$TMPDIR"' });
    const privateDir = dirname(found.stdout.text.trim());
    // The user's folder of private folders writable: the executor's own folder stays read-only.
    const sandboxPolicy = { ...executor.defaultPolicy, writableRoots: [dirname(privateDir)] };
    const files = () =>
      readdirSync(privateDir).filter((name) => name.startsWith(OPTIONS_FILE_PREFIX))
        .map((name) => join(privateDir, name));
    await run(executor, "true", { sandboxPolicy });
    await setUpWaits();
    const [first, ...more] = files();
    assert.ok(first !== undefined && more.length === 0, `one options file: ${files()}`);
    const log = join(workspace.root, "log");
    // In the background (with stdin: it takes no standby), until told to stop: at every file
    // it sees, the standby's that waits and the next one's as it is set up, and a new one.
    const tamper = await executor.start({
      command: `while [ ! -e stop ]; do for f in '${privateDir}'/${OPTIONS_FILE_PREFIX}*; do ` +
        `[ -e "$f" ] || continue; echo "saw $f"; ${TAMPER}done; ` +
        `{ : > '${privateDir}/${OPTIONS_FILE_PREFIX}planted' && echo planted; } 2>/dev/null; ` +
        "sleep 0.05; done >> log",
      stdin: "",
      sandboxPolicy,
    });
    try {
      const saw = (file: string) => () => readFileSync(log, "utf8").includes(`saw ${file}\n`);
      await until(() => existsSync(log) && saw(first)(), 30_000, "the tries at the first file");
      // The next call takes the standby (or, set up otherwise by now, ends it): its file goes.
      const next = await run(executor, "pwd", { sandboxPolicy });
      assert.equal(next.stdout, `${workspace.root}\n`, next.stderr);
      await until(() => !existsSync(first), 30_000, "the first file's removal");
      await setUpWaits();
      const [second, ...others] = files();
      assert.ok(second !== undefined && others.length === 0, `one options file: ${files()}`);
      await until(saw(second), 30_000, "the tries at the next file");
      writeFileSync(join(workspace.root, "stop"), "");
      await tamper.done;
      const tries = readFileSync(log, "utf8").split("\n").filter((line) => line !== "");
      assert.deepEqual(tries.filter((line) => !line.startsWith("saw ")), [], "a try that worked");
      assert.doesNotMatch(readFileSync(second, "utf8"), /evil/);
      assert.deepEqual(files(), [second]);
      const last = await run(executor, "pwd", { sandboxPolicy });
      assert.equal(last.stdout, `${workspace.root}\n`, last.stderr);
      // One killed while it waits (by anyone): its file goes with it.
      await setUpWaits();
      const [third] = files();
      process.kill(setUpStandbys()[0] as number, "SIGKILL");
      await until(() => files().length === 0, 30_000, `the removal of ${third}`);
    } finally {
      await tamper.kill();
      await tamper.done;
    }
  });
});

describe("a bwrap standby set up ahead, after a host mount", () => {
  const noMounts = skip || noMount();
  // Whether or not the host's mounts reach the standby's copy of the mount table, a call sees
  // the mounts made since, and those inside a read-only path are read-only, as in a cold launch.
  for (const propagation of ["private", "shared"] as const) {
    it(`runs no call after a host mount made since (${propagation} mounts)`, {
      skip: noMounts,
    }, async () => {
      using workspace = tmpfsWorkspace(propagation);
      const { root } = workspace;
      const hooks = join(root, ".git", "hooks");
      const data = join(root, "data");
      mkdirSync(hooks, { recursive: true });
      mkdirSync(data);
      await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
      await run(executor, "true");
      await setUpWaits();
      // Over a folder inside a protected one, and over a plain one: neither is a path the
      // setup binds or enters, so only the mount table tells.
      for (const path of [hooks, data]) {
        workspace.mount(path);
        writeFileSync(join(path, "seen"), "");
      }
      const attack = await run(
        executor,
        "ls .git/hooks data; echo evil > .git/hooks/pre-commit; echo new > data/new",
      );
      assert.equal(attack.stdout, ".git/hooks:\nseen\n\ndata:\nseen\n", attack.stderr);
      assert.match(attack.stderr, /Read-only file system/);
      assert.ok(!existsSync(join(hooks, "pre-commit")));
      assert.equal(readFileSync(join(data, "new"), "utf8"), "new\n");
      assert.equal(attack.which, "other");
    });
  }
});
