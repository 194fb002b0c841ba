const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One frame of the channel's stdin, as the bootstrap reads it: a header line
 * `<tag> <length>` and `length` bytes (`<tag>` alone when there are none).
 */
export function frame(tag: string, body?: string | Uint8Array): Uint8Array {
  if (body === undefined) return encoder.encode(`${tag}\n`);
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const header = encoder.encode(`${tag} ${bytes.length}\n`);
  const out = new Uint8Array(header.length + bytes.length);
  out.set(header);
  out.set(bytes, header.length);
  return out;
}

/** Where `needle` starts in `haystack` at or after `from`, or -1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = haystack.indexOf(first!, from); i >= 0; i = haystack.indexOf(first!, i + 1)) {
    if (i + needle.length > haystack.length) return -1;
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** How many bytes at the end of `bytes` are a proper prefix of `needle`. */
function partialSuffix(bytes: Uint8Array, needle: Uint8Array): number {
  for (let k = Math.min(needle.length - 1, bytes.length); k > 0; k--) {
    let j = 0;
    while (j < k && bytes[bytes.length - k + j] === needle[j]) j++;
    if (j === k) return k;
  }
  return 0;
}

/**
 * Takes the bootstrap's messages out of a stream (its stderr): each is
 * `<marker><text>\n`, written in one write, so it is contiguous wherever it
 * falls. Everything else passes through unchanged; bytes that may start a
 * message are held back until the next chunk shows whether they do.
 */
export class MessageSplitter {
  readonly #marker: Uint8Array;
  #held: Uint8Array = new Uint8Array(0);

  constructor(marker: string) {
    this.#marker = encoder.encode(marker);
  }

  /** Splits one chunk into the bytes that pass through and the messages found. */
  push(chunk: Uint8Array): { data: Uint8Array[]; messages: string[] } {
    let buffer = chunk;
    if (this.#held.length > 0) {
      buffer = new Uint8Array(this.#held.length + chunk.length);
      buffer.set(this.#held);
      buffer.set(chunk, this.#held.length);
    }
    const data: Uint8Array[] = [];
    const messages: string[] = [];
    let at = 0;
    for (;;) {
      const start = indexOf(buffer, this.#marker, at);
      if (start < 0) {
        const keep = partialSuffix(buffer.subarray(at), this.#marker);
        if (buffer.length - keep > at) data.push(buffer.slice(at, buffer.length - keep));
        this.#held = buffer.slice(buffer.length - keep);
        return { data, messages };
      }
      const end = buffer.indexOf(10, start + this.#marker.length);
      if (start > at) data.push(buffer.slice(at, start));
      if (end < 0) {
        this.#held = buffer.slice(start);
        return { data, messages };
      }
      messages.push(decoder.decode(buffer.subarray(start + this.#marker.length, end)));
      at = end + 1;
    }
  }

  /** The bytes still held back at the end of the stream: they were not a message. */
  end(): Uint8Array {
    const held = this.#held;
    this.#held = new Uint8Array(0);
    return held;
  }
}
