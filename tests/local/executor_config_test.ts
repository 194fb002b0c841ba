import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import {
  LocalBashExecutor,
  type LocalBashExecutorConfig,
  type Runtime,
  runtime,
} from "../../local/mod.ts";
import { BashConfigError } from "../../seam/mod.ts";
import { it } from "./_executor.ts";

describe("LocalBashExecutor runtime", () => {
  it("is the frozen runtime of this process unless the config injects one", async () => {
    assert.ok(Object.isFrozen(runtime));
    assert.throws(() => {
      (runtime as { spawn: unknown }).spawn = () => {};
    }, TypeError);
    await using plain = new LocalBashExecutor();
    assert.equal(plain.config.runtime, runtime);
    const spawned: string[] = [];
    const recording: Runtime = {
      ...runtime,
      spawn: (request) => {
        spawned.push(request.program);
        return runtime.spawn(request);
      },
    };
    await using injected = new LocalBashExecutor({
      runtime: recording,
      sessionStrategy: "detached",
    });
    assert.equal((await injected.run({ command: "echo hi" })).stdout.text, "hi\n");
    assert.ok(spawned.some((program) => program.endsWith("bash")), spawned.join(", "));
  });
});

describe("LocalBashExecutor config", () => {
  const bad: [keyof LocalBashExecutorConfig, unknown][] = [
    ["timeoutMs", 0],
    ["timeoutMs", "5000"],
    ["timeoutMs", 700_000],
    ["maxTimeoutMs", Number.NaN],
    ["maxTimeoutMs", 0],
    ["maxOutputBytes", 0],
    ["maxOutputBytes", 1.5],
    ["headBytes", -1],
    ["headBytes", 0.5],
    ["headBytes", 70_000],
    ["maxSpillBytes", -1],
    ["maxSpillBytes", 1.5],
    ["maxTimeoutMs", 2 ** 31],
    ["killGraceMs", 2 ** 31],
    ["drainGraceMs", 2 ** 31],
    ["killGraceMs", Number.POSITIVE_INFINITY],
    ["killGraceMs", -1],
    ["drainGraceMs", -5],
    ["drainGraceMs", Number.NaN],
    ["keepSpillFiles", "yes"],
    ["sessionStrategy", "fork"],
    ["cwd", ""],
    ["cwd", 42],
    ["cwd", "/nonexistent-shellseam-dir"],
    ["cwd", "/etc/hostname"],
    ["cwd", "/tmp\0evil"],
    ["maxOutputBytes", 2 ** 40],
    ["maxOutputBytes", 256 * 1024 * 1024 + 1],
    ["runtime", { name: "bun" }],
    ["runtime", "deno"],
  ];
  for (const [field, value] of bad) {
    it(`rejects ${field} = ${String(value)} naming the field`, () => {
      assert.throws(
        () => new LocalBashExecutor({ [field]: value } as LocalBashExecutorConfig),
        (error: unknown) =>
          error instanceof BashConfigError && error.message.includes(`"${field}"`),
      );
    });
  }

  it("shows the bad value as written", () => {
    assert.throws(
      () => new LocalBashExecutor({ killGraceMs: Number.NaN }),
      /"killGraceMs" must be a finite number >= 0 of milliseconds; got NaN$/,
    );
    assert.throws(
      () => new LocalBashExecutor({ sessionStrategy: "fork" as "auto" }),
      /got "fork"$/,
    );
  });

  it("rejects an unknown key, naming the key it most likely meant", () => {
    assert.throws(
      () => new LocalBashExecutor({ timeout: 5000 } as LocalBashExecutorConfig),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message.startsWith(
          'The executor config has no key "timeout"; did you mean "timeoutMs"?',
        ),
    );
    assert.throws(
      () => new LocalBashExecutor({ colour: true } as LocalBashExecutorConfig),
      /has no key "colour"; the known keys are "cwd", /,
    );
  });

  it("derives headBytes from a small maxOutputBytes, and accepts the largest budget", async () => {
    await using small = new LocalBashExecutor({ maxOutputBytes: 4000 });
    assert.equal(small.config.headBytes, 500);
    const result = await small.run(small.resolve({ command: "seq 1 3000" }));
    assert.equal(result.stdout.truncated, true);
    assert.ok(result.stdout.text.startsWith("1\n2\n"));
    assert.ok(result.stdout.text.endsWith("2999\n3000\n"));
    await using largest = new LocalBashExecutor({ maxOutputBytes: 256 * 1024 * 1024 });
    assert.equal(largest.config.headBytes, 8000);
  });

  it("rejects a stdoutMaxBytes over the bound, in resolve() and in a spec", async () => {
    await using executor = new LocalBashExecutor();
    assert.throws(
      () => executor.resolve({ command: "true", stdoutMaxBytes: 2 ** 40 }),
      /^BashConfigError: "stdoutMaxBytes" must be at most 268435456 bytes \(256 MiB\)/,
    );
    const spec = { ...executor.resolve({ command: "true" }), stdoutMaxBytes: 2 ** 40 };
    await assert.rejects(executor.run(spec), /"stdoutMaxBytes" must be at most 268435456 bytes/);
  });

  it("rejects a config that is not an object", () => {
    assert.throws(
      () => new LocalBashExecutor(null as unknown as LocalBashExecutorConfig),
      BashConfigError,
    );
  });

  const page = new URL("../../docs/defaults.md", import.meta.url);
  nodeIt("matches the Defaults table in docs/defaults.md", {
    skip: existsSync(page) ? false : "docs/defaults.md is not beside these tests (a compiled copy)",
  }, async () => {
    const table = readFileSync(page, "utf8");
    const documented = new Map<string, string>();
    for (const match of table.matchAll(/^\| `(\w+)` +\| ([^|]+?) +\|/gm)) {
      documented.set(match[1]!, match[2]!);
    }
    await using executor = new LocalBashExecutor();
    const { config } = executor;
    const expected: Record<string, string> = {
      timeoutMs: String(config.timeoutMs),
      maxTimeoutMs: String(config.maxTimeoutMs),
      maxOutputBytes: String(config.maxOutputBytes),
      headBytes: String(config.headBytes),
      maxSpillBytes: `${config.maxSpillBytes / 1024 / 1024} MiB`,
      killGraceMs: String(config.killGraceMs),
      drainGraceMs: String(config.drainGraceMs),
      keepSpillFiles: String(config.keepSpillFiles),
      sessionStrategy: "`auto`",
      idleTimeoutMs: "none",
    };
    for (const [name, value] of Object.entries(expected)) {
      assert.equal(documented.get(name), value, `documented default of "${name}"`);
    }
  });

  it("fills the documented defaults", async () => {
    await using executor = new LocalBashExecutor();
    const { config } = executor;
    assert.equal(config.cwd, process.cwd());
    assert.equal(config.timeoutMs, 120_000);
    assert.equal(config.maxTimeoutMs, 600_000);
    assert.equal(config.maxOutputBytes, 64_000);
    assert.equal(config.headBytes, 8_000);
    assert.equal(config.maxSpillBytes, 64 * 1024 * 1024);
    assert.equal(config.killGraceMs, 3_000);
    assert.equal(config.drainGraceMs, 500);
    assert.equal(config.keepSpillFiles, false);
    // Node forks for every spawn, so the setsid binary would only add an exec there.
    assert.equal(
      config.sessionStrategy,
      runtime.name === "deno" && existsSync("/usr/bin/setsid") ? "setsid-binary" : "detached",
    );
    assert.equal(config.setsidPath === null, config.sessionStrategy === "detached");
  });
});
