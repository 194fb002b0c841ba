// The command's environment under Seatbelt's launch (sandbox/backends/seatbelt/_launch.ts),
// run for real through a sandbox-exec that runs what follows `--`: no process's command line
// ever holds a value of it, and the command sees exactly what a plain spawn with that
// environment gives (`env -i`, as bwrap's --setenv and Landlock's execve give on Linux). Written to run
// unchanged on a Mac: `ps` stands in for /proc there, and strace is used where installed.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seatbeltLaunch } from "../../../../sandbox/backends/seatbelt/mod.ts";
import type { Launch } from "../../../../engine/mod.ts";
import { confinedPolicy } from "../_policy.ts";

const MARKER = `mark${crypto.randomUUID().replaceAll("-", "")}`;
const dir = mkdtempSync(join(tmpdir(), "seatbelt-env-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const fake = join(dir, "sandbox-exec");
writeFileSync(fake, '#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n', {
  mode: 0o755,
});
const folders = { privateDir: dir, tmpDir: join(dir, "tmp") };

/**
 * Every value holds the marker: names a runner's shell would use (`o`,
 * `IFS`, `keep`), names a shell cannot export (`a.b`, an exported function),
 * names bash sets itself (`PWD`, `SHLVL`: a shell's `exec` would lower it),
 * and a proxy's token in a URL.
 */
const ENV: Record<string, string> = {
  PATH: "/usr/bin:/bin",
  HTTP_PROXY: `http://shellseam:${MARKER}@127.0.0.1:9`,
  o: `${MARKER}-o`,
  IFS: `${MARKER}-ifs`,
  keep: `${MARKER}-keep`,
  n: `${MARKER}-n`,
  e: `${MARKER}-e`,
  v: `${MARKER}-v`,
  PWD: `/${MARKER}`,
  SHLVL: "7",
  "a.b": `${MARKER}-dot`,
  "BASH_FUNC_f%%": `() { echo ${MARKER}; }`,
  SPACED: `${MARKER} with spaces\nand a line`,
};

/** The launch of `command` under bash, with {@linkcode ENV}. */
function launchOf(command: string): Launch {
  return {
    program: "/bin/bash",
    args: ["--norc", "--noprofile", "-c", command],
    cwd: dir,
    env: ENV,
  };
}

/** The launch of `command` through Seatbelt's launch and the fake sandbox-exec. */
function wrapped(command: string): Launch {
  return seatbeltLaunch(launchOf(command), fake, confinedPolicy(), folders, (path) => path, {
    announceStart: true,
  });
}

/** Every process's command line now (the marker is looked for in them). */
function commandLines(): string[] {
  if (existsSync("/proc/self/cmdline")) {
    return readdirSync("/proc").filter((name) => /^[0-9]+$/.test(name)).flatMap((pid) => {
      try {
        return [readFileSync(`/proc/${pid}/cmdline`, "latin1")];
      } catch {
        return []; // It ended meanwhile.
      }
    });
  }
  return spawnSync("ps", ["-axww", "-o", "args="]).stdout.toString().split("\n");
}

/** Prints the environment NUL-separated (`env -0` is not in every macOS's env). */
const PRINT_ENV = String.raw`/usr/bin/perl -e 'print map { "$_=$ENV{$_}\0" } keys %ENV'`;

/** The NUL-separated entries that {@linkcode PRINT_ENV} printed, sorted. */
function entries(text: string): string[] {
  return text.split("\0").filter((entry) => entry !== "").sort();
}

describe("Seatbelt's launch hands the command its environment", () => {
  it("on no process's command line, while it starts and runs", async () => {
    const seen: string[] = [];
    let polls = 0;
    let running = true;
    const poll = (async () => {
      while (running) {
        for (const line of commandLines()) if (line.includes(MARKER)) seen.push(line);
        polls++;
        await new Promise((done) => setTimeout(done, 2));
      }
    })();
    try {
      // Many short launches, each as the executor spawns it: a leak that lasts one exec is
      // caught for sure by strace below where it is installed; here the polls look while each
      // starts (they caught the old env -i, which lasted a millisecond, in 5 runs of 5).
      for (let round = 0; round < 20; round++) {
        const launch = wrapped(`${PRINT_ENV} >/dev/null`);
        const child = spawn(launch.program, launch.args, { cwd: launch.cwd, env: launch.env });
        child.stdin.end(launch.input);
        await new Promise((done) => child.on("close", done));
      }
    } finally {
      running = false;
      await poll;
    }
    assert.ok(polls > 10, `only ${polls} polls ran`);
    assert.deepEqual(seen, [], "a command line held the environment");
  });

  it("in no program's arguments, as strace sees every exec", {
    skip: spawnSync("strace", ["-V"]).status === 0 ? false : "strace is not installed here",
  }, () => {
    const launch = wrapped(`${PRINT_ENV} >/dev/null`);
    const log = join(dir, "strace.log");
    const result = spawnSync(
      "strace",
      ["-f", "-e", "trace=execve", "-s", "65536", "-o", log, launch.program, ...launch.args],
      { cwd: launch.cwd, env: launch.env, input: launch.input },
    );
    assert.equal(result.status, 0, result.stderr.toString());
    const execs = readFileSync(log, "utf8").split("\n").filter((line) => line.includes("execve("));
    // The launch's shell, sandbox-exec, perl, the command's bash and its env.
    assert.ok(execs.length >= 4, execs.join("\n"));
    // Without -v, strace shows each exec's environment as a count, its arguments in full.
    assert.deepEqual(
      execs.filter((line) => line.includes(MARKER)),
      [],
      "an exec's arguments held the environment",
    );
  });

  it("exactly as a plain exec with that environment gives it", () => {
    const launch = wrapped(PRINT_ENV);
    const result = spawnSync(launch.program, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      input: launch.input,
    });
    assert.equal(result.status, 0, result.stderr.toString());
    // The start byte, then what was printed.
    const seen = entries(result.stdout.subarray(1).toString());
    // The reference: `env -i` execs the command with exactly these entries, as bwrap's
    // --setenv and Landlock's execve do (a spawn's `env` may add the parent's under Deno).
    const plain = launchOf(PRINT_ENV);
    const given = Object.entries({ ...ENV, TMPDIR: folders.tmpDir }).map(([k, v]) => `${k}=${v}`);
    const expected = spawnSync("/usr/bin/env", ["-i", ...given, plain.program, ...plain.args], {
      cwd: plain.cwd,
    });
    assert.deepEqual(seen, entries(expected.stdout.toString()));
    for (const name of ["PATH", "o", "IFS", "keep", "n", "a.b", "SPACED", "SHLVL", "TMPDIR"]) {
      assert.ok(seen.some((entry) => entry.startsWith(`${name}=`)), `${name} is missing`);
    }
    assert.ok(seen.some((entry) => entry.startsWith("BASH_FUNC_f%%=")), "the function is missing");
  });
});
