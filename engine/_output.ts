import type { BinaryStream, CollectedOutput } from "../seam/mod.ts";
import { classifyStream, SNIFF_BYTES, type StreamKind } from "./_binary.ts";
import { type StreamEncoding, streamEncoding } from "./_stream_text.ts";
import { faultReason, SpillFile } from "./_spill.ts";
import type { SpillBudget } from "./_spill_budget.ts";
import {
  completePrefixLength,
  decodeCounting,
  leadingContinuationBytes,
  omissionMarker,
} from "./_utf8.ts";

/** How much of one stream is kept in memory and on disk. */
export interface OutputBudget {
  /** Bytes kept in memory: the head plus a rolling tail. */
  maxBytes: number;
  /** Bytes of the head (at most `maxBytes`). */
  headBytes: number;
  /** Cap of the spill file. */
  maxSpillBytes: number;
  /** The private directory for spill files (made again if it vanished); throws when it cannot be made. */
  spillDir: () => string;
  /** The executor's disk budget, shared by all its spill files (none: no limit but the cap). */
  spillBudget?: SpillBudget;
}

/** Bytes from a read cursor onwards: `before` and `after` are contiguous unless `dropped` > 0. */
export interface StreamSlice {
  /** Retained head bytes from the cursor. */
  before: Uint8Array | null;
  /** Bytes between the two that are no longer retained. */
  dropped: number;
  /** Retained tail bytes. */
  after: Uint8Array | null;
  /** The stream offset after the slice. */
  end: number;
}

/**
 * Where the bytes at one stream offset are, for a reader that wants them
 * all: in memory (a copy, up to the next gap in memory), in the spill file
 * (up to `end`), or lost up to `end`, and why.
 */
export type StreamLocation =
  | { kind: "memory"; bytes: Uint8Array }
  | { kind: "spill"; path: string; end: number; removal: string | null }
  | { kind: "lost"; end: number; reason: string }
  | { kind: "end" };

