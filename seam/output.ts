/**
 * Which output stream a piece of output came from.
 *
 * @example
 * ```ts
 * import type { BashOutputStream } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const stream: BashOutputStream = "stderr";
 * assert.notEqual(stream, "stdout");
 * ```
 */
export type BashOutputStream = "stdout" | "stderr";

/**
 * Output as it arrives: decoded text of one stream (a character cut between
 * two reads of the pipe waits for the rest; bytes that are not UTF-8 become
 * U+FFFD). The chunks of one stream, joined, are its whole decoded text.
 *
 * @example
 * ```ts
 * import type { BashOutputChunk } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const chunks: BashOutputChunk[] = [
 *   { stream: "stdout", text: "hel" },
 *   { stream: "stderr", text: "oops\n" },
 *   { stream: "stdout", text: "lo\n" },
 * ];
 * const stdout = chunks.filter((chunk) => chunk.stream === "stdout").map((chunk) => chunk.text);
 * assert.equal(stdout.join(""), "hello\n");
 * ```
 */
export interface BashOutputChunk {
  /** The stream. */
  stream: BashOutputStream;
  /** Decoded text, never empty. */
  text: string;
}

/**
 * What a foreground run's `onOutput` callback gets: each piece of a stream
 * as the command wrote it (`bytes`) and as text (`text`, decoded as
 * {@linkcode BashOutputChunk} says). The `bytes` of one stream, joined, are
 * the stream byte for byte (binary output included: nothing is replaced);
 * the `text`, joined, its whole decoded text. A character cut at the end of
 * a piece comes whole in the text of the next, so `text` may be empty while
 * `bytes` is not; the last call of a stream may bring only the text held
 * back (empty `bytes`). They are never both empty. The executor took what
 * it keeps from `bytes` before the call and does not touch them after (no
 * copy is made for the callback): keep them or change them as you like.
 *
 * @example Copy a command's stdout exactly, and show its text
 * ```ts
 * import type { BashLiveOutputChunk } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * // "é" cut between two reads, then a byte that is not UTF-8.
 * const chunks: BashLiveOutputChunk[] = [
 *   { stream: "stdout", bytes: new Uint8Array([0x61, 0xc3]), text: "a" },
 *   { stream: "stdout", bytes: new Uint8Array([0xa9, 0xff]), text: "\u00e9\ufffd" },
 * ];
 * const bytes = chunks.flatMap((chunk) => [...chunk.bytes]);
 * assert.deepEqual(bytes, [0x61, 0xc3, 0xa9, 0xff]);
 * assert.equal(chunks.map((chunk) => chunk.text).join(""), "a\u00e9\ufffd");
 * ```
 */
export interface BashLiveOutputChunk {
  /** The stream. */
  stream: BashOutputStream;
  /** The bytes read from the stream since the last call, exactly as the command wrote them. */
  bytes: Uint8Array;
  /** The text those bytes complete (with what earlier ones left unfinished); may be empty. */
  text: string;
}

/**
 * Output a background reader can no longer get: `omittedBytes` bytes of
 * `stream` from byte `offset` on were neither in memory nor in the spill
 * file when the reader got there, for `reason` (the spill file stopped at
 * `maxSpillBytes`, a write fault, a removed file, no spill file). The reader
 * goes on after them.
 *
 * `omittedBytes` is null when how many bytes are lost cannot be known: the
 * executor stopped reading the stream before its end (a process it could
 * not stop held the pipe; see `CollectedOutput.cut`, whose reason `reason`
 * is). Such a gap starts at the stream's last byte read (`offset` is its
 * `totalBytes`) and is the stream's last event.
 *
 * @example
 * ```ts
 * import type { BashOutputGap } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const gap: BashOutputGap = {
 *   stream: "stdout",
 *   omittedBytes: 4096,
 *   offset: 1_048_576,
 *   reason: "the spill file stopped at maxSpillBytes (1048576 bytes)",
 * };
 * assert.equal(gap.offset + (gap.omittedBytes ?? 0), 1_052_672);
 * const cut: BashOutputGap = {
 *   stream: "stdout",
 *   omittedBytes: null,
 *   offset: 61_447,
 *   reason: "a process the census cannot see kept the pipe open",
 * };
 * const lost = (gap: BashOutputGap) => gap.omittedBytes === null ? "the rest" : `${gap.omittedBytes} bytes`;
 * assert.equal(lost(cut), "the rest");
 * ```
 */
export interface BashOutputGap {
  /** The stream. */
  stream: BashOutputStream;
  /**
   * How many bytes are lost; null when that cannot be known, because the
   * stream was cut short there (the stream's last event).
   */
  omittedBytes: number | null;
  /** The stream offset of the first lost byte. */
  offset: number;
  /** Why they are lost. */
  reason: string;
}

/**
 * What a background process's `output()` iterator yields: text, or a gap
 * that says what was lost and why (with `omittedBytes: null` as a stream's
 * last event when the executor stopped reading it before its end).
 *
 * @example
 * ```ts
 * import type { BashOutputEvent } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * function show(event: BashOutputEvent): string {
 *   if ("text" in event) return event.text;
 *   const lost = event.omittedBytes === null ? "the rest" : `${event.omittedBytes} bytes`;
 *   return `[${lost} lost: ${event.reason}]`;
 * }
 * assert.equal(show({ stream: "stdout", text: "hi" }), "hi");
 * assert.equal(
 *   show({ stream: "stdout", omittedBytes: null, offset: 5, reason: "cut" }),
 *   "[the rest lost: cut]",
 * );
 * ```
 */
export type BashOutputEvent = BashOutputChunk | BashOutputGap;
