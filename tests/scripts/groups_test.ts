// The groups of light test files the Deno leg runs as one test module each
// (scripts/_groups.ts): a group's module runs every test of its files, and
// groups that name a missing file, or a file twice, are refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_GROUPS, writeGroups } from "../../scripts/_groups.ts";
import { testFiles } from "../../scripts/_pool.ts";
import { denoCounts } from "../../scripts/_legs.ts";

describe("the test groups (scripts/_groups.ts)", () => {
  it("name test files that are there, each in one group only", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-groups-"));
    try {
      const modules = writeGroups(TEST_GROUPS, join(dir, "groups"));
      assert.equal(modules.length, TEST_GROUPS.length);
      const found = new Set(testFiles(["tests/"]));
      const strays = TEST_GROUPS.flat().filter((file) => !found.has(file));
      assert.deepEqual(strays, [], "each file of a group is a test file deno test finds");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("run as one test module that runs each file's tests, in one process", async () => {
    const root = mkdtempSync(join(tmpdir(), "shellseam-groups-"));
    try {
      mkdirSync(join(root, "tests"));
      const pids = join(root, "pids");
      for (const name of ["a", "b"]) {
        writeFileSync(
          join(root, "tests", `${name}_test.ts`),
          `import { appendFileSync } from "node:fs";\n` +
            `Deno.test("${name}", () => appendFileSync(${JSON.stringify(pids)}, ` +
            `\`${name} \${Deno.pid}\\n\`));\n`,
        );
      }
      const [module = ""] = writeGroups(
        [["tests/a_test.ts", "tests/b_test.ts"]],
        join(root, "g"),
        root,
      );
      assert.equal(module, join("g", "group_1_test.ts"));
      const { code, stdout } = await new Deno.Command(Deno.execPath(), {
        args: ["test", "--no-check", "--allow-write", module],
        cwd: root,
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const out = new TextDecoder().decode(stdout);
      assert.equal(code, 0, out);
      const counts = out.split("\n").map(denoCounts).findLast((found) => found !== undefined);
      assert.deepEqual(counts, { passed: 2, failed: 0 });
      const ran = readFileSync(pids, "utf8").trim().split("\n").map((line) => line.split(" "));
      assert.deepEqual(ran.map(([name]) => name), ["a", "b"], "in the group's order");
      assert.equal(new Set(ran.map(([, pid]) => pid)).size, 1, "in one process");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuse a file that is not there, or that two groups name, and write nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-groups-"));
    try {
      const out = join(dir, "groups");
      assert.throws(
        () => writeGroups([["tests/gone_test.ts"]], out),
        (error: Error) =>
          error.message.includes('"tests/gone_test.ts", which is not there') &&
          error.message.includes("scripts/_groups.ts"),
      );
      assert.throws(
        () => writeGroups([["tests/docs_test.ts"], ["tests/docs_test.ts"]], out),
        /"tests\/docs_test\.ts" more than once: keep it in one group only/,
      );
      assert.throws(() => readFileSync(join(out, "group_1_test.ts")), /ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
