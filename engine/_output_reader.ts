import { open } from "node:fs/promises";
import type { BashOutputEvent, BashOutputStream } from "../seam/mod.ts";
import type { OutputCollector } from "./_output.ts";
import { faultReason } from "./_spill.ts";
import {
  cutCharacterBytes,
  decodeText,
  markBytes,
  type StreamEncoding,
  wholePrefixLength,
} from "./_stream_text.ts";

/** The most bytes one step reads. */
const STEP_BYTES = 256 * 1024;

type SpillHandle = Awaited<ReturnType<typeof open>>;

/**
 * Reads one stream from byte 0 to its end, losslessly where the executor
 * kept the bytes: from memory, or from the spill file once the reader fell
 * behind the memory window. Bytes neither holds are reported as one gap
 * (with the bytes of a character the gap cut), never skipped silently, and
 * a stream the executor stopped reading before its end ends with a gap of
 * unknown size that says why.
 * Reading never holds the command up: the collector keeps draining as ever.
 * The stream is decoded as its collector decodes it (UTF-16 after a
 * byte-order mark, else UTF-8); nothing is read until its first bytes tell.
 */
export class StreamReader {
  readonly #stream: BashOutputStream;
  readonly #collector: OutputCollector;
  #offset = 0;
  /** Bytes of a character cut by the end of a step, waiting for the rest. */
  #pending: Uint8Array = new Uint8Array(0);
  #spill: { path: string; handle: SpillHandle } | null = null;
  /** A gap not reported yet: where it starts and why. */
  #gap: { offset: number; bytes: number; reason: string } | null = null;
  /** True after a gap, until the continuation bytes it cut were skipped. */
  #afterGap = false;
  /** True once the cut at the end of the stream was reported. */
  #cutReported = false;

  constructor(stream: BashOutputStream, collector: OutputCollector) {
    this.#stream = stream;
    this.#collector = collector;
  }

  /**
   * True when every byte was read, the stream will not grow, and nothing is
   * left to report (a gap at the very end, or a character cut by the end).
   */
  get atEnd(): boolean {
    return this.#drained && this.#gap === null && this.#pending.length === 0 &&
      (this.#collector.cut === null || this.#cutReported);
  }

  /** True when every byte was read and the stream will not grow. */
  get #drained(): boolean {
    return this.#collector.finished && this.#offset >= this.#collector.totalBytes;
  }

  /** Resolves when there may be more to read. */
  changed(): Promise<void> {
    return this.#collector.changed();
  }

  /** The next events (none when nothing new has arrived). */
  async step(): Promise<BashOutputEvent[]> {
    const encoding = this.#collector.encoding;
    if (encoding === undefined) return [];
    const location = this.#collector.locate(this.#offset, STEP_BYTES);
    if (location.kind === "end") return this.#drained ? this.#flush() : [];
    if (location.kind === "lost") {
      this.#lose(location.end - this.#offset, location.reason);
      return [];
    }
    let bytes: Uint8Array;
    if (location.kind === "memory") {
      bytes = location.bytes;
    } else {
      const read = await this.#readSpill(location.path, location.end, location.removal);
      if (typeof read === "string") {
        this.#lose(location.end - this.#offset, read);
        return [];
      }
      bytes = read;
    }
    this.#offset += bytes.length;
    return this.#text(bytes, encoding);
  }

  /** Closes the spill file, if one was opened. */
  async close(): Promise<void> {
    const spill = this.#spill;
    this.#spill = null;
    await spill?.handle.close().catch(() => {});
  }

  #lose(bytes: number, reason: string): void {
    if (this.#gap === null) {
      // The bytes of a character the gap cuts go with it.
      const cut = this.#pending.length;
      this.#pending = new Uint8Array(0);
      this.#gap = { offset: this.#offset - cut, bytes: cut, reason };
    }
    this.#gap.bytes += bytes;
    this.#offset += bytes;
    this.#afterGap = true;
  }

  #text(bytes: Uint8Array, encoding: StreamEncoding): BashOutputEvent[] {
    const offset = this.#offset - bytes.length;
    // The byte-order mark is no text.
    let rest = offset === 0 ? bytes.subarray(markBytes(encoding)) : bytes;
    if (this.#afterGap) {
      // The rest of a character the gap cut goes with it.
      const skip = cutCharacterBytes(rest, encoding, offset);
      if (this.#gap !== null) this.#gap.bytes += skip;
      rest = rest.subarray(skip);
      this.#afterGap = false;
    }
    const events = this.#takeGap();
    const joined = new Uint8Array(this.#pending.length + rest.length);
    joined.set(this.#pending);
    joined.set(rest, this.#pending.length);
    const whole = wholePrefixLength(joined, encoding);
    this.#pending = joined.slice(whole);
    if (whole > 0) {
      events.push({ stream: this.#stream, text: decodeText(joined.subarray(0, whole), encoding) });
    }
    return events;
  }

  /** The gap not reported yet, as an event. */
  #takeGap(): BashOutputEvent[] {
    const gap = this.#gap;
    if (gap === null) return [];
    this.#gap = null;
    return [{
      stream: this.#stream,
      omittedBytes: gap.bytes,
      offset: gap.offset,
      reason: gap.reason,
    }];
  }

  /**
   * The events at the end of the stream: a gap not reported yet, a character
   * the end cut, and, when the executor stopped reading the stream before
   * its end, a gap of unknown size that says why (its last event).
   */
  #flush(): BashOutputEvent[] {
    const events = this.#takeGap();
    if (this.#pending.length > 0) {
      events.push({
        stream: this.#stream,
        text: decodeText(this.#pending, this.#collector.encoding ?? "utf-8"),
      });
      this.#pending = new Uint8Array(0);
    }
    const cut = this.#cutReported ? null : this.#collector.cut;
    if (cut !== null) {
      this.#cutReported = true;
      events.push({ stream: this.#stream, omittedBytes: null, offset: this.#offset, reason: cut });
    }
    return events;
  }

  /**
   * Bytes of the spill file from the offset (up to `end`), or why they cannot
   * be read (`removal`: why the executor removed the file, if it did).
   */
  async #readSpill(
    path: string,
    end: number,
    removal: string | null,
  ): Promise<Uint8Array | string> {
    try {
      if (this.#spill?.path !== path) {
        await this.close();
        this.#spill = { path, handle: await open(path, "r") };
      }
      const buffer = new Uint8Array(Math.min(STEP_BYTES, end - this.#offset));
      const { bytesRead } = await this.#spill.handle.read(buffer, 0, buffer.length, this.#offset);
      if (bytesRead === 0) return "the spill file holds less than was written to it";
      return buffer.subarray(0, bytesRead);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== "ENOENT") return `the spill file could not be read (${faultReason(error)})`;
      const why = removal === null ? "" : ` (${removal})`;
      return `the spill file was removed before the reader got there${why}`;
    }
  }
}
