import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { renderRunResult } from "../../tool/mod.ts";
import { seqText } from "../local/_helpers.ts";

/** Why a test that mounts file systems cannot run here, or undefined when it can. */
function cannotMount(): string | undefined {
  if (process.getuid?.() !== 0) return "mounting a small tmpfs needs root";
  try {
    execFileSync("mount", ["--version"], { stdio: "ignore" });
  } catch {
    return 'no "mount" program';
  }
  return undefined;
}

/**
 * Runs `body` with TMPDIR at a fresh tmpfs of `options` (the executor makes
 * its private folder there on first use), then unmounts it.
 */
async function onTmpfs(options: string, body: () => Promise<void>): Promise<void> {
  // On Node the first spawn makes the runtime's folder of named pipes in
  // TMPDIR: make it before TMPDIR moves, or it would keep the tmpfs busy.
  await using warm = new LocalBashExecutor();
  await warm.run(warm.resolve({ command: "true" }));
  const mountPoint = mkdtempSync(join(tmpdir(), "shellseam-tmpfs-"));
  const previous = process.env.TMPDIR;
  execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint]);
  try {
    process.env.TMPDIR = mountPoint;
    await body();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    execFileSync("umount", [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
}

/**
 * A command that overflows stdout, waits until its own spill file is in
 * `dir` (beside the one an earlier run left), then removes the folder.
 */
function removeOwnSpill(dir: string): string {
  return `seq 1 5000; until [ "$(ls '${dir}' | wc -l)" -ge 2 ]; do sleep 0.01; done; rm -rf '${dir}'`;
}

describe("spill faults", () => {
  it("a command that removes the spill folder gets no path that is gone, and later runs spill again", async () => {
    await using executor = new LocalBashExecutor({ maxOutputBytes: 1000 });
    const first = await executor.run(executor.resolve({ command: "seq 1 5000" }));
    const path = first.stdout.spillPath;
    assert.ok(path !== undefined && existsSync(path));
    const dir = dirname(path);

    const removing = await executor.run(
      executor.resolve({ command: removeOwnSpill(dir) }),
    );
    assert.equal(existsSync(dir), false);
    assert.equal(removing.stdout.spillPath, undefined);
    assert.equal(removing.stdout.spillComplete, false);
    assert.equal(removing.stdout.spillError, "the spill file was removed while the command ran");
    assert.match(
      renderRunResult(removing).text,
      /full output: \(unavailable: the spill file was removed while the command ran\)\]/,
    );

    const later = await executor.run(executor.resolve({ command: "seq 1 5000" }));
    assert.ok(later.stdout.spillPath !== undefined, "a later run spills again");
    assert.equal(later.stdout.spillComplete, true);
    assert.equal(later.stdout.spillError, undefined);
    assert.equal(readFileSync(later.stdout.spillPath, "utf8"), seqText(5000));
    assert.equal(statSync(dirname(later.stdout.spillPath)).mode & 0o777, 0o700);
  });

  it("a background read names no removed spill file and says why", async () => {
    await using executor = new LocalBashExecutor({ maxOutputBytes: 1000 });
    const first = await executor.run(executor.resolve({ command: "seq 1 5000" }));
    const dir = dirname(first.stdout.spillPath ?? "");
    const process = await executor.start(
      executor.resolve({ command: removeOwnSpill(dir) }),
    );
    await process.done;
    const read = process.readOutput();
    assert.equal(read.stdout.spillComplete ? read.stdout.spillPath : undefined, undefined);
    assert.equal(read.stdout.spillError, "the spill file was removed while the command ran");
  });

  const skip = cannotMount();
  it("a full file system keeps what was written as a partial spill and says ENOSPC", {
    skip: skip ?? false,
  }, async () => {
    await onTmpfs("size=64k", async () => {
      await using executor = new LocalBashExecutor({ maxOutputBytes: 1000 });
      const result = await executor.run(
        executor.resolve({ command: "head -c 300000 /dev/zero | tr '\\0' a; echo done" }),
      );
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.totalBytes, 300_005);
      assert.equal(result.stdout.spillError, "ENOSPC: no space left on device");
      assert.equal(result.stdout.spillComplete, false);
      const path = result.stdout.spillPath;
      assert.ok(path !== undefined, "the partial spill keeps its path");
      const kept = readFileSync(path, "latin1");
      assert.ok(kept.length > 0 && kept.length < 300_000, `kept ${kept.length} bytes`);
      assert.equal(kept, "a".repeat(kept.length));
      const text = renderRunResult(result).text;
      assert.match(text, /full output: \(unavailable: ENOSPC: no space left on device\)\]/);
      assert.ok(text.includes(`[only the beginning of the output was saved: ${path}]`));
    });
  });

  it(
    "a background reader gets what the spill kept, then a gap that names the fault, then the tail",
    {
      skip: skip ?? false,
    },
    async () => {
      await onTmpfs("size=64k", async () => {
        await using executor = new LocalBashExecutor({ maxOutputBytes: 1000 });
        const process = await executor.start({
          command: "head -c 300000 /dev/zero | tr '\\0' a; echo done",
        });
        await process.done;
        let text = "";
        const gaps: { offset: number; omittedBytes: number | null; reason: string }[] = [];
        for await (const event of process.output()) {
          if (event.stream !== "stdout") continue;
          if ("text" in event) text += event.text;
          else {gaps.push({
              offset: event.offset,
              omittedBytes: event.omittedBytes,
              reason: event.reason,
            });}
        }
        assert.equal(gaps.length, 1, JSON.stringify(gaps));
        const [gap] = gaps;
        assert.equal(
          gap?.reason,
          "the spill file stopped at a fault (ENOSPC: no space left on device)",
        );
        assert.ok((gap?.offset ?? 0) > 0, "the spill kept a beginning");
        assert.equal(text.length + (gap?.omittedBytes ?? 0), 300_005);
        assert.ok(text.endsWith("adone\n"));
        assert.equal(text.slice(0, gap?.offset), "a".repeat(gap?.offset ?? 0));
      });
    },
  );

  it(
    "a read-only file system leaves no spill and says EROFS",
    { skip: skip ?? false },
    async () => {
      await onTmpfs("ro,size=64k", async () => {
        await using executor = new LocalBashExecutor({ maxOutputBytes: 1000 });
        const result = await executor.run(executor.resolve({ command: "seq 1 5000" }));
        assert.equal(result.stdout.spillPath, undefined);
        assert.equal(result.stdout.spillComplete, false);
        assert.equal(result.stdout.spillError, "EROFS: read-only file system");
        assert.ok(result.stdout.text.startsWith("1\n2\n"));
        assert.ok(result.stdout.text.endsWith("4999\n5000\n"));
        assert.match(
          renderRunResult(result).text,
          /full output: \(unavailable: EROFS: read-only file system\)\]/,
        );
      });
    },
  );
});

