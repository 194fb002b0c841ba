import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { BashConfigError, type BashProcess } from "../seam/mod.ts";
import { type CaseDefinition, eventually, pause, SUITE_EXECUTOR_OPTIONS } from "./_harness.ts";
import { seqText, sha256 } from "./_output.ts";

/** Reads `process` until its stdout so far ends with `text`; returns what was read. */
async function readUntil(process: BashProcess, text: string): Promise<string> {
  let seen = "";
  await eventually(
    () => (seen += process.readOutput().stdout.text),
    (all) => all.endsWith(text),
    `stdout ending with ${JSON.stringify(text)}`,
  );
  return seen;
}

/** Background processes: start, write, read, kill, and their final state. */
export const backgroundCases: readonly CaseDefinition[] = [
  {
    name: "starts a process that takes input and reads its output as it comes, never twice",
    async body(h) {
      const executor = await h.executor();
      const command = 'while read -r line; do echo "got $line"; done; echo bye >&2; exit 4';
      const process = await h.start(executor, { command, keepStdinOpen: true });
      assert.equal(process.command, command);
      assert.ok(Number.isInteger(process.pid) && process.pid > 0, `pid ${process.pid}`);
      assert.equal(process.status, "running");
      assert.deepEqual([process.exitCode, process.signal], [null, null]);
      await process.write("one\n");
      assert.equal(await readUntil(process, "got one\n"), "got one\n");
      await process.write(new TextEncoder().encode("two\n"));
      assert.equal(await readUntil(process, "got two\n"), "got two\n");
      await process.closeStdin();
      await process.done;
      assert.equal(process.status, "completed");
      assert.deepEqual([process.exitCode, process.signal], [4, null]);
      const last = process.readOutput();
      assert.deepEqual(
        [
          last.stdout.text,
          last.stderr.text,
          last.status,
          last.exitCode,
          last.signal,
          last.stdout.truncated,
        ],
        ["", "bye\n", "completed", 4, null, false],
      );
      const again = process.readOutput();
      assert.deepEqual([again.stdout.text, again.stderr.text, again.status], ["", "", "completed"]);
    },
  },
  {
    name: "writes the given stdin bytes before what write() sends",
    async body(h) {
      const executor = await h.executor();
      const process = await h.start(executor, {
        command: "cat",
        stdin: "first\n",
        keepStdinOpen: true,
      });
      await process.write("second\n");
      await process.closeStdin();
      await process.done;
      assert.equal(process.readOutput().stdout.text, "first\nsecond\n");
      assert.equal(process.status, "completed");
    },
  },
  {
    name: "refuses write() to a process started without keepStdinOpen",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const process = await h.start(executor, { command: marker.sleep });
      await assert.rejects(process.write("ignored\n"), BashConfigError);
      assert.equal(await process.kill(), true);
    },
  },
  {
    name: "kills a process once: true, then false, and leaves nothing",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const process = await h.start(executor, { command: `echo up; ${marker.sleep}` });
      await h.waitForSleep(marker);
      assert.equal(await process.kill(), true);
      assert.equal(process.status, "killed");
      assert.equal(await process.kill(), false);
      await process.done;
      assert.equal(process.signal, "SIGTERM");
      assert.equal(process.exitCode, null);
      const read = process.readOutput();
      assert.deepEqual([read.stdout.text, read.status, read.signal], ["up\n", "killed", "SIGTERM"]);
      await h.assertNoneLeft(marker, 0);
    },
  },
  {
    name: "answers kill() with false once a process exited on its own",
    async body(h) {
      const executor = await h.executor();
      const process = await h.start(executor, { command: "echo quick" });
      await process.done;
      assert.equal(await process.kill(), false);
      assert.equal(process.status, "completed");
      assert.equal(process.exitCode, 0);
      assert.equal(process.readOutput().stdout.text, "quick\n");
    },
  },
  {
    name: "kills a process when the caller's signal aborts",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const controller = new AbortController();
      const process = await h.start(executor, {
        command: marker.sleep,
        signal: controller.signal,
      });
      await h.waitForSleep(marker);
      controller.abort();
      await process.done;
      assert.equal(process.status, "killed");
      assert.equal(await process.kill(), false);
      await h.assertNoneLeft(marker, 0);
    },
  },
  {
    name: "settles a process whose shell exited though a child holds the output",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const process = await h.start(executor, { command: `${marker.sleep} & echo started` });
      await process.done;
      assert.equal(process.status, "completed");
      assert.equal(process.exitCode, 0);
      assert.equal(process.readOutput().stdout.text, "started\n");
      await h.assertNoneLeft(marker, 0);
    },
  },
  {
    name: "applies no wall clock and no idle clock to a background process",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const process = await h.start(executor, {
        command: `echo up; ${marker.sleep}`,
        timeoutMs: 200,
        idleTimeoutMs: 200,
      });
      await h.waitForSleep(marker);
      await pause(800);
      assert.equal(process.status, "running");
      assert.equal(await process.kill(), true);
    },
  },
  {
    name: "marks a read that fell behind the memory window lossy and names the spill file",
    async body(h) {
      const executor = await h.executor();
      const process = await h.start(executor, { command: "seq 1 30000" });
      await process.done;
      const expected = seqText(30_000);
      const read = process.readOutput();
      const { maxOutputBytes, headBytes } = SUITE_EXECUTOR_OPTIONS;
      const { stdout, stderr } = read;
      assert.equal(stdout.truncated, true);
      assert.equal(stdout.omittedBytes, expected.length - maxOutputBytes);
      assert.ok(stdout.text.startsWith(expected.slice(0, headBytes)));
      assert.ok(stdout.text.endsWith(expected.slice(-(maxOutputBytes - headBytes))));
      assert.equal(stdout.spillComplete, true);
      assert.ok(stdout.spillPath !== undefined, "the spill file is named");
      assert.equal(sha256(readFileSync(stdout.spillPath)), sha256(expected));
      assert.deepEqual([stderr.truncated, stderr.spillPath], [false, undefined]);
    },
  },
  {
    name: "releases a settled process: its spill file is gone and later reads are refused",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const running = await h.start(executor, { command: marker.sleep });
      await assert.rejects(running.release(), BashConfigError, "a running process is not released");
      assert.equal(running.status, "running");
      assert.equal(await running.kill(), true);
      const process = await h.start(executor, { command: "seq 1 30000" });
      await process.done;
      const spill = process.readOutput().stdout.spillPath;
      assert.ok(spill !== undefined && existsSync(spill), "the spill file is named");
      await process.release();
      assert.equal(existsSync(spill), false, "release() deleted the spill file");
      assert.throws(() => process.readOutput(), BashConfigError);
      await process.release();
      await running.release();
    },
  },
];
