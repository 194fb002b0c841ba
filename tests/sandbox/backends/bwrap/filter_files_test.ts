// The bwrap launches' seccomp filters as files of the executor's private
// folder: written once, written again when an unconfined command changed
// them (a standby that opened the old file runs no launch), out of every
// confined command's reach, and a launch whose file cannot be opened fails
// instead of running unfiltered.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { cgroupSupport } from "../../../../engine/_cgroup_support.ts";
import { createBwrapBackend } from "../../../../sandbox/backends/bwrap/_bwrap.ts";
import { commandFilter } from "../../../../sandbox/backends/_seccomp.ts";
import {
  executorFor,
  oneStandby,
  probeHere,
  readingInput,
  skipUnless,
  tempWorkspace,
} from "../../_fixtures.ts";
import { coldAndStandby, launch, policy, runLaunch, TMP } from "./_policy.ts";

/** A filter that allows every system call: what a swap that weakens the sandbox would put there. */
const ALLOW_ALL = new Uint8Array([6, 0, 0, 0, 0, 0, 0xff, 0x7f]);
/** The filter of a launch under network deny with no Unix socket allowed. */
const NONE = [...commandFilter("none")!];
/** An IP socket: the filter refuses it ("Permission denied"); without one, the empty namespace does. */
const TCP = "exec 3<>/dev/tcp/127.0.0.1/9 && echo connected";

const own = realpathSync(mkdtempSync(join(tmpdir(), "bwrap-filters-")));
after(() => rmSync(own, { recursive: true, force: true }));
const backend = createBwrapBackend(process.env.PATH, { privateDir: own, tmpDir: TMP });
const skip = "reason" in backend ? backend.reason : false;
const bashLaunch = (command: string) => ({
  ...launch("/"),
  args: ["--norc", "--noprofile", "-c", command],
});

describe("the bwrap seccomp filters' files", () => {
  it("are written once, and again when gone or changed, which no standby opened before survives", {
    skip,
  }, () => {
    assert.ok(!("reason" in backend));
    const path = join(own, "seccomp-none.bpf");
    const key = () => backend.standby!(bashLaunch("true"), policy({}))!.key;
    const first = key();
    assert.deepEqual([...readFileSync(path)], NONE);
    const { ino } = statSync(path);
    assert.equal(key(), first);
    backend.wrap(bashLaunch("true"), policy({}));
    assert.equal(statSync(path).ino, ino, "a file that holds the filter stays");
    for (
      const change of [
        () => writeFileSync(path, ALLOW_ALL),
        () => rmSync(path),
        () => writeFileSync(path, Uint8Array.from([...NONE, 0, 0, 0, 0, 0, 0, 0, 0])),
        () => {
          writeFileSync(join(own, "copy"), Uint8Array.from(NONE));
          rmSync(path);
          symlinkSync(join(own, "copy"), path);
        },
      ]
    ) {
      const before = key();
      change();
      backend.wrap(bashLaunch("true"), policy({}));
      assert.deepEqual([...readFileSync(path)], NONE);
      assert.ok(lstatSync(path).isFile(), "a regular file of its own, never a link");
      assert.notEqual(key(), before, "a standby that opened the old file runs no launch");
    }
  });

  it("fail a launch whose file cannot be opened, cold or in a standby, before anything runs", {
    skip,
  }, () => {
    assert.ok(!("reason" in backend));
    const path = join(own, "seccomp-none.bpf");
    const cold = backend.wrap(bashLaunch("echo ran"), policy({}));
    const standby = backend.standby!(bashLaunch("echo ran"), policy({}))!;
    const launches = coldAndStandby(cold, standby);
    // Gone after the launch was made (an unconfined command's removal), before it starts.
    rmSync(path);
    for (const [how, run] of launches) {
      const result = runLaunch(run);
      assert.equal(result.status, 125, `${how}: ${result.stderr}`);
      assert.match(result.stderr, /^shellseam-bwrap: cannot open the seccomp filter /, how);
      assert.equal(result.stdout, "", how);
      assert.equal(
        backend.runnerFailed({
          exitCode: result.status,
          signal: null,
          stderrText: result.stderr,
          killedByExecutor: false,
        }),
        true,
      );
    }
  });
});

const statuses = await probeHere();
const support = cgroupSupport();
const noCgroup = "unavailable" in support.processes
  ? `no cgroup for "processes" here (standbys hold cgroups): ${support.processes.unavailable}`
  : false;

describe("a bwrap executor's seccomp filter files", { skip: skipUnless(statuses, "bwrap") }, () => {
  it("are out of every confined command's reach, even in a writable root that holds them", async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace);
    const found = await executor.run({ command: `${TCP}; echo "$TMPDIR"` });
    assert.match(found.stderr.text, /Permission denied/);
    const privateDir = dirname(found.stdout.text.trim());
    const path = join(privateDir, "seccomp-none.bpf");
    assert.deepEqual([...readFileSync(path)], NONE);
    const { ino } = statSync(path);
    // The user's folder of private folders, writable: the executor's own folder stays read-only.
    const parent = dirname(privateDir);
    const attempts = [
      `printf x > "${path}"`,
      `rm -f "${path}"`,
      `printf x > "$TMPDIR/f" && mv -f "$TMPDIR/f" "${path}"`,
      `ln -sf /dev/null "${path}"`,
      `mv "${privateDir}" "${privateDir}.moved"`,
    ];
    for (const command of attempts) {
      const result = await executor.run({
        command,
        sandboxPolicy: {
          mode: "workspace-write",
          workspaceRoot: workspace.root,
          network: "deny",
          writableRoots: [parent],
        },
      });
      assert.notEqual(result.exitCode, 0, `${command}: ${result.stderr.text}`);
      assert.deepEqual([...readFileSync(path)], NONE, command);
      assert.equal(statSync(path).ino, ino, command);
    }
  });

  it("are written again when an unconfined command changed them, past a standby that opened them", {
    skip: noCgroup,
  }, async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, { defaultMode: "read-only" });
    const found = await executor.run({ command: 'echo "$TMPDIR"' });
    const path = join(dirname(found.stdout.text.trim()), "seccomp-none.bpf");
    const changes: [string, () => void][] = [
      // The same file, rewritten: a standby holds it open.
      ["rewritten", () => writeFileSync(path, ALLOW_ALL)],
      ["replaced", () => {
        writeFileSync(`${path}.new`, ALLOW_ALL);
        renameSync(`${path}.new`, path);
      }],
      ["removed", () => rmSync(path)],
    ];
    for (const [how, change] of changes) {
      // The standby has opened the file and waits for its options.
      await readingInput(await oneStandby("bwrap"), 4);
      change();
      for (let call = 0; call < 2; call++) {
        const result = await executor.run({ command: TCP });
        assert.notEqual(result.exitCode, 0, `${how}, call ${call}: ${result.stdout.text}`);
        assert.match(result.stderr.text, /Permission denied/, `${how}, call ${call}`);
        assert.equal(result.sandbox?.runnerFailed, false, result.stderr.text);
      }
      assert.deepEqual([...readFileSync(path)], NONE, how);
    }
  });
});
