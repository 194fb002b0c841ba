// The portable watchdog (POSIX sh, processes through ps), the one macOS runs,
// under dash and busybox sh: its census, its search by environment, its
// signals, what it kills when its host's pipe closes, and the private folders
// it sweeps. The scripts meant for macOS hold no bash 4 syntax.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { platformFacts, runtime } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { Watchdog } from "../../engine/_watchdog.ts";
import { ProcessControl } from "../../engine/_control.ts";
import { PORTABLE_WATCHDOG_SCRIPT } from "../../engine/_watchdog_portable_script.ts";
import { APPLY_LIMITS } from "../../engine/_limits.ts";
import { JOIN_AND_EVAL } from "../../engine/_exec.ts";
import type { SpawnedChild } from "../../runtime/mod.ts";
import { assertNoneLeft, marker, processesWith, waitForSleep } from "../local/_helpers.ts";

const PORTABLE = platformFacts("linux", false);
const bash = findOnPath("bash")!;

/** A folder with `sh` linked to busybox (which picks its applet by that name). */
const busyboxDir = mkdtempSync(join(tmpdir(), "shellseam-busybox-"));
symlinkSync("/usr/bin/busybox", join(busyboxDir, "sh"));
after(() => rmSync(busyboxDir, { recursive: true, force: true }));

/** The POSIX shells the portable scripts run under, each skipped (naming it) where missing. */
const SHELLS = [
  { name: "dash", sh: "/usr/bin/dash", installed: "/usr/bin/dash" },
  { name: "busybox sh", sh: join(busyboxDir, "sh"), installed: "/usr/bin/busybox" },
].map((shell) => ({
  ...shell,
  skip: existsSync(shell.installed)
    ? false
    : `${shell.name} is not installed (apt-get install -y ${shell.name.split(" ")[0]})`,
}));

function portableWatchdog(sh: string, tempRoot = tmpdir()): Watchdog {
  return new Watchdog({
    runtime,
    bash,
    setsidPath: null,
    session: "detached",
    tempRoot,
    platform: PORTABLE,
    sh,
  });
}

/**
 * Spawns, in a process group of its own, a shell that starts a child
 * `sleep <token>` and then becomes another: two processes, each with
 * `env` as its environment. Resolves once both run.
 */
async function spawnPair(token: string, env: Record<string, string>): Promise<SpawnedChild> {
  const child = await runtime.spawn({
    program: "/bin/sh",
    args: ["-c", `sleep ${token} & exec sleep ${token}`],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin", ...env },
    stdin: "null",
    session: "detached",
  });
  await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
  await waitForSleep(token, 2);
  return child;
}

