// The runtime contract, asserted against whichever runtime runtime/
// selects: deno.ts under `deno test`, node.ts under `node --test` (the Node leg).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  fileState,
  pathState,
  runtime,
  type SpawnedChild,
  type SpawnRequest,
} from "../../runtime/mod.ts";
import { assertNoneLeft, marker, waitForSleep } from "../local/_helpers.ts";

const BASH = "/usr/bin/bash";
const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

function request(script: string, options: Partial<SpawnRequest> = {}): SpawnRequest {
  return {
    program: BASH,
    // Under Node a piped stdin is a socket, and bash -c without --norc then
    // sources ~/.bashrc (it takes a socket for rshd).
    args: ["--norc", "-c", script],
    cwd: tmpdir(),
    env: ENV,
    stdin: "null",
    session: "detached",
    ...options,
  };
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

async function outputs(child: SpawnedChild): Promise<[string, string]> {
  return await Promise.all([text(child.stdout), text(child.stderr)]);
}

/** pgrp and session of `pid`, from /proc/<pid>/stat. */
function groupAndSession(stat: string): [number, number] {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [Number(fields[2]), Number(fields[3])];
}

/** A temporary folder holding a folder `sub`, an empty `file` and `link` to `sub`; removed at disposal. */
function folderFileLink(): { dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-rt-"));
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "file"), "");
  symlinkSync(join(dir, "sub"), join(dir, "link"));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true }) };
}

