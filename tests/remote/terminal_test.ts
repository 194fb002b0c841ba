// A command in a terminal over a real sshd: the remote bash runs util-linux
// script, a prompt is answered through write(), a kill leaves nothing on the
// remote host (this machine), and a host without script is a typed error.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SshBashExecutor } from "../../remote/mod.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { marker, processesWith, until } from "../local/_helpers.ts";
import { TerminalWatch } from "../_terminal.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

const size = { rows: 30, cols: 100 };

describe("a terminal over SSH", { skip: sshdMissing }, () => {
  let sshd: TestSshd | undefined;
  before(async () => {
    sshd = await startSshd();
  });
  after(async () => {
    await sshd?.dispose();
  });

  it("runs the command in a remote terminal that takes typed input and resizes, and a kill leaves nothing", async () => {
    await using executor = new SshBashExecutor(sshd!.config);
    const mark = marker();
    const process = await executor.start({
      command: "[ -t 0 ] && echo tty; echo term=$TERM; stty size; " +
        `read -p 'Continue? [y/N] ' a; echo "answered $a"; trap '' HUP; ` +
        `trap 'echo cols=$(tput cols) lines=$(tput lines)' WINCH; : ${mark}; ` +
        "while :; do sleep 0.05; done",
      terminal: size,
    });
    const watch = new TerminalWatch(process);
    await watch.until(/Continue\? \[y\/N\] $/);
    await process.write("y\r");
    await watch.until(/answered y\r\n/);
    assert.equal(
      watch.text,
      "tty\r\nterm=xterm-256color\r\n30 100\r\nContinue? [y/N] y\r\nanswered y\r\n",
    );
    // The remote bash and script carry the mark on their command lines.
    await until(() => processesWith(mark).length > 0, "the remote command");
    await process.resize(40, 120);
    await watch.until(/cols=120 lines=40\r\n/);
    await assert.rejects(process.resize(0, 80), /"size.rows" must be a whole number/);
    assert.equal(await process.kill(), true);
    await until(() => processesWith(mark).length === 0, "the remote command to be gone");
  });

  it("is refused with a typed error on a host without util-linux script, and nothing runs", async () => {
    // A PATH with every program of /usr/bin but script.
    const bin = mkdtempSync(join(tmpdir(), "no-script-"));
    for (const name of readdirSync("/usr/bin")) {
      if (name !== "script") symlinkSync(join("/usr/bin", name), join(bin, name));
    }
    const bare = await startSshd({ env: { PATH: bin } });
    try {
      await using executor = new SshBashExecutor(bare.config);
      const mark = marker();
      await assert.rejects(
        executor.start({ command: `sleep ${mark}`, terminal: size }),
        (error: unknown) =>
          error instanceof BashSpawnError &&
          /needs util-linux "script" on the remote host/.test(error.message),
      );
      assert.deepEqual(processesWith(mark), []);
      // Without a terminal the same host runs commands.
      const plain = await executor.run({ command: "echo fine" });
      assert.equal(plain.stdout.text, "fine\n");
    } finally {
      await bare.dispose();
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
