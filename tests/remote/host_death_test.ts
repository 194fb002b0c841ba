// Nothing outlives a host that uses the SSH executor: a real host process
// (Deno, or Node against the built package) runs commands over a real sshd,
// is SIGKILLed, and then neither its local `ssh` master (found by its unique
// control socket) nor any remote command (found by a unique marker) is left,
// nor its private folder.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { marker, pause, processesWith, waitForSleep } from "../local/_helpers.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

// .ts under Deno, .js once compiled for the Node leg.
const EXT = import.meta.url.slice(import.meta.url.lastIndexOf("."));
const HOST = fileURLToPath(new URL(`./_host${EXT}`, import.meta.url));
const onDeno = "Deno" in globalThis;

/** Waits up to 5 s for `done()`; then fails with `what`. */
async function within(done: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done() && Date.now() < deadline) await pause(50);
  assert.ok(done(), what());
}

describe(`a ${onDeno ? "Deno" : "Node"} host using the SSH executor`, { skip: sshdMissing }, () => {
  let sshd: TestSshd | undefined;
  before(async () => (sshd = await startSshd()));
  after(() => sshd?.dispose());

  it("SIGKILLed leaves no ssh master, no remote command and no private folder", async () => {
    const token = marker();
    const args = [
      ...(onDeno ? ["run", "-A"] : []),
      HOST,
      JSON.stringify(sshd!.config),
      token,
    ];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<string | null>((done) => child.once("exit", (_, s) => done(s)));
    let text = "";
    for await (const chunk of child.stdout) {
      text += String(chunk);
      if (text.includes("\n")) break;
    }
    assert.ok(text.includes("\n"), `the host printed nothing: ${JSON.stringify(text)}`);
    const { controlPath, folder } = JSON.parse(text) as { controlPath: string; folder: string };
    await waitForSleep(token, 3);
    // Every ssh process of the host names the control socket; the master also says it is one.
    const ssh = (): number[] => processesWith(`ControlPath=${controlPath}\0`);
    const masters = ssh().filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("ControlMaster=yes\0")
    );
    assert.equal(masters.length, 1, "the host runs one ssh master");
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    await within(() => ssh().length === 0, () => `ssh processes outlived their host: ${ssh()}`);
    await within(
      () => processesWith(token).length === 0,
      () => `remote commands carrying "${token}" outlived the host: ${processesWith(token)}`,
    );
    await within(() => !existsSync(folder), () => `"${folder}" was left behind`);
  });
});
