// The SSH executor under exactly the Deno permissions the README documents for
// @shellseam/bash/remote, not --allow-all: a host process runs with them against a
// real sshd (started here, under this test's own permissions), and without each flag
// it fails with a typed error that names the flag.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

/** The permissions of the remote entry point, as the README lists them. */
const REMOTE_PERMISSIONS: readonly string[] = [
  "--allow-run=ssh,bash",
  "--allow-env",
  "--allow-read",
  "--allow-write=/tmp",
  "--allow-sys=uid",
];

const HOST = fileURLToPath(new URL("./_permission_host.ts", import.meta.url));
const onDeno = "Deno" in globalThis;

describe("the SSH executor under its documented Deno permissions", {
  skip: !onDeno ? "Deno permissions exist only under Deno" : sshdMissing,
}, () => {
  let sshd: TestSshd | undefined;
  let workspace = "";
  before(async () => {
    sshd = await startSshd();
    workspace = mkdtempSync(join(tmpdir(), "shellseam-remote-perm-"));
  });
  after(async () => {
    await sshd?.dispose();
    rmSync(workspace, { recursive: true, force: true });
  });

  /** Runs the host under `flags`; what it printed. */
  async function host(flags: readonly string[]): Promise<Record<string, unknown>> {
    const { stdout, stderr } = await new Deno.Command("deno", {
      args: ["run", "--no-prompt", ...flags, HOST, JSON.stringify(sshd!.config), workspace],
      env: { NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder().decode(stdout);
    assert.ok(text.trim() !== "", new TextDecoder().decode(stderr));
    return JSON.parse(text);
  }

  /** What the host gives under the remote entry point's permissions, its ssh started by `session`. */
  const expected = (session: string) => ({
    session,
    stdout: "ran\n",
    exitCode: 3,
    escaped: "left\n",
    killed: true,
    confined: {
      exitCode: 1,
      denial: "filesystem",
      stderr: "bash: line 1: /etc/shellseam-perm-test: Read-only file system\n",
    },
  });

  it("runs, kills, ends a channel held by an escaped process, and confines", async () => {
    // setsid is not named: each ssh starts by Deno's detached (a fork), not through it.
    assert.deepEqual(await host(REMOTE_PERMISSIONS), expected("detached"));
    assert.equal(readFileSync(join(workspace, "inside.txt"), "utf8"), "in\n");
  });

  it("does the same with each ssh started through setsid once --allow-run names it", async () => {
    const flags = REMOTE_PERMISSIONS.map((flag) =>
      flag.startsWith("--allow-run=") ? `${flag},setsid` : flag
    );
    assert.deepEqual(await host(flags), expected("setsid-binary"));
  });

  for (
    const flag of ["--allow-run", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"]
  ) {
    it(`without ${flag}, fails with a typed error that names it`, async () => {
      const answer = await host(REMOTE_PERMISSIONS.filter((given) => !given.startsWith(flag)));
      assert.ok(
        answer.name === "BashConfigError" || answer.name === "BashSpawnError",
        JSON.stringify(answer),
      );
      assert.ok(String(answer.message).includes(flag), String(answer.message));
    });
  }
});
