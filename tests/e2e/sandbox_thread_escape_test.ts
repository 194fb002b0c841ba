// A command whose main thread exits alone (SYS_exit from the leader) while a
// second thread runs on: the leader is a zombie, which the census once took
// for dead, so the call returned with the thread alive (strays 0), and the
// thread then planted `sub/.git` with a `core.fsmonitor` command and an
// `.envrc` for the host's own git and direnv to run, unconfined. Checked
// from the host on the unconfined local executor and both backends, as root
// and as nobody: the call counts the thread's process among its strays, no
// process of the command is left, and nothing it would have written appears
// once its sleep is long past.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lchownSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import process from "node:process";
import type { BashRunResult } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import {
  executorFor,
  probeHere,
  skipUnless,
  skipWithoutPython,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";
import { loneThreadCommand, marker, pause, processesWith } from "../local/_helpers.ts";

const HOST = fileURLToPath(new URL("./_thread_escape_host.ts", import.meta.url));
const NOBODY = 65534;
/** How long the thread sleeps before it plants, counted from when the call returned. */
const THREAD_SLEEP_S = 1.5;
/** How long past that sleep the host waits before it looks for what the thread would have made. */
const MARGIN_MS = 4000;

const statuses = await probeHere();
const deno = findDeno(process.env.PATH);

/** The attack: a lone thread that, after its sleep, writes beside the workspace and plants in it. */
function attack(workspace: Workspace, token: string): string {
  const direct = join(workspace.base, "canary-direct");
  const fsmonitor = join(workspace.base, "canary-fsmonitor");
  const plant = [
    `touch '${direct}'`,
    "git init -q sub",
    `git -C sub config core.fsmonitor "touch '${fsmonitor}'; false"`,
    `echo "touch '${fsmonitor}'" > sub/.envrc`,
    `: ${token}`,
  ].join("; ");
  return loneThreadCommand(String(THREAD_SLEEP_S), { then: plant, started: "started" });
}

/**
 * What the host checks once the attack's call has returned (`result`), while
 * the executor that ran it still lives: the thread ran (it made `started`),
 * the call counted its process among the strays (`counted`: not under bwrap,
 * whose pid namespace ends it), no process carrying `token` is left, and
 * once the thread's sleep is long past, nothing it would have made exists
 * and the host's own `git status` in `sub` runs nothing planted.
 */
async function assertContained(
  workspace: Workspace,
  token: string,
  result: BashRunResult,
  counted: boolean,
): Promise<void> {
  assert.equal(result.exitCode, 0, result.stderr.text);
  assert.ok(existsSync(join(workspace.root, "started")), "the thread never ran");
  assert.deepEqual(result.strays.survivors, []);
  if (counted) assert.ok(result.strays.killed >= 1, JSON.stringify(result.strays));
  assert.deepEqual(processesWith(token), [], "a process of the command outlived its call");
  await pause(THREAD_SLEEP_S * 1000 + MARGIN_MS);
  assert.deepEqual(processesWith(token), []);
  assert.equal(existsSync(join(workspace.base, "canary-direct")), false, "the thread wrote");
  assert.equal(existsSync(join(workspace.root, "sub")), false, "the thread planted sub/");
  // What a user would do next: the host's git in the workspace, unconfined.
  spawnSync("git", ["-C", join(workspace.root, "sub"), "status"], { stdio: "ignore" });
  assert.equal(existsSync(join(workspace.base, "canary-fsmonitor")), false, "git ran a plant");
}

describe("a thread that outlives its command's main thread", { skip: skipWithoutPython() }, () => {
  it("is killed and counted by the unconfined local executor", async () => {
    using workspace = tempWorkspace();
    const token = marker();
    await using executor = new LocalBashExecutor({ cwd: workspace.root });
    const result = await executor.run(executor.resolve({ command: attack(workspace, token) }));
    await assertContained(workspace, token, result, true);
  });

  for (const backend of ["landlock", "bwrap"] as const) {
    it(
      `is killed and counted under ${backend}`,
      { skip: skipUnless(statuses, backend) },
      async () => {
        using workspace = tempWorkspace();
        const token = marker();
        await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
        const result = await executor.run(executor.resolve({ command: attack(workspace, token) }));
        await assertContained(workspace, token, result, backend !== "bwrap");
      },
    );
  }
});

const asNobody = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0 || findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : "reason" in deno
  ? deno.reason
  : skipWithoutPython();

describe("a thread that outlives its command's main thread, for a user who is not root", {
  skip: asNobody,
}, () => {
  for (const kind of ["local", "landlock", "bwrap"] as const) {
    const skip = kind === "local" ? false : skipUnless(statuses, kind);
    it(`is killed by the ${kind} executor run as nobody`, { skip }, async () => {
      assert.ok(!("reason" in deno));
      using workspace = tempWorkspace();
      const token = marker();
      // Everything here is nobody's: only the executor stands in the way.
      for (
        const name of ["", ...readdirSync(workspace.base, { recursive: true, encoding: "utf8" })]
      ) {
        lchownSync(join(workspace.base, name), NOBODY, NOBODY);
      }
      const host = spawn("setpriv", [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        deno.path,
        "run",
        "--no-config",
        "--no-lock",
        "--allow-all",
        HOST,
        kind,
        workspace.root,
      ], {
        env: {
          ESCAPE_COMMAND: attack(workspace, token),
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: workspace.base,
          DENO_DIR: join(workspace.base, "deno-dir"),
        },
        stdio: ["pipe", "pipe", "inherit"],
      });
      const exited = new Promise<number | null>((done) => host.on("exit", done));
      try {
        const lines = createInterface({ input: host.stdout! })[Symbol.asyncIterator]();
        const line = await lines.next();
        assert.equal(line.done, false, "the host printed no result");
        const result = JSON.parse(line.value as string) as BashRunResult;
        assert.equal(statSync(join(workspace.root, "started")).uid, NOBODY);
        await assertContained(workspace, token, result, kind !== "bwrap");
      } finally {
        host.stdin!.end();
        assert.equal(await exited, 0);
      }
    });
  }
});