describe("a host under a file size limit (ulimit -f)", () => {
  it("keeps a spill up to the limit, says so, and lives (a write past it kills a Deno host)", {
    skip: !("Deno" in globalThis) &&
      "Deno only: Node ignores SIGXFSZ, and its write fails with EFBIG",
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "fsize-"));
    try {
      // The limit is set once the library is loaded, on this host alone: its
      // own caches (DENO_DIR, here fresh and small) were written by then.
      const limit = 8 * 1024 * 1024;
      const script = join(dir, "spill.ts");
      const library = new URL("../../local/mod.ts", import.meta.url).href;
      writeFileSync(
        script,
        `import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { LocalBashExecutor } from ${JSON.stringify(library)};
execFileSync("prlimit", ["--pid", String(Deno.pid), "--fsize=${limit}:unlimited"]);
await using executor = new LocalBashExecutor({ maxOutputBytes: 1000 });
const result = await executor.run(
  executor.resolve({ command: "head -c 10000000 /dev/zero | tr '\\\\0' a; echo done" }),
);
const { spillPath, spillComplete, spillError, totalBytes } = result.stdout;
const kept = spillPath === undefined ? null : statSync(spillPath).size;
console.log(JSON.stringify({ exitCode: result.exitCode, totalBytes, spillComplete, spillError, kept }));
`,
      );
      const child = spawn(process.execPath, ["run", "--allow-all", "--no-check", script], {
        cwd: dir,
        env: { ...process.env, DENO_DIR: join(dir, "deno") },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const [code, signal] = await new Promise<[number | null, string | null]>((done) =>
        child.on("close", (code, signal) => done([code, signal]))
      );
      assert.deepEqual([code, signal], [0, null]);
      assert.deepEqual(JSON.parse(stdout), {
        exitCode: 0,
        totalBytes: 10_000_005,
        spillComplete: false,
        spillError: `EFBIG: this process's file size limit (ulimit -f) of ${limit} bytes reached`,
        kept: limit,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
