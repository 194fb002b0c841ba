/**
 * Decoding a stream's bytes as text the way its collector does: UTF-16 when
 * a byte-order mark announces it (see `utf16Mark`), UTF-8 otherwise, so the
 * live callback and the background reads agree with the result.
 *
 * @module
 */
import { utf16Mark } from "./_binary.ts";
import { completePrefixLength, leadingContinuationBytes } from "./_utf8.ts";

/** The text encoding of a stream. */
export type StreamEncoding = "utf-8" | "utf-16le" | "utf-16be";

/** The encoding of a stream that begins with `first` (undefined while its first bytes cannot tell). */
export function streamEncoding(first: Uint8Array, ended: boolean): StreamEncoding | undefined {
  const mark = utf16Mark(first, ended);
  return mark === undefined ? undefined : mark ?? "utf-8";
}

/** How many bytes a byte-order mark takes at the start of a stream in `encoding`. */
export function markBytes(encoding: StreamEncoding): number {
  return encoding === "utf-8" ? 0 : 2;
}

const decoders: Record<StreamEncoding, TextDecoder> = {
  "utf-8": new TextDecoder("utf-8", { ignoreBOM: true }),
  "utf-16le": new TextDecoder("utf-16le", { ignoreBOM: true }),
  "utf-16be": new TextDecoder("utf-16be", { ignoreBOM: true }),
};

/** Decodes whole characters (a byte-order mark is kept: skip it with {@linkcode markBytes}). */
export function decodeText(bytes: Uint8Array, encoding: StreamEncoding): string {
  return decoders[encoding].decode(bytes);
}

/** The length of `bytes` without a character that their end cuts. */
export function wholePrefixLength(bytes: Uint8Array, encoding: StreamEncoding): number {
  if (encoding === "utf-8") return completePrefixLength(bytes);
  const even = bytes.length - bytes.length % 2;
  if (even === 0) return 0;
  const last = encoding === "utf-16le" ? bytes[even - 1]! : bytes[even - 2]!;
  // A high surrogate waits for the low one that completes it.
  return last >= 0xd8 && last <= 0xdb ? even - 2 : even;
}

/**
 * How many bytes at the start of `bytes` belong to a character that a gap
 * before them cut; `offset` is the stream offset of `bytes`.
 */
export function cutCharacterBytes(
  bytes: Uint8Array,
  encoding: StreamEncoding,
  offset: number,
): number {
  if (encoding === "utf-8") return leadingContinuationBytes(bytes);
  const skip = offset % 2;
  if (bytes.length < skip + 2) return Math.min(skip, bytes.length);
  const high = encoding === "utf-16le" ? bytes[skip + 1]! : bytes[skip]!;
  // A low surrogate whose high one the gap took.
  return high >= 0xdc && high <= 0xdf ? skip + 2 : skip;
}

/**
 * Decodes one stream piece by piece as it arrives, in the encoding its
 * first bytes announce (held back until they tell), without a byte-order
 * mark and without splitting a character.
 */
export class LiveTextDecoder {
  #decoder: TextDecoder | undefined;
  #first: Uint8Array = new Uint8Array(0);

  /** The text of `chunk` and of what earlier chunks left unfinished. */
  decode(chunk: Uint8Array): string {
    if (this.#decoder !== undefined) return this.#decoder.decode(chunk, { stream: true });
    const first = new Uint8Array(this.#first.length + chunk.length);
    first.set(this.#first);
    first.set(chunk, this.#first.length);
    return this.#start(first, false);
  }

  /** What is left at the end of the stream. */
  end(): string {
    if (this.#decoder === undefined) return this.#start(this.#first, true);
    return this.#decoder.decode();
  }

  #start(first: Uint8Array, ended: boolean): string {
    const encoding = streamEncoding(first, ended);
    if (encoding === undefined) {
      this.#first = first;
      return "";
    }
    this.#first = new Uint8Array(0);
    this.#decoder = new TextDecoder(encoding, { ignoreBOM: true });
    return this.#decoder.decode(first.subarray(markBytes(encoding)), { stream: !ended });
  }
}
