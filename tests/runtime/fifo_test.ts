// Node-only: the named pipes node.ts gives children for their output
// (runtime/_fifo.ts). Deno's own pipes are real pipes already.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { runtime } from "../../runtime/mod.ts";

const skip = "Deno" in globalThis ? "Node-only: named pipes stand in for Node's sockets" : false;

// The runtime module as this test file sees it: .ts from sources, .js once compiled.
const RUNTIME_URL = new URL(
  `../../runtime/mod${import.meta.url.slice(import.meta.url.lastIndexOf("."))}`,
  import.meta.url,
).href;

// Spawns past a batch of named pipes (128, two a spawn), so that the next batch is made.
const BATCH_SPAWNS = 70;

// A Node process that spawns one bash through the runtime and prints what
// bash's stdout and stderr are, then exits.
const PROBE = `
const { runtime } = await import(process.argv[1]);
const child = await runtime.spawn({
  program: "/usr/bin/bash",
  args: ["--norc", "-c", "for fd in 1 2; do [ -p /dev/fd/$fd ] && echo pipe || echo other; done"],
  cwd: "/",
  env: {},
  stdin: "null",
  session: "detached",
});
const [out] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
await child.exited;
console.log(out.trim().replace("\\n", " "));
if (process.argv[2] === "die") process.kill(process.pid, "SIGKILL");
`;

async function probe(env: Record<string, string>, die = false): Promise<string> {
  const child = await runtime.spawn({
    program: process.execPath,
    args: ["--input-type=module", "-e", PROBE, RUNTIME_URL, ...(die ? ["die"] : [])],
    cwd: "/",
    env,
    stdin: "null",
    session: "detached",
  });
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  const status = die ? { code: null, signal: "SIGKILL" } : { code: 0, signal: null };
  assert.deepEqual(await child.exited, status, err);
  return out.trim();
}

describe("node runtime output pipes", () => {
  it("are named pipes, whose directory is gone once the process exits", { skip }, async () => {
    const tmp = mkdtempSync(join(tmpdir(), "shellseam-fifo-test-"));
    try {
      assert.equal(await probe({ PATH: process.env["PATH"] ?? "", TMPDIR: tmp }), "pipe pipe");
      assert.deepEqual(readdirSync(tmp), []);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("are cleaned up by the next process when a process was killed", { skip }, async () => {
    const tmp = mkdtempSync(join(tmpdir(), "shellseam-fifo-test-"));
    try {
      const env = { PATH: process.env["PATH"] ?? "", TMPDIR: tmp };
      assert.equal(await probe(env, true), "pipe pipe");
      assert.equal(readdirSync(tmp).length, 1);
      assert.equal(await probe(env), "pipe pipe");
      assert.deepEqual(readdirSync(tmp), []);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("are made by the mkfifo found at the first batch, never one planted on PATH since", {
    skip,
  }, async () => {
    // A folder first on PATH once the first batch was made (a workspace's node_modules/.bin
    // that a confined command wrote), holding an mkfifo that touches the canary; then enough
    // spawns for the next batch.
    const base = mkdtempSync(join(tmpdir(), "shellseam-fifo-test-"));
    try {
      const bin = join(base, "bin");
      mkdirSync(bin);
      const canary = join(base, "canary");
      writeFileSync(join(bin, "mkfifo"), `#!/bin/sh\ntouch ${canary}\n`, { mode: 0o755 });
      const script = `
const { runtime } = await import(process.argv[1]);
const run = async () => {
  const child = await runtime.spawn({
    program: "/bin/sh", args: ["-c", "exit 0"], cwd: "/", env: {}, stdin: "null",
    session: "detached",
  });
  await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
};
await run();
process.env.PATH = process.argv[2] + ":" + process.env.PATH;
for (let i = 0; i < ${BATCH_SPAWNS}; i++) await run();
console.log("ran");
`;
      const child = await runtime.spawn({
        program: process.execPath,
        args: ["--input-type=module", "-e", script, RUNTIME_URL, bin],
        cwd: "/",
        env: { PATH: process.env["PATH"] ?? "" },
        stdin: "null",
        session: "detached",
      });
      const [out, err] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]);
      assert.deepEqual(await child.exited, { code: 0, signal: null }, err);
      assert.equal(out.trim(), "ran");
      assert.equal(existsSync(canary), false, "the planted mkfifo ran");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("fall back to Node's sockets where mkfifo cannot run", { skip }, async () => {
    assert.equal(await probe({ PATH: "/nonexistent" }), "other other");
  });
});