for (const { name, sh, skip } of SHELLS) {
  describe(`the portable watchdog under ${name}`, { skip }, () => {
    before(() => assert.ok(existsSync(sh), `${sh} is installed`));

    it("runs in UTC, so every watchdog renders an owner's start alike", async () => {
      const watchdog = portableWatchdog(sh);
      const token = marker();
      const child = await spawnPair(token, {});
      try {
        await watchdog.census(child.pid);
        const [pid] = processesWith(watchdog.token);
        assert.ok(pid !== undefined, "the watchdog runs");
        const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
        assert.ok(environ.includes("TZ=UTC0"), environ.join(" "));
      } finally {
        runtime.kill(-child.pid, "SIGKILL");
        await watchdog.close();
      }
    });

    it("takes a census of a process group and its descendants, and sends signals", async () => {
      const watchdog = portableWatchdog(sh);
      const token = marker();
      const child = await spawnPair(token, {});
      try {
        const members = await watchdog.census(child.pid);
        assert.equal(members.length, 2, `members: ${members}`);
        assert.ok(members.includes(child.pid));
        assert.equal(watchdog.groupOf(child.pid), child.pid);
        assert.deepEqual(await watchdog.signal(0, [-child.pid]), [true]);
        assert.deepEqual(await watchdog.signal("SIGKILL", [-child.pid]), [true]);
        assert.equal((await child.exited).signal, "SIGKILL");
        await assertNoneLeft(token);
        assert.deepEqual(await watchdog.census(child.pid), []);
        // Reaped: no such process (its group may hold the other sleep's zombie a while).
        assert.deepEqual(await watchdog.signal("SIGKILL", [child.pid]), [false]);
      } finally {
        runtime.kill(-child.pid, "SIGKILL");
        await watchdog.close();
      }
    });

    it("finds the processes whose environment holds an entry, exactly", async () => {
      const watchdog = portableWatchdog(sh);
      const token = marker();
      const child = await spawnPair(token, { SHELLSEAM_WATCHDOG: `t-${token}.1` });
      try {
        const found = await watchdog.marked(`SHELLSEAM_WATCHDOG=t-${token}.1`);
        assert.equal(found.length, 2, `found: ${found}`);
        assert.ok(found.includes(child.pid));
        assert.deepEqual(await watchdog.marked(`SHELLSEAM_WATCHDOG=t-${token}.`), []);
        assert.deepEqual(await watchdog.marked(`SHELLSEAM_WATCHDOG=t-${token}.10`), []);
      } finally {
        runtime.kill(-child.pid, "SIGKILL");
        await child.exited;
        await watchdog.close();
      }
    });

    it("answers a census and a search of several keys by one listing, each key its own", async () => {
      const watchdog = portableWatchdog(sh);
      const [a, b] = [marker(), marker()];
      const first = await spawnPair(a, { SHELLSEAM_WATCHDOG: `t-${a}.1` });
      const second = await spawnPair(b, { SHELLSEAM_WATCHDOG: `t-${b}.1` });
      try {
        const groups = await watchdog.censusOfAll([first.pid, 2 ** 22 + 7, second.pid]);
        assert.deepEqual([...groups.keys()].sort(), [first.pid, second.pid].sort());
        assert.ok(groups.get(first.pid)?.includes(first.pid));
        assert.equal(groups.get(first.pid)?.length, 2);
        assert.ok(groups.get(second.pid)?.includes(second.pid));
        assert.equal(groups.get(second.pid)?.length, 2);
        const entries = [`SHELLSEAM_WATCHDOG=t-${a}.1`, `SHELLSEAM_WATCHDOG=t-${b}.1`, "X=y"];
        const marked = await watchdog.markedAll(entries);
        assert.deepEqual([...marked.keys()], entries.slice(0, 2));
        assert.ok(marked.get(entries[0]!)?.includes(first.pid));
        assert.ok(marked.get(entries[1]!)?.includes(second.pid));
        assert.equal(watchdog.groupOf(second.pid), second.pid);
        // A key that would split the request is refused, never sent.
        await assert.rejects(watchdog.markedAll(["A=b c"]), /holds a space/);
      } finally {
        for (const child of [first, second]) runtime.kill(-child.pid, "SIGKILL");
        await Promise.all([first.exited, second.exited]);
        await watchdog.close();
      }
    });

    it("takes the censuses of commands that settle together as one, through the executor's control", async () => {
      const watchdog = portableWatchdog(sh);
      const control = new ProcessControl({ ...runtime, platform: PORTABLE }, watchdog);
      const calls: string[][] = [];
      const markedAll = watchdog.markedAll.bind(watchdog);
      watchdog.markedAll = (entries) => {
        calls.push([...entries]);
        return markedAll(entries);
      };
      const tokens = [marker(), marker(), marker()];
      const children = await Promise.all(
        tokens.map((token) => spawnPair(token, { SHELLSEAM_WATCHDOG: `t-${token}.1` })),
      );
      try {
        const found = await Promise.all(tokens.map((token) => control.marked(`t-${token}.1`)));
        assert.deepEqual(calls.length, 1, JSON.stringify(calls));
        found.forEach((pids, index) => {
          assert.equal(pids.length, 2, `${tokens[index]}: ${pids}`);
          assert.ok(pids.includes(children[index]!.pid));
        });
        // Asked one after the other, each is a census of its own, taken after it was asked.
        await control.marked(`t-${tokens[0]}.1`);
        await control.marked(`t-${tokens[1]}.1`);
        assert.equal(calls.length, 3);
      } finally {
        for (const child of children) runtime.kill(-child.pid, "SIGKILL");
        await Promise.all(children.map((child) => child.exited));
        await watchdog.close();
      }
    });

    it("kills what carries its token when told the host is disposing", async () => {
      const watchdog = portableWatchdog(sh);
      await watchdog.ready();
      const token = marker();
      const child = await spawnPair(token, { SHELLSEAM_WATCHDOG: `${watchdog.token}.3` });
      try {
        await watchdog.close();
        assert.equal((await child.exited).signal, "SIGKILL");
        await assertNoneLeft(token);
      } finally {
        runtime.kill(-child.pid, "SIGKILL");
      }
    });

    it("when its host's pipe closes, kills the groups it watched and the marked, and removes the folder", async () => {
      const token = marker();
      const folder = mkdtempSync(join(tmpdir(), "shellseam-portable-dir-"));
      const watched = await spawnPair(token, {});
      // Left its group (setsid) but kept the marker: found by its environment.
      const escapee = await spawnPair(`${token}1`, { SHELLSEAM_WATCHDOG: "tok-x.7" });
      const dog = await runtime.spawn({
        program: sh,
        args: [
          "-c",
          'eval "$SHELLSEAM_WATCHDOG_SCRIPT"',
          "shellseam-watchdog",
          tmpdir(),
          "tok-x",
          "procps",
        ],
        cwd: "/",
        env: {
          PATH: "/usr/bin:/bin",
          LC_ALL: "C",
          SHELLSEAM_WATCHDOG_SCRIPT: PORTABLE_WATCHDOG_SCRIPT,
        },
        stdin: "piped",
        session: "detached",
      });
      try {
        const writer = dog.stdin!.getWriter();
        await writer.write(new TextEncoder().encode(`+ ${watched.pid}\nd ${folder}\n`));
        await writer.close();
        const text = await new Response(dog.stdout).text();
        assert.match(text, /^h 0 \d+ p\d{14}\n$/);
        assert.deepEqual(await dog.exited, { code: 0, signal: null });
        assert.equal((await watched.exited).signal, "SIGKILL");
        assert.equal((await escapee.exited).signal, "SIGKILL");
        await assertNoneLeft(token);
        assert.equal(existsSync(folder), false);
      } finally {
        runtime.kill(-watched.pid, "SIGKILL");
        runtime.kill(-escapee.pid, "SIGKILL");
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it("removes the private folders of its kind whose owner is gone, and no other", async () => {
      const root = mkdtempSync(join(tmpdir(), "shellseam-portable-root-"));
      try {
        const watchdog = portableWatchdog(sh, root);
        await watchdog.ready();
        const owner = watchdog.owner;
        assert.match(owner ?? "", /^\d+-p\d{14}$/);
        const gone = 2 ** 22 + 17;
        const folders = {
          live: join(root, `shellseam-exec-${owner}-aaaaaa`),
          dead: join(root, `shellseam-exec-${gone}-p20200101000000-bbbbbb`),
          restarted: join(root, `shellseam-exec-${owner!.split("-")[0]}-p20200101000000-cccccc`),
          linux: join(root, `shellseam-exec-${gone}-12345-dddddd`),
        };
        for (const folder of Object.values(folders)) mkdirSync(folder);
        await watchdog.close();
        // The next watchdog sweeps when it starts.
        const next = portableWatchdog(sh, root);
        await next.ready();
        await next.close();
        assert.equal(existsSync(folders.live), true, "a live owner's stays");
        assert.equal(existsSync(folders.dead), false, "a dead owner's goes");
        assert.equal(existsSync(folders.restarted), false, "a reused pid's goes");
        assert.equal(existsSync(folders.linux), true, "the Linux watchdog's is not judged");
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });
}

/**
 * Syntax that bash 3.2 (macOS's /bin/bash) lacks, or that POSIX sh lacks, by
 * a pattern that finds it in a script's text.
 */
const BASH4: [string, RegExp][] = [
  ["declare -A", /\bdeclare\s+-[a-zA-Z]*A/],
  ["local -A", /\blocal\s+-[a-zA-Z]*A/],
  ["mapfile", /\bmapfile\b/],
  ["readarray", /\breadarray\b/],
  ["{var}> redirection", /\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/],
  ["${x,,} / ${x,}", /\$\{[^}]*,[^}]*\}/],
  ["${x^^} / ${x^}", /\$\{[^}]*\^[^}]*\}/],
  ["EPOCHREALTIME", /\bEPOCH(REAL)?TIME\b/],
  ["wait -n", /\bwait\s+-n\b/],
  ["coproc", /\bcoproc\b/],
  ["|&", /\|&/],
  ["&>>", /&>>/],
  ["globstar", /\bglobstar\b/],
];

const NOT_POSIX: [string, RegExp][] = [
  ...BASH4,
  ["[[", /\[\[/],
  ["an array", /\w+=\(|\$\{\w+\[/],
  ["local", /\blocal\s/],
  ["declare", /\bdeclare\s/],
  ["<<< here-string", /<<</],
  ["$'...' quoting", /\$'/],
  ["function keyword", /\bfunction\s+\w+/],
  ["read -a", /\bread\s+-\w*a/],
  ["process substitution", /<\(/],
];

/** The scripts that run on macOS: by /bin/sh (POSIX), or by the command's bash (3.2 there). */
const SCRIPTS: { name: string; text: string; rules: [string, RegExp][] }[] = [
  { name: "the portable watchdog", text: PORTABLE_WATCHDOG_SCRIPT, rules: NOT_POSIX },
  { name: "the limits' prologue", text: APPLY_LIMITS, rules: BASH4 },
  { name: "the long command's join", text: JOIN_AND_EVAL, rules: BASH4 },
];

describe("the scripts that run on macOS", () => {
  for (const { name, text, rules } of SCRIPTS) {
    it(`${name} holds nothing ${rules === BASH4 ? "bash 3.2" : "POSIX sh"} lacks`, () => {
      const found = rules.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
      assert.deepEqual(found, []);
    });
  }

  it("each rule finds the construct it names", () => {
    const samples: Record<string, string> = {
      "declare -A": "declare -A x=()",
      "local -A": "local -A x",
      "mapfile": "mapfile -t l",
      "readarray": "readarray l",
      "{var}> redirection": "exec {fd}>f",
      "${x,,} / ${x,}": "echo ${x,,}",
      "${x^^} / ${x^}": "echo ${x^^}",
      "EPOCHREALTIME": "echo $EPOCHREALTIME",
      "wait -n": "wait -n",
      "coproc": "coproc cat",
      "|&": "a |& b",
      "&>>": "a &>>f",
      "globstar": "shopt -s globstar",
      "[[": "[[ -n $x ]]",
      "an array": "a=(1 2)",
      "local": "local x",
      "declare": "declare x",
      "<<< here-string": "cat <<<x",
      "$'...' quoting": "echo $'a'",
      "function keyword": "function f { :; }",
      "read -a": "read -a l",
      "process substitution": "cat <(ls)",
    };
    assert.deepEqual(NOT_POSIX.map(([what]) => what).sort(), Object.keys(samples).sort());
    for (const [what, pattern] of NOT_POSIX) {
      const sample = samples[what] ?? "";
      assert.ok(pattern.test(sample), `the rule "${what}" misses ${JSON.stringify(sample)}`);
    }
  });

  for (const { name, sh, skip } of SHELLS) {
    it(`the portable watchdog parses under ${name}`, { skip }, async () => {
      const child = await runtime.spawn({
        program: sh,
        args: ["-n", "-c", PORTABLE_WATCHDOG_SCRIPT],
        cwd: "/",
        env: {},
        stdin: "null",
        session: "detached",
      });
      const stderr = await new Response(child.stderr).text();
      await child.stdout.cancel();
      assert.deepEqual(await child.exited, { code: 0, signal: null }, stderr);
    });
  }
});
