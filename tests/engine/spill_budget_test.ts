import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LocalBashExecutor, type LocalBashExecutorConfig } from "../../local/mod.ts";
import { BashConfigError, type BashProcess, type BashRunResult } from "../../seam/mod.ts";
import { truncationMarkers } from "../../tool/render/mod.ts";
import { PeekExecutor } from "../local/_helpers.ts";

const MiB = 1024 * 1024;

/** Bytes of the regular files beneath `dir`. */
function bytesBeneath(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Reads a background process until its stderr says `word`. */
async function waitForWord(process: BashProcess, word: string): Promise<void> {
  let stderr = "";
  while (!stderr.includes(word)) {
    stderr += process.readOutput().stderr.text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the spill budget", () => {
  it("keeps the folder within the budget over many large runs, keeping the newest files", async () => {
    const budget = 20 * MiB;
    await using executor = new PeekExecutor({ maxSpillTotalBytes: budget, maxSpillBytes: 4 * MiB });
    const dir = await executor.dir();
    const results: BashRunResult[] = [];
    let largest = 0;
    for (let i = 0; i < 60; i++) {
      results.push(await executor.run(executor.resolve({ command: `head -c ${MiB} /dev/zero` })));
      largest = Math.max(largest, bytesBeneath(dir));
    }
    assert.ok(largest <= budget, `the folder held ${largest} bytes, over the ${budget} budget`);
    const kept = results.map((result) => existsSync(result.stdout.spillPath ?? ""));
    assert.deepEqual(kept, [...Array(40).fill(false), ...Array(20).fill(true)]);
    for (const result of results) {
      assert.equal(result.stdout.spillComplete, true, "each one was whole when returned");
      assert.equal(result.stdout.spillError, undefined);
    }
    const evicted = results[0]!.stdout;
    assert.deepEqual(truncationMarkers(evicted), [
      `[output truncated: ${evicted.omittedBytes} bytes omitted; full output: (unavailable)]`,
    ], "a result rendered after its file was evicted does not name it");
  });

  it("never deletes a running command's spill; a new spill stops early with a reason instead", async () => {
    const budget = 4 * MiB;
    await using executor = new PeekExecutor({ maxSpillTotalBytes: budget });
    const dir = await executor.dir();
    const server = await executor.start(executor.resolve({
      command: `head -c ${3 * MiB} /dev/zero; echo written >&2; exec sleep 60`,
    }));
    await waitForWord(server, "written");
    const serverFile = server.readOutput().stdout.spillPath;
    assert.ok(serverFile !== undefined, "the running command spilled");
    const squeezed = await executor.run(
      executor.resolve({ command: `head -c ${2 * MiB} /dev/zero` }),
    );
    assert.equal(squeezed.stdout.totalBytes, 2 * MiB, "the command itself ran to the end");
    assert.equal(squeezed.stdout.spillComplete, false);
    assert.equal(squeezed.stdout.spillError, `spill budget of ${budget} bytes reached`);
    assert.equal(statSync(squeezed.stdout.spillPath ?? "").size, MiB, "the room that was left");
    assert.equal(statSync(serverFile).size, 3 * MiB, "the running command's file is whole");
    assert.deepEqual(truncationMarkers(squeezed.stdout), [
      `[output truncated: ${squeezed.stdout.omittedBytes} bytes omitted; full output: (unavailable: spill budget of ${budget} bytes reached)]`,
      `[only the beginning of the output was saved: ${squeezed.stdout.spillPath}]`,
    ]);
    assert.ok(bytesBeneath(dir) <= budget);

    await server.kill();
    const after = await executor.run(executor.resolve({ command: `head -c ${2 * MiB} /dev/zero` }));
    assert.equal(after.stdout.spillComplete, true, "room was made from settled work");
    assert.equal(existsSync(serverFile), false, "the oldest settled spill went first");
    const read = server.readOutput();
    assert.equal(read.stdout.spillPath, undefined, "a read no longer names it");
    assert.equal(
      read.stdout.spillError,
      `deleted to keep spill files within the spill budget of ${budget} bytes`,
    );
    assert.ok(bytesBeneath(dir) <= budget);
  });

  it("counts the other files of the private directory (the sandbox's scratch) against it", async () => {
    await using executor = new PeekExecutor({ maxSpillTotalBytes: 4 * MiB });
    const scratch = join(await executor.dir(), "tmp");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "big"), new Uint8Array(3 * MiB));
    const result = await executor.run(
      executor.resolve({ command: `head -c ${2 * MiB} /dev/zero` }),
    );
    assert.equal(result.stdout.spillComplete, false);
    assert.match(result.stdout.spillError ?? "", /spill budget of 4194304 bytes reached/);
    assert.ok(statSync(result.stdout.spillPath ?? "").size <= MiB);
    assert.equal(statSync(join(scratch, "big")).size, 3 * MiB, "scratch files are never deleted");
  });

  it("names no file when the budget leaves no room at all", async () => {
    await using executor = new PeekExecutor({ maxSpillTotalBytes: 0 });
    const result = await executor.run(executor.resolve({ command: "seq 1 100000" }));
    assert.equal(result.stdout.truncated, true);
    assert.equal(result.stdout.spillPath, undefined);
    assert.equal(result.stdout.spillComplete, false);
    assert.equal(result.stdout.spillError, "spill budget of 0 bytes reached");
    assert.deepEqual(readdirSync(await executor.dir()), []);
  });

  it("puts the private directory in spillDir, and validates both options", async () => {
    const parent = mkdtempSync(join(tmpdir(), "shellseam-spilldir-"));
    try {
      await using executor = new PeekExecutor({ spillDir: parent });
      assert.equal(executor.config.spillDir, parent);
      assert.equal(executor.config.maxSpillTotalBytes, 1024 * MiB);
      const dir = await executor.dir();
      assert.equal(dirname(dirname(dir)), parent, "in the user's folder of private folders there");
      const result = await executor.run(executor.resolve({ command: "seq 1 100000" }));
      assert.equal(dirname(result.stdout.spillPath ?? ""), dir);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
    const bad: [LocalBashExecutorConfig, RegExp][] = [
      [{ maxSpillTotalBytes: -1 }, /"maxSpillTotalBytes" must be a whole number >= 0; got -1/],
      [{ maxSpillTotalBytes: 1.5 }, /"maxSpillTotalBytes"/],
      [{ spillDir: "relative" }, /"spillDir" must be the absolute path of an existing directory/],
      [{ spillDir: "/no/such/dir" }, /"spillDir".*got "\/no\/such\/dir"/],
      [{ spillDir: "/etc/hostname" }, /"spillDir"/],
    ];
    for (const [config, message] of bad) {
      assert.throws(
        () => new LocalBashExecutor(config),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(config),
      );
    }
  });
});

describe("BashProcess.release()", () => {
  it("deletes the spill files and frees the output once settled, and is refused while running", async () => {
    await using executor = new LocalBashExecutor({ maxOutputBytes: 1000, headBytes: 0 });
    const running = await executor.start(executor.resolve({ command: "exec sleep 60" }));
    await assert.rejects(
      running.release(),
      (error: unknown) =>
        error instanceof BashConfigError &&
        /still running.*kill it or await "done"/.test(error.message),
    );
    assert.equal(running.status, "running", "a refused release changes nothing");
    await running.kill();
    await running.release();

    const process = await executor.start(
      executor.resolve({ command: "seq 1 50000 | tee /dev/stderr" }),
    );
    await process.done;
    const read = process.readOutput();
    const files = [read.stdout.spillPath ?? "", read.stderr.spillPath ?? ""];
    assert.deepEqual(files.map((file) => existsSync(file)), [true, true]);
    await process.release();
    assert.deepEqual(files.map((file) => existsSync(file)), [false, false]);
    assert.throws(() => process.readOutput(), /was released, so its output is gone/);
    await process.release();
  });
});
