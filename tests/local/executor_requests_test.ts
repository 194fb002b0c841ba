import { describe } from "node:test";
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { LocalBashExecutor } from "../../local/mod.ts";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  BashSpawnError,
  type SandboxMode,
} from "../../seam/mod.ts";
import { assertNoneLeft, marker, processesWith } from "./_helpers.ts";
import { it } from "./_executor.ts";

describe("LocalBashExecutor.resolve", () => {
  it("fills defaults, caps the timeout and resolves the workdir", async () => {
    await using executor = new LocalBashExecutor({
      cwd: "/srv",
      timeoutMs: 1000,
      maxTimeoutMs: 5000,
    });
    const spec = executor.resolve({ command: "ls" });
    assert.deepEqual(spec, {
      command: "ls",
      workdir: "/srv",
      timeoutMs: 1000,
      stdoutMaxBytes: 64_000,
      sandboxPolicy: null,
    });
    assert.equal(executor.resolve({ command: "ls", timeoutMs: 9000 }).timeoutMs, 5000);
    assert.equal(executor.resolve({ command: "ls", workdir: "../x" }).workdir, "/x");
  });

  for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`rejects timeoutMs ${timeoutMs}`, async () => {
      await using executor = new LocalBashExecutor();
      assert.throws(
        () => executor.resolve({ command: "true", timeoutMs }),
        (error: unknown) =>
          error instanceof BashConfigError && error.message.includes('"timeoutMs"'),
      );
      assert.throws(
        () => executor.resolve({ command: "true", idleTimeoutMs: timeoutMs }),
        (error: unknown) =>
          error instanceof BashConfigError && error.message.includes('"idleTimeoutMs"'),
      );
    });
  }

  it("rejects env keys in the wrong namespace and bad values, naming them", async () => {
    await using executor = new LocalBashExecutor();
    const naming = (text: string) => (error: unknown) =>
      error instanceof BashConfigError && error.message.includes(text);
    assert.throws(
      () => executor.resolve({ command: "true", env: { SHELLSEAM_X: "1" } }),
      naming('"SHELLSEAM_X"'),
    );
    assert.throws(
      () =>
        executor.resolve({
          command: "true",
          managedEnv: { ["PLAIN" as `SHELLSEAM_${string}`]: "1" },
        }),
      naming('"PLAIN"'),
    );
    for (const stdoutMaxBytes of [0, 1.5, Number.NaN]) {
      assert.throws(
        () => executor.resolve({ command: "true", stdoutMaxBytes }),
        naming('"stdoutMaxBytes"'),
      );
    }
    assert.throws(
      () => executor.resolve({ command: "true", stdin: 5 as unknown as string }),
      naming('"stdin" must be a string or a Uint8Array; got number; encode it first'),
    );
    assert.throws(
      () => executor.resolve({ command: 1 as unknown as string }),
      naming('"command" must be a string; got number; pass the bash source as a string'),
    );
  });
});

