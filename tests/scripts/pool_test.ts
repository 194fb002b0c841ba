import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFiles, testFiles, testJobs } from "../../scripts/_pool.ts";
import { failureExcerpts, stopLegs } from "../../scripts/_legs.ts";
import { cmdline, until } from "../local/_helpers.ts";

describe("the test pool (scripts/_pool.ts)", () => {
  it("runs each unit in a process of its own, with the environment handed, sums the counts and names what failed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-pool-"));
    try {
      const passing = join(dir, "a_test.ts");
      const failing = join(dir, "b_test.ts");
      // Each file sees only its own environment change: separate processes.
      writeFileSync(
        passing,
        'Deno.test("one", () => { Deno.env.set("POOL_MARK", "a"); });\n' +
          // The variable handed is added to the environment, not in its place.
          'Deno.test("two", () => {\n' +
          '  if (Deno.env.get("POOL_HANDED") !== "handed" || !Deno.env.get("PATH")) {\n' +
          '    throw new Error("the environment was not handed");\n' +
          "  }\n" +
          "});\n",
      );
      writeFileSync(
        failing,
        'Deno.test("three", () => { if (Deno.env.get("POOL_MARK")) throw new Error("shared"); });\n' +
          'Deno.test("four", () => { throw new Error("expected failure"); });\n',
      );
      const printed: string[] = [];
      const args = ["test", "--no-check", "-A"];
      const leg = await runFiles(
        "pool",
        [passing, [failing]],
        args,
        2,
        (text) => printed.push(text),
        undefined,
        { POOL_HANDED: "handed" },
      );
      assert.equal(leg.ok, false);
      assert.deepEqual(leg.counts, { passed: 3, failed: 1 });
      assert.equal(leg.note, `failed: ${failing}`);
      // Each file's output is printed whole, after a line naming it and how it ended.
      const failedOutput = printed.find((text) => text.startsWith(`\n--- ${failing}: FAILED`));
      assert.ok(failedOutput, printed.join(""));
      assert.match(failedOutput, /expected failure/);
      // With GNU time, each process's CPU time, and the leg's total at its end.
      if (existsSync("/usr/bin/time")) {
        assert.match(failedOutput, /FAILED \(exit code 1\) in [\d.]+ s \(CPU [\d.]+ s\)\n/);
        assert.match(printed.at(-1) ?? "", /\nCPU time: \d+ s in all; the most:\n {2}[\d.]+ s /);
      }
      // The summary's excerpt: the file, the test, and its error, without the stack.
      assert.equal(leg.failures?.length, 1, JSON.stringify(leg.failures));
      const [excerpt = ""] = leg.failures ?? [];
      assert.ok(excerpt.startsWith(`${failing}: four => `), excerpt);
      assert.match(excerpt, /\nerror: Error: expected failure/);
      assert.doesNotMatch(excerpt, /^\s*at /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops the test process itself on stopLegs, not only what measures it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-pool-"));
    const pidFile = join(dir, "pid");
    try {
      const waiting = join(dir, "wait_test.ts");
      writeFileSync(
        waiting,
        `Deno.writeTextFileSync(${JSON.stringify(pidFile)}, String(Deno.pid));\n` +
          'Deno.test("waits", () => new Promise((done) => setTimeout(done, 120_000)));\n',
      );
      const leg = runFiles("pool", [waiting], ["test", "--no-check", "-A"], 1, () => {});
      await until(() => existsSync(pidFile), "the test file to start");
      const pid = Number(readFileSync(pidFile, "utf8"));
      stopLegs();
      // Its test waits two minutes: the deadline (one) fails a stop that missed it.
      await until(() => cmdline(pid) === "", `test process ${pid} to end`);
      assert.equal((await leg).ok, false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs more at once from when it is told it may", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-pool-"));
    try {
      // Each file says it started, then passes only once all three did: they
      // must run at the same time, which one job at a time never does.
      const started = (index: number) => join(dir, `started-${index}`);
      const files = [0, 1, 2].map((index) => {
        const file = join(dir, `together_${index}_test.ts`);
        writeFileSync(
          file,
          `Deno.writeTextFileSync(${JSON.stringify(started(index))}, "");\n` +
            `const all = ${JSON.stringify([0, 1, 2].map(started))};\n` +
            'Deno.test("together", async () => {\n' +
            "  const deadline = Date.now() + 60_000;\n" +
            "  while (!all.every((path) => { try { Deno.statSync(path); return true; } catch { return false; } })) {\n" +
            '    if (Date.now() > deadline) throw new Error("ran alone");\n' +
            "    await new Promise((done) => setTimeout(done, 20));\n" +
            "  }\n" +
            "});\n",
        );
        return file;
      });
      const printed: string[] = [];
      let allow = (_more: { jobs: number; reason: string }) => {};
      const more = new Promise<{ jobs: number; reason: string }>((done) => allow = done);
      const leg = runFiles("pool", files, ["test", "--no-check", "-A"], 1, (text) => {
        printed.push(text);
      }, more);
      await until(() => existsSync(started(0)), "the first file to start");
      assert.equal(existsSync(started(1)), false, "one at a time until told");
      allow({ jobs: 2, reason: "the other leg ended" });
      const result = await leg;
      assert.equal(result.ok, true, printed.join(""));
      assert.deepEqual(result.counts, { passed: 3, failed: 0 });
      assert.ok(
        printed.includes("\n=== pool: 2 more at once for the 2 left (the other leg ended)"),
        printed.join(""),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the failures node's test runner lists at its end", () => {
    const output = [
      "✔ passes (1ms)",
      "ℹ fail 1",
      "",
      "\x1b[31m✖ failing tests:\x1b[39m",
      "",
      "test at tests/a_test.js:3:25",
      "\x1b[31m✖ fails here (16ms)\x1b[39m",
      "  AssertionError [ERR_ASSERTION]: one is not two",
      "  ",
      "      at TestContext.<anonymous> (file:///tests/a_test.js:3:57)",
      "      at Test.run (node:internal/test_runner/test:796:25)",
    ].join("\n");
    assert.deepEqual(failureExcerpts(output), [
      "test at tests/a_test.js:3:25\n✖ fails here (16ms)\n  AssertionError [ERR_ASSERTION]: one is not two",
    ]);
    assert.deepEqual(failureExcerpts("✔ passes (1ms)\nℹ fail 0\n"), []);
  });

  it("finds the test files below a folder as deno test names them", () => {
    const files = testFiles(["tests/scripts/"]);
    assert.ok(files.includes("tests/scripts/pool_test.ts"), files.join(", "));
    assert.ok(files.every((file) => /(^|\/|_|\.)test\.ts$/.test(file)), files.join(", "));
    assert.deepEqual(
      testFiles(["tests/scripts/"], ["tests/scripts/pool_test.ts"]),
      files.filter((file) => file !== "tests/scripts/pool_test.ts"),
    );
  });

  it("reads SHELLSEAM_TEST_JOBS, and refuses a value that is not a whole number", () => {
    const before = Deno.env.get("SHELLSEAM_TEST_JOBS");
    try {
      Deno.env.set("SHELLSEAM_TEST_JOBS", "5");
      assert.equal(testJobs(), 5);
      Deno.env.set("SHELLSEAM_TEST_JOBS", "two");
      assert.throws(() => testJobs(), /SHELLSEAM_TEST_JOBS is "two"/);
      Deno.env.delete("SHELLSEAM_TEST_JOBS");
      assert.equal(testJobs(), 4);
    } finally {
      if (before === undefined) Deno.env.delete("SHELLSEAM_TEST_JOBS");
      else Deno.env.set("SHELLSEAM_TEST_JOBS", before);
    }
  });
});