describe("runtime", () => {
  it("lists a directory without following the symlinks in it", () => {
    using tree = folderFileLink();
    const { dir } = tree;
    const entries = runtime.readDirectory(dir).sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(entries, [
      { name: "file", isDirectory: false },
      { name: "link", isDirectory: false },
      { name: "sub", isDirectory: true },
    ]);
    assert.throws(() => runtime.readDirectory(join(dir, "file")));
  });

  it("tells what is at a path without following a symlink, the same under Deno and Node", () => {
    using tree = folderFileLink();
    const { dir } = tree;
    const kinds = ["sub", "file", "link"].map((name) => pathState(join(dir, name))?.kind);
    assert.deepEqual(kinds, ["directory", "file", "symlink"]);
    const sub = lstatSync(join(dir, "sub"));
    assert.deepEqual(pathState(join(dir, "sub")), {
      kind: "directory",
      dev: sub.dev,
      ino: sub.ino,
      mtimeMs: sub.mtimeMs,
      ctimeMs: sub.ctimeMs,
    });
    assert.equal(pathState(join(dir, "gone")), undefined);
    assert.equal(pathState(join(dir, "file", "below")), undefined, "a file on the way");
  });

  it("tells a regular file's state without following a symlink, the same under Deno and Node", () => {
    using tree = folderFileLink();
    const { dir } = tree;
    writeFileSync(join(dir, "file"), "gitdir: x\n");
    const file = lstatSync(join(dir, "file"));
    assert.deepEqual(fileState(join(dir, "file")), {
      dev: file.dev,
      ino: file.ino,
      mtimeMs: file.mtimeMs,
      ctimeMs: file.ctimeMs,
      size: file.size,
      nlink: 1,
    });
    for (const name of ["sub", "link", "gone", "file/below"]) {
      assert.equal(fileState(join(dir, name)), undefined, name);
    }
  });

  it("is the runtime this process runs on", () => {
    assert.equal(runtime.name, "Deno" in globalThis ? "deno" : "node");
  });

  it("never loads node:child_process under Deno, in any subpath or a run", {
    skip: "Deno" in globalThis ? false : "Deno-only: the Node leg runs without Deno throughout",
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-rt-"));
    try {
      writeFileSync(join(dir, "trap.js"), 'throw new Error("node:child_process was loaded");\n');
      writeFileSync(
        join(dir, "map.json"),
        JSON.stringify({ imports: { "node:child_process": "./trap.js" } }),
      );
      const root = new URL("../../", import.meta.url);
      const { exports } = JSON.parse(readFileSync(new URL("deno.json", root), "utf8")) as {
        exports: Record<string, string>;
      };
      const url = (path: string) => JSON.stringify(new URL(path, root).href);
      writeFileSync(
        join(dir, "main.ts"),
        Object.values(exports).map((path) => `import ${url(path)};\n`).join("") +
          `import { LocalBashExecutor } from ${url("local/mod.ts")};
await using executor = new LocalBashExecutor();
console.log((await executor.run(executor.resolve({ command: "echo hi" }))).stdout.text);
`,
      );
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries(process.env)) if (value) env[name] = value;
      const child = await runtime.spawn(request("", {
        program: process.execPath,
        args: [
          "run",
          "--allow-all",
          "--no-config",
          "--no-lock",
          "--import-map=map.json",
          "main.ts",
        ],
        cwd: dir,
        env,
      }));
      const [out, err] = await outputs(child);
      assert.deepEqual(await child.exited, { code: 0, signal: null }, err);
      assert.equal(out, "hi\n\n");
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("hands over stdout, stderr and the exit code", async () => {
    const child = await runtime.spawn(request("printf out; printf err >&2; exit 3"));
    assert.deepEqual(await outputs(child), ["out", "err"]);
    assert.deepEqual(await child.exited, { code: 3, signal: null });
    assert.equal(child.stdin, null);
  });

  it("keeps the output of many concurrent children apart", async () => {
    // More children than one batch of named pipes under Node (see _fifo.ts).
    const results = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const child = await runtime.spawn(request(`echo out${i}; echo err${i} >&2`));
        const [out, err] = await outputs(child);
        assert.deepEqual(await child.exited, { code: 0, signal: null });
        return `${out}${err}`;
      }),
    );
    assert.deepEqual(results, Array.from({ length: 80 }, (_, i) => `out${i}\nerr${i}\n`));
  });

  it("passes exactly the given environment and working directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-rt-"));
    try {
      const child = await runtime.spawn(
        request('echo "$PWD|$ONLY|${HOME-unset}"', { cwd: dir, env: { ...ENV, ONLY: "x y" } }),
      );
      assert.deepEqual(await outputs(child), [`${dir}|x y|unset\n`, ""]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("gives stdin /dev/null unless piped", async () => {
    const child = await runtime.spawn(request("readlink /proc/self/fd/0; cat"));
    assert.deepEqual(await outputs(child), ["/dev/null\n", ""]);
  });

  it("writes a piped stdin and closes it", async () => {
    const child = await runtime.spawn(request("cat; echo done", { stdin: "piped" }));
    assert.ok(child.stdin);
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("line 1\n"));
    await writer.close();
    assert.deepEqual(await outputs(child), ["line 1\ndone\n", ""]);
  });

  it("gives the child real pipes for output, so /dev/stdout and /dev/stderr open", async () => {
    const child = await runtime.spawn(
      request(
        "[ -p /dev/stdout ] && [ -p /dev/stderr ] && echo out > /dev/stdout; echo err > /dev/stderr",
      ),
    );
    assert.deepEqual(await outputs(child), ["out\n", "err\n"]);
  });

  it("rejects a program that does not exist", async () => {
    await assert.rejects(runtime.spawn(request("", { program: "/nonexistent/shellseam-rt" })));
  });

  for (const session of ["detached", "setsid-binary"] as const) {
    it(`starts a new session and process group (${session})`, async () => {
      const [program, args] = session === "detached"
        ? [BASH, ["-c", "cat /proc/$$/stat"]]
        : ["/usr/bin/setsid", [BASH, "-c", "cat /proc/$$/stat"]];
      const child = await runtime.spawn(request("", { program, args, session }));
      const [stat] = await outputs(child);
      assert.deepEqual(groupAndSession(stat), [child.pid, child.pid]);
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    });
  }

  it("kills a process group, and reports a group that is gone", async () => {
    const token = marker();
    const child = await runtime.spawn(request(`sleep ${token} & sleep ${token} & wait`));
    try {
      await waitForSleep(token, 2);
      assert.equal(runtime.kill(-child.pid, 0), true);
      assert.equal(runtime.kill(-child.pid, "SIGTERM"), true);
      assert.deepEqual(await child.exited, { code: null, signal: "SIGTERM" });
      await outputs(child);
      await assertNoneLeft(token);
      // The orphaned sleeps linger as zombies until init reaps them.
      await waitFor(() => !runtime.kill(-child.pid, 0));
      assert.equal(runtime.kill(-child.pid, "SIGKILL"), false);
    } finally {
      runtime.kill(-child.pid, "SIGKILL");
    }
  });

  it("says it may run a program this process may run", () => {
    // A refusal is the scoped --allow-run's, in tests/remote/permissions_test.ts.
    assert.equal(runtime.mayRun?.(BASH), true);
  });

  it("reports the signal that ended the child", async () => {
    const child = await runtime.spawn(request("kill -KILL $$"));
    assert.deepEqual(await child.exited, { code: null, signal: "SIGKILL" });
    await outputs(child);
  });

  it("resolves exited while a grandchild still holds the pipes", async () => {
    const token = marker();
    const child = await runtime.spawn(request(`sleep ${token} & echo started`));
    try {
      assert.deepEqual(await child.exited, { code: 0, signal: null });
      const reader = child.stdout.getReader();
      assert.equal(new TextDecoder().decode((await reader.read()).value), "started\n");
      const ended = reader.read();
      const first = await Promise.race([ended, delay(200).then(() => "open")]);
      assert.equal(first, "open");
      assert.equal(runtime.kill(-child.pid, "SIGKILL"), true);
      assert.equal((await ended).done, true);
      await text(child.stderr);
      await assertNoneLeft(token);
    } finally {
      runtime.kill(-child.pid, "SIGKILL");
    }
  });

  it("delivers large output completely and holds the writer back while unread", async () => {
    const size = 8 * 1024 * 1024;
    const child = await runtime.spawn(request(`head -c ${size} /dev/zero`));
    const early = await Promise.race([child.exited, delay(300).then(() => "running")]);
    assert.equal(early, "running");
    let total = 0;
    for await (const chunk of child.stdout) total += chunk.byteLength;
    assert.equal(total, size);
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    await text(child.stderr);
  });

  it("closes the pipe when the reader cancels, so the writer gets SIGPIPE", async () => {
    const child = await runtime.spawn(request("exec yes"));
    const reader = child.stdout.getReader();
    await reader.read();
    await reader.cancel();
    assert.deepEqual(await child.exited, { code: null, signal: "SIGPIPE" });
    await text(child.stderr);
  });

  it("rejects a write to a child that stopped reading, without crashing", async () => {
    const child = await runtime.spawn(request("exec 0<&-; sleep 0.1", { stdin: "piped" }));
    assert.ok(child.stdin);
    const writer = child.stdin.getWriter();
    await child.exited;
    const chunk = new Uint8Array(1024 * 1024);
    await assert.rejects(async () => {
      await writer.write(chunk);
      await writer.write(chunk);
    });
    await outputs(child);
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await delay(20);
  }
}