describe("LocalBashExecutor request checks", () => {
  it("rejects an unknown request key and a keepStdinOpen that is not a boolean", async () => {
    await using executor = new LocalBashExecutor();
    const request = { command: "true", timeout: 5 } as BashExecRequest;
    assert.throws(
      () => executor.resolve(request),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message.startsWith('The request has no key "timeout"; did you mean "timeoutMs"?'),
    );
    const spec = { ...executor.resolve({ command: "true" }), timeout: 5 } as BashExecSpec;
    await assert.rejects(executor.run(spec), /The request has no key "timeout"/);
    assert.throws(
      () => executor.resolve({ command: "cat", keepStdinOpen: "yes" as unknown as boolean }),
      (error: unknown) =>
        error instanceof BashConfigError &&
        error.message === '"keepStdinOpen" must be true or false; got string; pass a boolean',
    );
  });

  it("refuses a confined sandboxPolicy, which it cannot enforce, and runs none or full access", async () => {
    await using executor = new LocalBashExecutor();
    const policy = (mode: SandboxMode) => ({
      mode,
      workspaceRoot: "/tmp",
      network: "deny" as const,
    });
    for (const mode of ["read-only", "workspace-write"] as const) {
      assert.throws(
        () => executor.resolve({ command: "touch /tmp/x", sandboxPolicy: policy(mode) }),
        (error: unknown) =>
          error instanceof BashConfigError &&
          error.message.startsWith(
            `This executor does not sandbox, so a "sandboxPolicy" with mode "${mode}" would run unconfined`,
          ),
      );
      const spec = { ...executor.resolve({ command: "true" }), sandboxPolicy: policy(mode) };
      await assert.rejects(executor.run(spec), BashConfigError);
      await assert.rejects(executor.start(spec), BashConfigError);
    }
    const full = executor.resolve({
      command: "echo ok",
      sandboxPolicy: policy("danger-full-access"),
    });
    assert.equal((await executor.run(full)).stdout.text, "ok\n");
    assert.equal((await executor.run(executor.resolve({ command: "echo ok" }))).exitCode, 0);
  });
});

describe("LocalBashExecutor timers", () => {
  it("accepts the longest timer and caps a longer per-call timeout to it without firing early", async () => {
    await using executor = new LocalBashExecutor({ maxTimeoutMs: 2 ** 31 - 1 });
    const spec = executor.resolve({ command: "sleep 0.3; echo done", timeoutMs: 3e9 });
    assert.equal(spec.timeoutMs, 2 ** 31 - 1);
    const result = await executor.run(spec);
    assert.equal(result.timedOut, false);
    assert.equal(result.stdout.text, "done\n");
  });

  it("rejects an idle time that no timer can wait, and caps a spread spec's timeout again", async () => {
    await using executor = new LocalBashExecutor();
    const tooLong = (field: string) => (error: unknown) =>
      error instanceof BashConfigError &&
      error.message ===
        `"${field}" must be at most 2147483647 milliseconds (about 24 days), the longest a timer waits; got 3000000000`;
    assert.throws(
      () => executor.resolve({ command: "true", idleTimeoutMs: 3e9 }),
      tooLong("idleTimeoutMs"),
    );
    const token = marker();
    const spec = executor.resolve({ command: `sleep ${token}` });
    await assert.rejects(executor.run({ ...spec, idleTimeoutMs: 3e9 }), tooLong("idleTimeoutMs"));
    assert.deepEqual(processesWith(token), []);
    // A spread is a request: its timeout is capped at maxTimeoutMs again.
    const capped = await executor.run({ ...spec, command: "true", timeoutMs: 3e9 });
    assert.equal(capped.timeoutMs, 600_000);
  });
});

describe("LocalBashExecutor with values an environment, an argument or a path cannot carry", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "a signal that is not an AbortSignal",
      { signal: {} },
      '"signal" must be an AbortSignal; got object; pass an AbortController\'s signal',
    ],
    [
      "an env value that is not a string",
      { env: { A: 1 } },
      '"env" value of "A" must be a string; got number; convert it with String()',
    ],
    [
      "a managedEnv value that is not a string",
      { managedEnv: { SHELLSEAM_A: null } },
      '"managedEnv" value of "SHELLSEAM_A" must be a string; got null; convert it with String()',
    ],
    [
      "an env that is a string",
      { env: "A=1" },
      '"env" must be an object of names to strings; got string',
    ],
    [
      "an env key with =",
      { env: { "A=B": "1" } },
      '"env" key "A=B" cannot name an environment variable (it is empty or holds "=" or a NUL byte); rename it',
    ],
    [
      "an empty env key",
      { env: { "": "1" } },
      '"env" key "" cannot name an environment variable (it is empty or holds "=" or a NUL byte); rename it',
    ],
    [
      "a NUL byte in an env value",
      { env: { A: "x\0y" } },
      '"env" value of "A" holds a NUL byte, which an environment variable cannot carry; remove it',
    ],
    [
      "a NUL byte in the command",
      { command: "echo a\0b" },
      '"command" holds a NUL byte, which no program can receive; remove it',
    ],
    [
      "a NUL byte in the workdir",
      { workdir: "/tmp\0x" },
      '"workdir" holds a NUL byte, which no program can receive; remove it',
    ],
    [
      "a workdir that is not a string",
      { workdir: 5 },
      '"workdir" must be a string; got number; pass a directory path',
    ],
  ];
  for (const [name, values, message] of cases) {
    it(`rejects ${name} with BashConfigError, in resolve() and in run() and start(), spawning nothing`, async () => {
      await using executor = new LocalBashExecutor();
      const token = marker();
      const request = { command: `sleep ${token}`, ...values } as unknown as BashExecRequest;
      const saying = (error: unknown) =>
        error instanceof BashConfigError && error.message === message;
      assert.throws(() => executor.resolve(request), saying);
      if (!("workdir" in values)) {
        const spec = { ...executor.resolve({ command: `sleep ${token}` }), ...values };
        await assert.rejects(executor.run(spec as BashExecSpec), saying);
        await assert.rejects(executor.start(spec as BashExecSpec), saying);
      }
      assert.deepEqual(processesWith(token), []);
    });
  }
});

