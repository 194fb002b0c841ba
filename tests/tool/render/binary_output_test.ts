import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { LocalBashExecutor } from "../../../local/mod.ts";
import { taskOwner, TaskRegistry } from "../../../tasks/mod.ts";
import { type BashTools, createBashTools } from "../../../tool/mod.ts";

/** A real 1x1 PNG, 70 bytes. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";

async function withTools(fn: (tools: BashTools) => Promise<void>): Promise<void> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-binary-")));
  const executor = new LocalBashExecutor({ cwd: dir });
  const tasks = new TaskRegistry();
  try {
    await fn(createBashTools({ executor, tasks, owner: taskOwner("alice"), workdir: dir }));
  } finally {
    await tasks[Symbol.asyncDispose]();
    await executor[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The path a `[binary output: ...; saved to <path>]` line names, after checking the line. */
function savedPath(text: string, line: RegExp): string {
  const match = line.exec(text);
  assert.ok(match?.[1], text);
  return match[1];
}

describe("binary output in the bash tool", () => {
  it("shows a PNG as one line and saves its bytes, however small", async () => {
    await withTools(async ({ bash }) => {
      const result = await bash.execute({
        command: `echo ${PNG_BASE64} | base64 -d`,
        description: "Print a PNG",
      });
      const path = savedPath(
        result.text,
        /^\[binary output: 70 bytes \(looks like image\/png\); saved to (\/\S+)\]\n\[exit code: 0\]$/,
      );
      assert.ok(readFileSync(path).equals(Buffer.from(PNG_BASE64, "base64")));
      assert.doesNotMatch(result.text, /\uFFFD/);
    });
  });

  it("shows gzip data on stderr as one line and keeps the text on stdout", async () => {
    await withTools(async ({ bash }) => {
      const result = await bash.execute({
        command: "echo before; seq 1 5000 | gzip >&2; echo after",
        description: "Compress to stderr",
      });
      assert.match(result.text, /^before\nafter\n\[binary output on stderr: \d+ KB \(looks like /);
      const path = savedPath(
        result.text,
        /application\/gzip\); saved to (\/\S+)\]\n\[exit code: 0\]$/,
      );
      const lines = gunzipSync(readFileSync(path)).toString().split("\n");
      assert.equal(lines[4999], "5000");
    });
  });

  it("decodes UTF-16 with a byte-order mark as text", async () => {
    await withTools(async ({ bash }) => {
      const result = await bash.execute({
        command: String.raw`printf '\xff\xfeh\x00\xe9\x00l\x00l\x00o\x00\n\x00'`,
        description: "Print UTF-16",
      });
      assert.deepEqual(result, { text: "héllo\n[exit code: 0]", isError: false });
    });
  });

  it("names binary output in task_output reads of a background task", async () => {
    await withTools(async ({ bash, taskOutput }) => {
      await bash.execute({
        command: `echo ${PNG_BASE64} | base64 -d`,
        description: "Print a PNG in the background",
        run_in_background: true,
      });
      const read = await taskOutput.execute({ task_id: "bash-1", wait: true });
      const path = savedPath(
        read.text,
        /^\[binary output: 70 bytes \(looks like image\/png\); saved to (\/\S+)\]\n\[status: completed, exit code: 0\]$/,
      );
      assert.ok(readFileSync(path).equals(Buffer.from(PNG_BASE64, "base64")));
    });
  });
});
