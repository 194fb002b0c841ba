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
 * Output a background reader can no longer get: `omittedBytes` bytes of
 * `stream` from byte `offset` on were neither in memory nor in the spill
 * file when the reader got there, for `reason` (the spill file stopped at
 * `maxSpillBytes`, a write fault, a removed file, no spill file). The reader
 * goes on after them.
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
 * assert.equal(gap.offset + gap.omittedBytes, 1_052_672);
 * ```
 */
export interface BashOutputGap {
  /** The stream. */
  stream: BashOutputStream;
  /** How many bytes are lost. */
  omittedBytes: number;
  /** The stream offset of the first lost byte. */
  offset: number;
  /** Why they are lost. */
  reason: string;
}

/**
 * What a background process's `output()` iterator yields: text, or a gap
 * that says exactly what was lost and why.
 *
 * @example
 * ```ts
 * import type { BashOutputEvent } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * function show(event: BashOutputEvent): string {
 *   return "text" in event ? event.text : `[${event.omittedBytes} bytes lost: ${event.reason}]`;
 * }
 * assert.equal(show({ stream: "stdout", text: "hi" }), "hi");
 * ```
 */
export type BashOutputEvent = BashOutputChunk | BashOutputGap;