describe("LocalBashExecutor.run and start with a request or a spec that did not come from resolve()", () => {
  it("run a plain request without resolve()", async () => {
    await using executor = new LocalBashExecutor({ cwd: "/tmp" });
    const result = await executor.run({ command: "pwd; echo oops >&2; exit 4" });
    assert.equal(result.stdout.text, `${realpathSync("/tmp")}\n`);
    assert.equal(result.stderr.text, "oops\n");
    assert.equal(result.exitCode, 4);
    const process = await executor.start({ command: "echo started" });
    await process.done;
    assert.equal(process.readOutput().stdout.text, "started\n");
  });

  it("freeze the spec resolve() returns, and check a copy or a spread again as a request", async () => {
    await using executor = new LocalBashExecutor();
    const token = marker();
    const spec = executor.resolve({ command: `sleep ${token}`, env: { A: "1" }, limits: {} });
    assert.ok(Object.isFrozen(spec));
    assert.ok(Object.isFrozen(spec.env));
    assert.ok(Object.isFrozen(spec.limits));
    assert.throws(() => {
      (spec as { timeoutMs: number }).timeoutMs = -5;
    }, TypeError);
    const naming = (text: string) => (error: unknown) =>
      error instanceof BashConfigError && error.message.includes(text);
    await assert.rejects(executor.run({ ...spec, timeoutMs: -5 }), naming('"timeoutMs"'));
    await assert.rejects(
      executor.start({ ...spec, stdoutMaxBytes: 0 }),
      naming('"stdoutMaxBytes"'),
    );
    await assert.rejects(
      executor.run({ ...spec, env: { BAD: "a\0b" } }),
      naming('"env"'),
    );
    await assert.rejects(
      executor.run({ ...spec, workdir: "/nonexistent-shellseam-dir" }),
      BashSpawnError,
    );
    await assertNoneLeft(token);
    const unstamped = { ...spec } as Partial<BashExecSpec>;
    delete unstamped.sandboxPolicy;
    const result = await executor.run({
      ...(unstamped as BashExecSpec),
      command: "echo still fine",
      timeoutMs: 10 ** 9,
    });
    assert.equal(result.stdout.text, "still fine\n");
    assert.equal(result.timeoutMs, 600_000);
  });

  it("refuses onOutput for a background start", async () => {
    await using executor = new LocalBashExecutor();
    await assert.rejects(
      executor.start({ command: "true", onOutput: () => {} }),
      (error: unknown) =>
        error instanceof BashConfigError && error.message.includes("process.output()"),
    );
    await assert.rejects(
      executor.run({ command: "true", onOutput: "yes" as unknown as () => void }),
      (error: unknown) => error instanceof BashConfigError && error.message.includes('"onOutput"'),
    );
  });
});
