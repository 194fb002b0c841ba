import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { CollectedOutput } from "../seam/mod.ts";
import { type CaseDefinition, SUITE_EXECUTOR_OPTIONS } from "./_harness.ts";

const { maxOutputBytes, headBytes } = SUITE_EXECUTOR_OPTIONS;

/** The text `seq 1 n` prints. */
export function seqText(n: number): string {
  let text = "";
  for (let i = 1; i <= n; i++) text += `${i}\n`;
  return text;
}

/** Hex sha256 of bytes or text, so a failure does not print megabytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Asserts that `out` holds ASCII `expected` truncated to a memory budget of
 * `budget` bytes: the first `head` bytes, one marker line that names the
 * omitted byte count, and the last `budget - head` bytes; and that its spill
 * file holds all of `expected`, byte for byte.
 */
export function assertHeadTailSpill(
  out: CollectedOutput,
  expected: string,
  budget: number,
  head: number,
): void {
  const total = Buffer.byteLength(expected);
  assert.equal(out.totalBytes, total);
  assert.equal(out.truncated, true);
  assert.equal(out.omittedBytes, total - budget);
  const first = expected.slice(0, head);
  const last = expected.slice(total - (budget - head));
  assert.ok(out.text.startsWith(first), "the text starts with the head");
  assert.ok(out.text.endsWith(last), "the text ends with the tail");
  const marker = out.text.slice(first.length, out.text.length - last.length);
  assert.match(marker, /^\n?[^\n]*\n$/, "one marker line joins head and tail");
  assert.ok(marker.includes(String(out.omittedBytes)), `the marker ${marker} names the count`);
  assert.ok(out.spillPath !== undefined, "a spill file is named");
  assert.equal(out.spillComplete, true);
  assert.equal(sha256(readFileSync(out.spillPath)), sha256(expected), "the spill file's bytes");
}

/** Bounded output in memory, the spill file, and bytes that are not UTF-8. */
export const outputCases: readonly CaseDefinition[] = [
  {
    name: "keeps head and tail in memory and the whole stream in a spill file, byte for byte",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, { command: "seq 1 30000; seq 1 20000 >&2" });
      assertHeadTailSpill(result.stdout, seqText(30_000), maxOutputBytes, headBytes);
      assertHeadTailSpill(result.stderr, seqText(20_000), maxOutputBytes, headBytes);
      assert.notEqual(result.stdout.spillPath, result.stderr.spillPath);
    },
  },
  {
    name: "truncates only past the budget",
    async body(h) {
      const executor = await h.executor();
      const exact = await h.run(executor, {
        command: `head -c ${maxOutputBytes} /dev/zero | tr '\\0' x`,
      });
      assert.equal(exact.stdout.truncated, false);
      assert.equal(exact.stdout.text, "x".repeat(maxOutputBytes));
      assert.equal(exact.stdout.omittedBytes, 0);
      assert.equal(exact.stdout.spillPath, undefined);
      const over = await h.run(executor, {
        command: `head -c ${maxOutputBytes + 1} /dev/zero | tr '\\0' x`,
      });
      assert.equal(over.stdout.truncated, true);
      assert.equal(over.stdout.omittedBytes, 1);
      assert.equal(over.stdout.totalBytes, maxOutputBytes + 1);
    },
  },
  {
    name: "stops the spill file at maxSpillBytes and says it is incomplete",
    async body(h) {
      const executor = await h.executor({ maxSpillBytes: 100_000 });
      const result = await h.run(executor, { command: "seq 1 40000" });
      const { spillPath, spillComplete, totalBytes } = result.stdout;
      assert.ok(spillPath !== undefined);
      assert.equal(spillComplete, false);
      assert.equal(totalBytes, Buffer.byteLength(seqText(40_000)));
      assert.equal(readFileSync(spillPath, "latin1"), seqText(40_000).slice(0, 100_000));
    },
  },
  {
    name: "gives stdout the budget a call asks for, and stderr the executor's",
    async body(h) {
      const executor = await h.executor();
      const raised = await h.run(executor, {
        command: "seq 1 3000; seq 1 3000 >&2",
        stdoutMaxBytes: 10_000,
      });
      assertHeadTailSpill(raised.stdout, seqText(3000), 10_000, headBytes);
      assertHeadTailSpill(raised.stderr, seqText(3000), maxOutputBytes, headBytes);
      const lowered = await h.run(executor, { command: "seq 1 3000", stdoutMaxBytes: 100 });
      assert.equal(lowered.stdout.omittedBytes, lowered.stdout.totalBytes - 100);
    },
  },
  {
    name: "replaces bytes that are not UTF-8, counts them, and spills them raw",
    async body(h) {
      const executor = await h.executor();
      const small = await h.run(executor, {
        command: "printf 'a\\377b\\303'; printf '\\376x' >&2",
      });
      assert.equal(small.stdout.text, "a\uFFFDb\uFFFD");
      assert.equal(small.stdout.invalidUtf8Bytes, 2);
      assert.equal(small.stdout.totalBytes, 4);
      assert.equal(small.stderr.text, "\uFFFDx");
      assert.equal(small.stderr.invalidUtf8Bytes, 1);
      const size = maxOutputBytes + 2000;
      const big = await h.run(executor, {
        command: `head -c ${size} /dev/zero | tr '\\0' '\\376'`,
      });
      assert.ok(big.stdout.spillPath !== undefined);
      assert.deepEqual(readFileSync(big.stdout.spillPath), Buffer.alloc(size, 0xfe));
      // Only the bytes kept in the text were replaced in it.
      assert.equal(big.stdout.invalidUtf8Bytes, maxOutputBytes);
    },
  },
  {
    name: "keeps a character written in two parts whole, and counts bytes, not characters",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, {
        command: "printf 'a\\360\\237'; sleep 0.2; printf '\\230\\200b\\303\\251'",
      });
      assert.equal(result.stdout.text, "a\u{1F600}b\u00e9");
      assert.equal(result.stdout.invalidUtf8Bytes, 0);
      assert.equal(result.stdout.totalBytes, 8);
    },
  },
];
