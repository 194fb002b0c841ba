// The library under exactly the Deno permissions the README documents, not
// --allow-all: `deno task test` runs this file on its own with them (see the
// "test" task in deno.json). Under them Deno refuses /proc and, with a scoped
// --allow-run, Deno.kill: the watchdog takes the census and sends the signals,
// and the tests check by pid that what should die died.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { LocalBashExecutor, runtime } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { BashConfigError, type BashExecutor, BashSpawnError } from "../../seam/mod.ts";

/** The permissions of the sandbox entry point, the widest the README documents. */
export const DOCUMENTED_PERMISSIONS: readonly string[] = [
  "--allow-run=bash,setsid,bwrap,deno,unshare",
  "--allow-env",
  "--allow-read",
  "--allow-write=/tmp",
  "--allow-sys=uid",
];

const onDeno = "Deno" in globalThis;
/** A readable folder outside the temp folder: this test's own. */
const WORKSPACE_OUTSIDE_TMP = realpathSync(fileURLToPath(new URL(".", import.meta.url)));
const skip = onDeno ? false : "Deno permissions exist only under Deno";
const HOST = fileURLToPath(new URL("./_permission_host.ts", import.meta.url));
const marker = () => `313.${Math.floor(Math.random() * 900_000) + 100_000}`;

/** What `ps` would say of `pid`, read by bash (this process may not read /proc): empty when gone. */
async function stateOf(executor: BashExecutor, pid: number): Promise<string> {
  const result = await executor.run(executor.resolve({
    command: `grep '^State:' /proc/${pid}/status 2>/dev/null || true`,
  }));
  return result.stdout.text.trim();
}

/** Gone, or a zombie waiting to be reaped: either way it runs no more. */
function assertDead(state: string, what: string): void {
  assert.ok(state === "" || /\bZ\b/.test(state), `${what} still runs: ${state}`);
}

describe("under the documented Deno permissions", { skip }, () => {
  it("runs a command, and a stray it leaves is killed and counted", async () => {
    await using executor = new LocalBashExecutor();
    const result = await executor.run(executor.resolve({
      command: `sleep ${marker()} >/dev/null 2>&1 & echo $!`,
    }));
    const stray = Number(result.stdout.text);
    assert.ok(stray > 0, result.stdout.text);
    assert.deepEqual(result.strays, { killed: 1, survivors: [] });
    assertDead(await stateOf(executor, stray), `stray ${stray}`);
  });

  it("kills a background task, checked by pid", async () => {
    await using executor = new LocalBashExecutor();
    const task = await executor.start(executor.resolve({ command: `sleep ${marker()}` }));
    assert.equal(await task.kill(), true);
    assert.equal(task.status, "killed");
    assertDead(await stateOf(executor, task.pid), `task ${task.pid}`);
  });

  it("runs a command in a terminal, which answers and dies with a kill; resize() names --allow-all", async () => {
    await using executor = new LocalBashExecutor();
    const task = await executor.start(executor.resolve({
      command: `read a; echo "got $a"; sleep ${marker()}`,
      terminal: { rows: 24, cols: 80 },
    }));
    await task.write("yes\r");
    let seen = "";
    for await (const event of task.output()) {
      if ("text" in event) seen += event.text;
      if (seen.includes("got yes")) break;
    }
    assert.match(seen, /^yes\r\ngot yes\r\n/);
    await assert.rejects(
      task.resize(30, 100),
      (error: unknown) =>
        error instanceof BashConfigError && /read \/proc.*--allow-all/.test(error.message),
    );
    assert.equal(await task.kill(), true);
    assertDead(await stateOf(executor, task.pid), `terminal task ${task.pid}`);
  });

  it("confines a sandboxed run", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-perm-")));
    try {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: base,
        defaultMode: "workspace-write",
      });
      const statuses = await executor.probeBackends();
      if (!statuses.some((status) => status.works)) {
        throw new Error(`no sandbox backend works here: ${JSON.stringify(statuses)}`);
      }
      const result = await executor.run(executor.resolve({
        command: "echo inside > inside.txt; echo outside > /etc/shellseam-perm-test",
      }));
      assert.equal(readFileSync(join(base, "inside.txt"), "utf8"), "inside\n");
      assert.equal(result.sandbox?.denied, true, result.stderr.text);
      assert.equal(result.sandbox?.denial, "filesystem");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  for (
    const flag of ["--allow-run", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"]
  ) {
    it(`without ${flag}, fails with an error that names it`, async () => {
      const flags = DOCUMENTED_PERMISSIONS.filter((given) => !given.startsWith(flag));
      const answer = await host(flags, []);
      assert.ok(
        answer.name === "BashConfigError" || answer.name === "BashSpawnError",
        answer.message,
      );
      assert.ok(answer.message?.includes(flag), answer.message);
    });
  }

  it(
    "refuses a workspace-write call where it may not move a planted .git away, naming --allow-write",
    {
      skip: !onDeno || runtime.mayWrite(WORKSPACE_OUTSIDE_TMP)
        ? "this process may write this checkout (more than the documented permissions allow)"
        : false,
    },
    async () => {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: WORKSPACE_OUTSIDE_TMP,
        defaultMode: "workspace-write",
      });
      await assert.rejects(
        executor.run(executor.resolve({ command: "true" })),
        (error: unknown) =>
          error instanceof BashSpawnError && error.message.includes("--allow-write") &&
          error.message.includes(WORKSPACE_OUTSIDE_TMP),
      );
      const readOnly = await executor.run(
        executor.resolve({
          command: "true",
          sandboxPolicy: {
            mode: "read-only",
            workspaceRoot: WORKSPACE_OUTSIDE_TMP,
            network: "deny",
          },
        }),
      );
      assert.equal(readOnly.exitCode, 0, readOnly.stderr.text);
    },
  );

  it("refuses, naming LD_LIBRARY_PATH, an environment Deno will not spawn with under a scoped --allow-run", async () => {
    const answer = await host(DOCUMENTED_PERMISSIONS, ["LD_LIBRARY_PATH=/nonexistent"]);
    assert.equal(answer.name, "BashSpawnError", answer.message);
    assert.ok(answer.message?.includes("LD_LIBRARY_PATH"), answer.message);
  });
});

/**
 * Runs `_permission_host.ts` under `flags`, with `env` (NAME=value) set by
 * the host itself, and returns what it printed.
 */
async function host(
  flags: readonly string[],
  env: readonly string[],
): Promise<{ stdout?: string; name?: string; message?: string }> {
  // "deno" as --allow-run names it; the host sets `env` itself, since this
  // process may not spawn with LD_LIBRARY_PATH under a scoped --allow-run.
  const { stdout, stderr } = await new Deno.Command("deno", {
    args: ["run", "--no-prompt", ...flags, HOST, ...env],
    env: { NO_COLOR: "1" },
    cwd: process.cwd(),
  }).output();
  const text = new TextDecoder().decode(stdout);
  assert.ok(text.trim() !== "", new TextDecoder().decode(stderr));
  return JSON.parse(text);
}
