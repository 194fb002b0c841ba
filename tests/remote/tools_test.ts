// The remote side's own programs over a real sshd whose sessions' PATH starts with folders in a
// workspace: a confined command that plants a program there never gets it run outside the
// sandbox (by the bootstrap, a resize or the clean-up at disposal), and a confined call whose
// writable roots hold a folder of those programs is refused.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { parseTools, REMOTE_TOOLS } from "../../remote/_tools.ts";
import { SshBashExecutor } from "../../remote/mod.ts";
import { findOnPath } from "../../engine/mod.ts";
import { BashSpawnError, type SandboxPolicy, SandboxUnavailableError } from "../../seam/mod.ts";
import { until } from "../local/_helpers.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

const noBwrap = findOnPath("bwrap", process.env.PATH) === null && "needs bwrap";

describe("the remote side's own programs", { skip: sshdMissing || noBwrap }, () => {
  let sshd: TestSshd | undefined;
  /** Holds the workspace `app` (its node_modules/.bin first on PATH) and `tools` (next on PATH). */
  let base = "";
  /** Where a planted program notes that it ran; no confined command may write there. */
  let outside = "";
  let app = "";
  let plants = "";
  let tools = "";
  const hostPath = process.env.PATH ?? "/usr/bin:/bin";
  before(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-remote-tools-")));
    outside = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-remote-ran-")));
    app = join(base, "app");
    plants = join(app, "node_modules", ".bin");
    tools = join(base, "tools");
    mkdirSync(plants, { recursive: true });
    mkdirSync(tools);
    const stty = findOnPath("stty", hostPath);
    assert.ok(stty !== null);
    symlinkSync(stty, join(tools, "stty"));
    mkdirSync(join(base, "home"));
    mkdirSync(join(base, "tmp"));
    sshd = await startSshd({
      env: {
        HOME: join(base, "home"),
        TMPDIR: join(base, "tmp"),
        PATH: `${plants}:${tools}:${hostPath}`,
      },
    });
  });
  after(async () => {
    await sshd?.dispose();
    for (const dir of [base, outside]) rmSync(dir, { recursive: true, force: true });
  });
  const policy = (mode: SandboxPolicy["mode"], root: string): SandboxPolicy => ({
    mode,
    workspaceRoot: root,
    network: "deny",
  });

  it("a program planted in a writable folder first on the remote PATH is never run unconfined", async () => {
    const ran = join(outside, "ran");
    {
      await using executor = new SshBashExecutor({ ...sshd!.config, cwd: app });
      // Each planted program notes its name where only an unconfined process can write, then
      // runs the real one.
      const names = [...REMOTE_TOOLS, "bash", "sh"].filter((name) =>
        findOnPath(name, hostPath) !== null
      );
      const plant = names.map((name) =>
        `printf '#!/bin/sh\\n{ echo ${name} >>${ran}; } 2>/dev/null\\nexec ${
          findOnPath(name, hostPath)
        } "$@"\\n' >node_modules/.bin/${name} && chmod +x node_modules/.bin/${name}`
      ).join(" && ");
      const planted = await executor.run(executor.resolve({
        command: plant,
        sandboxPolicy: policy("workspace-write", app),
      }));
      assert.equal(planted.exitCode, 0, planted.stderr.text);
      assert.equal(planted.sandbox?.backend, "bwrap");
      // Confined, with stdin (the bootstrap's spool) and protected paths; commands still get the
      // session's PATH.
      const confined = await executor.run(executor.resolve({
        command: 'cat; echo "$PATH"',
        stdin: "in\n",
        sandboxPolicy: policy("workspace-write", app),
      }));
      assert.equal(confined.stdout.text, `in\n${plants}:${tools}:${hostPath}\n`);
      const unconfined = await executor.run(executor.resolve({
        command: 'echo "$PATH"',
        env: { PATH: hostPath },
      }));
      assert.equal(unconfined.stdout.text, `${hostPath}\n`);
      // A terminal's resize (the command itself finds its own stty on the host's PATH).
      const inTerminal = await executor.start(executor.resolve({
        command: "echo ready; read -r line",
        env: { PATH: hostPath },
        terminal: { rows: 24, cols: 80 },
      }));
      let seen = "";
      await until(() => (seen += inTerminal.readOutput().stdout.text).includes("ready"), "ready");
      await inTerminal.resize(30, 100);
      await inTerminal.kill();
      // Disposal removes the remote private folder.
    }
    assert.equal(
      existsSync(ran) ? readFileSync(ran, "utf8") : "",
      "",
      "the remote side ran a program a confined command planted",
    );
  });

  it("a confined call whose writable roots hold a folder of those programs is refused, and nothing runs", async () => {
    // Nothing planted is left from the case above (an executor made then would search there).
    rmSync(plants, { recursive: true, force: true });
    mkdirSync(plants);
    await using executor = new SshBashExecutor({ ...sshd!.config, cwd: base });
    const readOnly = await executor.run(executor.resolve({
      command: "echo read",
      sandboxPolicy: policy("read-only", base),
    }));
    assert.equal(readOnly.stdout.text, "read\n", readOnly.stderr.text);
    for (
      const sandboxPolicy of [
        policy("workspace-write", base),
        { ...policy("workspace-write", app), writableRoots: [tools] },
      ]
    ) {
      await assert.rejects(
        executor.run(executor.resolve({ command: "touch ran", sandboxPolicy })),
        (error: unknown) =>
          error instanceof SandboxUnavailableError &&
          error.attempts[0]?.reason.startsWith(
              `"${tools}" holds programs the remote side runs unconfined`,
            ) === true,
      );
    }
    assert.equal(existsSync(join(base, "ran")), false);
    assert.equal(existsSync(join(app, "ran")), false);
  });
});

