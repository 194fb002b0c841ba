// macOS simulated on Linux: a host that reports darwin, reads no /proc
// (under Deno it runs without --allow-all, which refuses /proc), finds no
// setsid on PATH and only a fake `ps` that prints what macOS's prints (no
// session id, procps-only flags refused). Its bash tool runs end to end with
// no line about a census that could not be taken, a child that called
// setsid() and kept its environment is killed and counted, and when the host
// is killed by SIGKILL its watchdog (the portable one, under /bin/sh) leaves
// nothing running. Its terminals run through stand-ins of macOS's `script`,
// `stty` and `ps` (BSD syntax, `ttysNNN` names), locally and under Seatbelt
// (a stand-in of `sandbox-exec` over bubblewrap): a prompt, a REPL, a
// resize, Ctrl-C and a kill, with nothing left running.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { assertNoneLeft, marker, until, waitForSleep, watchdogOf } from "../local/_helpers.ts";
import { macosBin } from "./_macos_bin.ts";
import { skipWithoutPython } from "../sandbox/_fixtures.ts";

/** The host's permissions under Deno: not --allow-all, which alone grants /proc. */
const permissions = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-sys"];

// .ts under Deno, .js once compiled for the Node leg.
const EXT = import.meta.url.slice(import.meta.url.lastIndexOf("."));
const HOST = fileURLToPath(new URL(`./_darwin_host${EXT}`, import.meta.url));
const TERMINAL_HOST = fileURLToPath(new URL(`./_darwin_terminal_host${EXT}`, import.meta.url));
const onDeno = "Deno" in globalThis;

const bwrapWorks =
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "true"]).status === 0;

/** From the host's death to its watchdog's last kill: a deadline for a failure, not a pace. */
const WATCHDOG_MS = 30_000;

describe("a host on simulated macOS", () => {
  // The fake macOS ps is a python3 script.
  it("runs the bash tool with no census noise and no survivor, and leaves nothing when killed", {
    skip: skipWithoutPython(),
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-macos-"));
    const bin = macosBin(join(dir, "bin"));
    const log = join(dir, "ps.log");
    const [token, lasting] = [marker(), marker()];
    const child = spawn(
      process.execPath,
      [...(onDeno ? ["run", ...permissions] : []), HOST, token.slice(4), lasting.slice(4)],
      {
        detached: true,
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, PATH: bin },
      },
    );
    const exited = new Promise<string | null>((done) =>
      child.once("exit", (_, signal) => done(signal))
    );
    try {
      let text = "";
      for await (const chunk of child.stdout) {
        text += String(chunk);
        if (text.includes("\n")) break;
      }
      assert.ok(text.includes("\n"), `the host printed nothing: ${JSON.stringify(text)}`);
      const seen = JSON.parse(text) as {
        strategy: string;
        texts: string[];
        stdout: string;
        strays: { killed: number; survivors: number[]; censusFailed?: string };
      };
      // No setsid on PATH: the runtime's own detached spawn makes each session.
      assert.equal(seen.strategy, "detached");
      assert.deepEqual(seen.texts, [
        "hi\n[exit code: 0]",
        "started\n[exit code: 0]\n" +
        "[stopped 1 background process(es) left running by the command; use run_in_background for servers]",
      ]);
      assert.equal(seen.stdout, "started\n");
      assert.deepEqual(seen.strays, { killed: 1, survivors: [] });
      await assertNoneLeft(token, 5_000);
      // The census leaned on the fake ps, macOS's way, and never asked it for what macOS lacks.
      const calls = readFileSync(log, "utf8").trim().split("\n");
      assert.ok(calls.some((call) => call.includes("-E")), `ps calls: ${calls.join(" | ")}`);
      assert.deepEqual(calls.filter((call) => /\bsid\b|(^| )e( |$)|--/.test(call)), []);
      // The background command and its escapee run until the host dies.
      await waitForSleep(lasting, 2);
      const watchdog = watchdogOf(child.pid!);
      process.kill(child.pid!, "SIGKILL");
      assert.equal(await exited, "SIGKILL");
      await assertNoneLeft(lasting, WATCHDOG_MS);
      // The dead host's watchdog logs its last ps calls in the folder until it ends.
      await until(() => !existsSync(`/proc/${watchdog}`), () => "the watchdog to end", WATCHDOG_MS);
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
      rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    }
  });

  // The stand-ins of ps and script are python3 scripts; that of sandbox-exec runs bubblewrap.
  it(
    "runs terminals through macOS's script, stty and ps, locally and under Seatbelt, and leaves nothing running",
    {
      skip: skipWithoutPython(),
    },
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-macos-")));
      const bin = macosBin(join(dir, "bin"));
      const token = marker();
      // The Seatbelt self-probe listens on loopback.
      const allow = onDeno ? ["run", ...permissions, "--allow-net=127.0.0.1"] : [];
      const seatbelt = bwrapWorks ? [join(dir, "seatbelt")] : [];
      for (const folder of seatbelt) mkdirSync(folder);
      const child = spawn(
        process.execPath,
        [...allow, TERMINAL_HOST, token.slice(4), ...seatbelt],
        { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, PATH: bin } },
      );
      try {
        let text = "";
        for await (const chunk of child.stdout) text += String(chunk);
        const seen = JSON.parse(text) as Record<
          string,
          Record<string, { text: string; exitCode: number | null; status: string }>
        >;
        assert.deepEqual(Object.keys(seen), ["local", ...(bwrapWorks ? ["seatbelt"] : [])]);
        for (const [executor, sessions] of Object.entries(seen)) {
          // BSD script's SCRIPT=/dev/null does not reach the command; the host's SCRIPT is unset.
          assert.deepEqual(sessions, {
            prompt: {
              text: "Continue? [y/N] y\r\nanswer=y script=unset\r\n",
              exitCode: 0,
              status: "completed",
            },
            python: { text: ">>> 1+1\r\n2\r\n>>> exit()\r\n", exitCode: 0, status: "completed" },
            resize: {
              text: "30 100\r\nready\r\n\r\n40 132\r\n",
              exitCode: 0,
              status: "completed",
            },
            // 128 + SIGINT, as on Linux, where BSD script alone would say 2.
            interrupt: { text: "ready\r\n^C", exitCode: 130, status: "completed" },
            killed: { text: "started\r\n", exitCode: null, status: "killed" },
          }, executor);
        }
        await assertNoneLeft(token, 5_000);
        // The resize found the terminal through ps, macOS's way.
        const calls = readFileSync(join(dir, "ps.log"), "utf8").trim().split("\n");
        assert.ok(calls.includes("-A -o pid=,ppid=,tty="), `ps calls: ${calls.join(" | ")}`);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
      }
    },
  );
});
