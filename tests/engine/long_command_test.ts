import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBashExecutor } from "../../local/mod.ts";
import { BashConfigError } from "../../seam/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { checkEnvSizes, pageSizeFromSmaps } from "../../engine/_exec.ts";
import { largeHeredoc, STRATEGIES } from "../local/_helpers.ts";

for (const sessionStrategy of STRATEGIES) {
  describe(`a command longer than the kernel's argument limit (${sessionStrategy})`, () => {
    it("runs as under -c: same $0, no positional parameters, line numbers from 1", async () => {
      const dir = mkdtempSync(join(tmpdir(), "shellseam-long-"));
      try {
        await using executor = new LocalBashExecutor({ cwd: dir, sessionStrategy });
        const { command, body } = largeHeredoc("out.txt");
        assert.ok(new TextEncoder().encode(command).length > 3 * 128 * 1024);
        const result = await executor.run(executor.resolve({ command }));
        assert.equal(result.stderr.text, "");
        assert.equal(result.exitCode, 0);
        const bytes = new TextEncoder().encode(`${body}\n`).length;
        assert.equal(result.stdout.text, `${findOnPath("bash")} 0 4003\n${bytes}\n`);
        assert.equal(readFileSync(join(dir, "out.txt"), "utf8"), `${body}\n`);
        const variables = await executor.run(executor.resolve({
          command: `${"#".repeat(200_000)}\nset -o posix; set | grep -c '^__shellseam' || true`,
        }));
        assert.equal(variables.stdout.text, "0\n", "the joining variable is gone");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

describe("arguments and environment the kernel refuses", () => {
  it("an env value over 128 KiB is a BashConfigError naming the variable and the limit", async () => {
    await using executor = new LocalBashExecutor();
    for (const field of ["env", "managedEnv"] as const) {
      const name = field === "env" ? "BIG" : "SHELLSEAM_BIG";
      assert.throws(
        () => executor.resolve({ command: "true", [field]: { [name]: "y".repeat(200_000) } }),
        (error: unknown) =>
          error instanceof BashConfigError &&
          error.message ===
            `"${field}" value of "${name}" is ${
              name.length + 200_002
            } bytes, over the kernel's limit of 131072 bytes for one environment variable; pass large data through "stdin" or a file instead`,
      );
    }
  });

  it("the limit for one variable is 32 pages of this machine's page size", () => {
    const smaps = readFileSync("/proc/self/smaps", "latin1");
    const getconf = execFileSync("getconf", ["PAGE_SIZE"], { encoding: "utf8" });
    assert.equal(pageSizeFromSmaps(smaps), Number(getconf));
    assert.equal(
      pageSizeFromSmaps("KernelPageSize:     2048 kB\nKernelPageSize:       64 kB\n"),
      65536,
    );
    assert.equal(pageSizeFromSmaps("Size: 4 kB\n"), null);
    const big = { BIG: "y".repeat(1024 * 1024) };
    // 64 KiB pages: 2 MiB per string, so 1 MiB passes; 4 KiB pages refuse it.
    checkEnvSizes("env", big, { bytes: 65536 });
    assert.throws(
      () => checkEnvSizes("env", big, { bytes: 4096 }),
      /over the kernel's limit of 131072 bytes/,
    );
    assert.throws(
      () => checkEnvSizes("env", big, { bytes: 4096, unknown: "NotCapable" }),
      /limit of 131072 bytes for one environment variable \(32 pages, assuming 4 KiB pages: the page size could not be read: NotCapable\)/,
    );
  });

  it("a command and env too large together are a BashConfigError (E2BIG), not a missing program", async () => {
    await using executor = new LocalBashExecutor();
    const many: Record<string, string> = {};
    for (let i = 0; i < 20; i++) many[`V${i}`] = "z".repeat(120_000);
    for (
      const request of [{ command: `: ${"x".repeat(3_000_000)}` }, { command: "true", env: many }]
    ) {
      await assert.rejects(
        executor.run(executor.resolve(request)),
        (error: unknown) =>
          error instanceof BashConfigError &&
          /^The command \(\d+ bytes of arguments\) and its environment \(\d+ bytes in \d+ variables\) are too large together for the kernel to start a program \(E2BIG;/
            .test(error.message),
      );
    }
  });
});