/** `parts` one after another, in a new array. */
export function joinedBytes(parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** `first` followed by `second`, copied only when both hold bytes. */
export function joined(first: Uint8Array, second: Uint8Array | null): Uint8Array {
  if (second === null || second.length === 0) return first;
  if (first.length === 0) return second;
  const both = new Uint8Array(first.length + second.length);
  both.set(first);
  both.set(second, first.length);
  return both;
}

const EMPTY = new Uint8Array(0);

/**
 * One output stream: the first `headBytes` bytes, a ring of the last bytes,
 * and a spill file of the whole stream once it overflows memory.
 */
export class OutputCollector {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #budget: OutputBudget;
  #head: Uint8Array | null = null;
  #headLen = 0;
  #ring: Uint8Array | null = null;
  #ringStart = 0;
  #tailLen = 0;
  #total = 0;
  #spill: SpillFile | null = null;
  #spillTried = false;
  /** Why there is no spill file although one was needed. */
  #spillFailure: string | null = null;
  #finished = false;
  #released = false;
  /** Why the stream was not read to its end; null when it was (or is still being read). */
  #cut: string | null = null;
  /** What the first bytes say the stream is; null until {@link SNIFF_BYTES} came or it ended. */
  #kind: StreamKind | null = null;
  #sniff: Uint8Array | null = null;
  #sniffLen = 0;
  /** What readers wait on until the next chunk or the end, and what settles it. */
  #changed: Promise<void> | null = null;
  #wakeReaders: (() => void) | null = null;

  constructor(budget: OutputBudget) {
    this.#budget = budget;
    this.#headLimit = Math.min(budget.headBytes, budget.maxBytes);
    this.#tailLimit = budget.maxBytes - this.#headLimit;
  }

  /** The spill file's path, while it exists. */
  get spillPath(): string | null {
    const spill = this.#spill;
    return spill !== null && spill.exists() ? spill.path : null;
  }

  /** True while the spill file exists and holds every byte of the stream so far. */
  get spillComplete(): boolean {
    return this.#spill !== null && this.#spill.complete && this.#spill.exists();
  }

  /**
   * Why the spill file is missing or holds less than the stream (a write
   * error, a folder that could not be made, a file removed meanwhile); null
   * when nothing went wrong (stopping at `maxSpillBytes` is no error).
   */
  get spillError(): string | null {
    const spill = this.#spill;
    if (spill === null) return this.#spillFailure;
    if (!spill.exists()) return spill.removal ?? "the spill file was removed while the command ran";
    return spill.error;
  }

  /**
   * Takes one chunk. What is kept is copied: a runtime may hand over a 1-byte
   * view of a 64 KiB buffer, and keeping views would keep those buffers.
   */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    if (this.#spill !== null) this.#spill.write(chunk);
    else if (!this.#spillTried && this.#total > this.#budget.maxBytes) this.#startSpill(chunk);

    let rest = chunk;
    if (this.#headLen < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headLen, chunk.length);
      this.#head ??= new Uint8Array(this.#headLimit);
      this.#head.set(take === chunk.length ? chunk : chunk.subarray(0, take), this.#headLen);
      this.#headLen += take;
      rest = chunk.subarray(take);
    }
    if (rest.length > 0) this.#pushTail(rest);
    if (this.#kind === null) this.#sniffChunk(chunk);
    this.#wake();
  }

  /**
   * Set when the stream is not text (see {@linkcode classifyStream}); known
   * once its first 8 KB came or it ended.
   */
  get binary(): BinaryStream | undefined {
    const kind = this.#kind;
    if (kind?.kind !== "binary") return undefined;
    return kind.looksLike === null
      ? { totalBytes: this.#total }
      : { totalBytes: this.#total, looksLike: kind.looksLike };
  }

  #sniffChunk(chunk: Uint8Array): void {
    const take = Math.min(SNIFF_BYTES - this.#sniffLen, chunk.length);
    this.#sniff ??= new Uint8Array(SNIFF_BYTES);
    this.#sniff.set(chunk.subarray(0, take), this.#sniffLen);
    this.#sniffLen += take;
    if (this.#sniffLen === SNIFF_BYTES) this.#classify();
  }

  /**
   * The stream's text encoding, as its first bytes announce it (see
   * `streamEncoding`); undefined while they are too few to tell.
   */
  get encoding(): StreamEncoding | undefined {
    const kind = this.#kind;
    if (kind !== null) return kind.kind === "utf16" ? kind.encoding : "utf-8";
    return streamEncoding(this.#sniff?.subarray(0, this.#sniffLen) ?? EMPTY, this.#finished);
  }

  /** Decides what the stream is; a binary stream goes to a spill file however small it is. */
  #classify(): void {
    this.#kind = classifyStream(this.#sniff?.subarray(0, this.#sniffLen) ?? EMPTY);
    this.#sniff = null;
    if (this.#kind.kind === "binary" && !this.#spillTried) this.#startSpill(EMPTY);
  }

  /** Closes the spill file once the command settled; the collector stays readable. */
  finish(): void {
    if (this.#kind === null) this.#classify();
    this.#spill?.settle();
    this.#finished = true;
    this.#wake();
  }

  /**
   * Records that the stream was not read to its end, and why (see
   * `CollectedOutput.cut`); the first reason stays.
   */
  cutShort(reason: string): void {
    this.#cut ??= reason;
  }

  /** Why the stream was not read to its end, or null. */
  get cut(): string | null {
    return this.#cut;
  }

  /** True once `finish()` was called: no more bytes will come. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Lets go of the buffers and deletes the spill file; the collector is empty afterwards. */
  release(): void {
    this.#released = true;
    this.#spill?.release();
    this.#head = null;
    this.#ring = null;
    this.#headLen = 0;
    this.#tailLen = 0;
    this.#ringStart = 0;
  }

  /** The whole stream as far as memory holds it: head and tail around one marker. */
  collect(): CollectedOutput {
    const spillPath = this.spillPath;
    const spillError = this.spillError;
    const binary = this.binary;
    const facts = {
      ...(spillPath === null ? {} : { spillPath }),
      ...(spillError === null ? {} : { spillError }),
      spillComplete: this.spillComplete,
      ...(binary === undefined ? {} : { binary }),
      ...(this.#cut === null ? {} : { cut: this.#cut }),
    };
    const utf16 = this.#kind?.kind === "utf16" ? this.#kind.encoding : null;
    const decode = utf16 === null
      ? decodeCounting
      : (bytes: Uint8Array) => ({ text: new TextDecoder(utf16).decode(bytes), invalid: 0 });
    const head = this.#headBytes();
    if (this.#headLen + this.#tailLen === this.#total) {
      const { text, invalid } = decode(joined(head, this.#tailFrom(0)));
      return {
        text,
        truncated: false,
        totalBytes: this.#total,
        omittedBytes: 0,
        ...facts,
        invalidUtf8Bytes: invalid,
      };
    }
    // Cut at whole characters: UTF-16 code units start at even stream offsets.
    const headPart = head.subarray(
      0,
      utf16 === null ? completePrefixLength(head) : head.length - head.length % 2,
    );
    let tailPart = this.#tailFrom(0);
    tailPart = tailPart.subarray(
      utf16 === null ? leadingContinuationBytes(tailPart) : (this.#total - this.#tailLen) % 2,
    );
    const first = decode(headPart);
    const last = decode(tailPart);
    const omittedBytes = this.#total - headPart.length - tailPart.length;
    return {
      text: first.text + omissionMarker(first.text, omittedBytes) + last.text,
      truncated: true,
      totalBytes: this.#total,
      omittedBytes,
      ...facts,
      invalidUtf8Bytes: first.invalid + last.invalid,
    };
  }

  /** The retained bytes from stream offset `offset` to the end (views valid until the next push). */
  readFrom(offset: number): StreamSlice {
    let cursor = offset;
    let before: Uint8Array | null = null;
    if (cursor < this.#headLen) {
      before = this.#headBytes().subarray(cursor);
      cursor = this.#headLen;
    }
    const tailStart = this.#total - this.#tailLen;
    const dropped = Math.max(0, tailStart - cursor);
    cursor += dropped;
    const after = cursor < this.#total ? this.#tailFrom(cursor - tailStart) : null;
    return { before, dropped, after, end: this.#total };
  }

  /** Bytes the stream produced so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /**
   * Where the bytes from `offset` on are (at most `max` of them from
   * memory); `end` when the stream has no byte there yet.
   */
  locate(offset: number, max: number): StreamLocation {
    if (offset >= this.#total) return { kind: "end" };
    if (offset < this.#headLen) {
      return { kind: "memory", bytes: this.#headBytes().slice(offset, offset + max) };
    }
    const tailStart = this.#total - this.#tailLen;
    if (offset >= tailStart) {
      const from = offset - tailStart;
      return { kind: "memory", bytes: this.#tailFrom(from).slice(0, max) };
    }
    const spill = this.#spill;
    if (spill !== null && offset < spill.written) {
      const end = Math.min(spill.written, tailStart);
      return { kind: "spill", path: spill.path, end, removal: spill.removal };
    }
    return { kind: "lost", end: tailStart, reason: this.#lossReason() };
  }

  /** Why bytes past the spill file's end are not kept. */
  #lossReason(): string {
    if (this.#released) return "the output was released by its owner (release())";
    const spill = this.#spill;
    if (spill === null) {
      if (this.#spillFailure !== null) return `no spill file could be made (${this.#spillFailure})`;
      return "maxSpillBytes is 0, so no spill file keeps what memory does not";
    }
    if (spill.error !== null) return `the spill file stopped at a fault (${spill.error})`;
    if (spill.capped) {
      return `the spill file stopped at maxSpillBytes (${this.#budget.maxSpillBytes} bytes)`;
    }
    return "the spill file ends there";
  }

  /**
   * Resolves at the next chunk or at `finish()`, whichever comes first (at
   * once after `finish()`).
   */
  changed(): Promise<void> {
    if (this.#finished) return Promise.resolve();
    // One promise for every reader that waits now, however often they ask.
    this.#changed ??= new Promise((wake) => this.#wakeReaders = wake);
    return this.#changed;
  }

  #wake(): void {
    const wake = this.#wakeReaders;
    if (wake === null) return;
    this.#changed = null;
    this.#wakeReaders = null;
    wake();
  }

  #startSpill(chunk: Uint8Array): void {
    this.#spillTried = true;
    if (this.#budget.maxSpillBytes === 0) return;
    let dir: string;
    try {
      dir = this.#budget.spillDir();
    } catch (error) {
      this.#spillFailure = faultReason(error);
      return;
    }
    const spill = SpillFile.create(dir, this.#budget.maxSpillBytes, this.#budget.spillBudget);
    if (!(spill instanceof SpillFile)) {
      this.#spillFailure = spill.error;
      return;
    }
    this.#spill = spill;
    spill.write(this.#headBytes());
    spill.write(this.#tailFrom(0));
    spill.write(chunk);
  }

  #headBytes(): Uint8Array {
    return this.#head?.subarray(0, this.#headLen) ?? EMPTY;
  }

  #pushTail(bytes: Uint8Array): void {
    const capacity = this.#tailLimit;
    if (capacity === 0) return;
    const ring = this.#ring ??= new Uint8Array(capacity);
    if (bytes.length >= capacity) {
      ring.set(bytes.subarray(bytes.length - capacity));
      this.#ringStart = 0;
      this.#tailLen = capacity;
      return;
    }
    const write = (this.#ringStart + this.#tailLen) % capacity;
    const first = Math.min(bytes.length, capacity - write);
    ring.set(first === bytes.length ? bytes : bytes.subarray(0, first), write);
    if (first < bytes.length) ring.set(bytes.subarray(first), 0);
    const length = this.#tailLen + bytes.length;
    if (length > capacity) {
      this.#ringStart = (this.#ringStart + length - capacity) % capacity;
      this.#tailLen = capacity;
    } else {
      this.#tailLen = length;
    }
  }

  /** A view of the tail from `from` (valid until the next push). */
  #tailFrom(from: number): Uint8Array {
    const ring = this.#ring;
    const length = this.#tailLen - from;
    if (ring === null || length <= 0) return EMPTY;
    const start = (this.#ringStart + from) % ring.length;
    if (start + length <= ring.length) return ring.subarray(start, start + length);
    const out = new Uint8Array(length);
    const first = ring.length - start;
    out.set(ring.subarray(start));
    out.set(ring.subarray(0, length - first), first);
    return out;
  }
}