describe("parseTools", () => {
  /**
   * What the login files' fragment prints: getent's exit status, the home, then each file, its
   * locations, "".
   */
  const login = [
    "0",
    "/h",
    "/h",
    "/h",
    "",
    "/h/.bashrc",
    "/h",
    "/h/.bashrc",
    "/d",
    "/d/rc",
    "",
    "/etc",
    "/etc",
    "",
  ];
  it("searches the folders that held a tool and the bash's, in PATH's order, each once", () => {
    const output = [
      "x",
      "/a:/opt/b/:/c",
      "/c/bash",
      "/usr/bin/bash",
      "/opt/b/",
      "/srv/b",
      "/c",
      "/c",
      "",
      ...login,
    ]
      .map((word) => `${word}\0`).join("");
    const tools = parseTools("h", "bash", 0, output);
    assert.equal(tools.shell, "/c/bash");
    assert.equal(tools.path, "/opt/b:/c");
    assert.deepEqual(tools.folders, ["/c", "/usr/bin", "/opt/b", "/srv/b"]);
    assert.equal(tools.sessionPath, "/a:/opt/b/:/c");
    assert.equal(tools.home, "/h");
    assert.deepEqual(tools.loginFiles, [
      { path: "/h", locations: ["/h"] },
      { path: "/h/.bashrc", locations: ["/h", "/h/.bashrc", "/d", "/d/rc"] },
      { path: "/etc", locations: ["/etc"] },
    ]);
    assert.equal(tools.passwdUnread, undefined);
    const words = (list: string[]) => list.map((word) => `${word}\0`).join("");
    const found = ["x", "/a", "/a/bash", "/a/bash", ""];
    // The user database unread: said, with the files of $HOME all the same.
    const unread = parseTools("h", "bash", 0, words([...found, "2", ...login.slice(1)]));
    assert.equal(unread.passwdUnread, '"getent passwd" exited with 2');
    assert.deepEqual(unread.loginFiles, tools.loginFiles);
    assert.equal(
      parseTools("h", "bash", 0, words(["", "", "/bin/bash", "/usr/bin/bash", "", ...login]))
        .sessionPath,
      undefined,
    );
    assert.throws(
      () => parseTools("h", "bash", 0, words(["x", "/a", "", "", "", ...login])),
      /No "bash" was found/,
    );
    // Cut short: no login files, not up to /etc, or no status first.
    for (const cut of [[], login.slice(0, 4), login.slice(0, -1), login.slice(1)]) {
      assert.throws(
        () => parseTools("h", "bash", 0, words([...found, ...cut])),
        /Could not learn where the programs/,
      );
    }
    assert.throws(() => parseTools("h", "bash", 5, ""), BashSpawnError);
  });
});
