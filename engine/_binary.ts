import { completePrefixLength, countInvalidUtf8 } from "./_utf8.ts";

/** How many leading bytes of a stream decide whether it is text. */
export const SNIFF_BYTES = 8192;

/**
 * What the first bytes of a stream say it is: UTF-8 text, UTF-16 text
 * (announced by a byte-order mark), or binary data with a guess at its type.
 */
export type StreamKind =
  | { readonly kind: "text" }
  | { readonly kind: "utf16"; readonly encoding: "utf-16le" | "utf-16be" }
  | { readonly kind: "binary"; readonly looksLike: string | null };

const TEXT: StreamKind = Object.freeze({ kind: "text" });

/**
 * Classifies a stream by its first bytes (at most {@link SNIFF_BYTES} are
 * read): a UTF-16 byte-order mark makes it text in that encoding; otherwise
 * any NUL byte, or more than 10% of bytes outside well-formed UTF-8, makes
 * it binary. A multi-byte sequence cut at the end of `first` is not counted.
 */
export function classifyStream(first: Uint8Array): StreamKind {
  const bytes = first.length > SNIFF_BYTES ? first.subarray(0, SNIFF_BYTES) : first;
  const mark = utf16Mark(bytes, true);
  if (mark !== null && mark !== undefined) return { kind: "utf16", encoding: mark };
  if (bytes.includes(0)) return { kind: "binary", looksLike: guessMediaType(bytes) };
  const complete = bytes.subarray(0, completePrefixLength(bytes));
  if (complete.length > 0 && countInvalidUtf8(complete) * 10 > complete.length) {
    return { kind: "binary", looksLike: guessMediaType(bytes) };
  }
  return TEXT;
}

/**
 * The UTF-16 encoding that a byte-order mark at the start of a stream
 * announces (`FF FE` not followed by `00 00`, which is UTF-32, or `FE FF`),
 * or null for none. `first` is the stream's first bytes; while they are too
 * few to tell and the stream goes on (`ended` false), this is undefined.
 * Every reader of a stream decides its encoding with this, so they agree.
 */
export function utf16Mark(
  first: Uint8Array,
  ended: boolean,
): "utf-16le" | "utf-16be" | null | undefined {
  if (first.length > 0 && first[0] !== 0xff && first[0] !== 0xfe) return null;
  if (first.length < 2) return ended ? null : undefined;
  if (first[0] === 0xfe) return first[1] === 0xff ? "utf-16be" : null;
  if (first[1] !== 0xfe) return null;
  if (!ended && first.length < 4 && (first.length === 2 || first[2] === 0)) return undefined;
  return first[2] === 0 && first[3] === 0 ? null : "utf-16le";
}

interface Signature {
  readonly offset: number;
  readonly bytes: readonly number[];
  readonly type: string;
}

function ascii(text: string): number[] {
  return Array.from(text, (char) => char.charCodeAt(0));
}

const SIGNATURES: readonly Signature[] = [
  { offset: 0, bytes: [0x89, ...ascii("PNG\r\n\x1a\n")], type: "image/png" },
  { offset: 0, bytes: [0xff, 0xd8, 0xff], type: "image/jpeg" },
  { offset: 0, bytes: ascii("GIF8"), type: "image/gif" },
  { offset: 8, bytes: ascii("WEBP"), type: "image/webp" },
  { offset: 0, bytes: ascii("BM"), type: "image/bmp" },
  { offset: 0, bytes: [0, 0, 1, 0], type: "image/x-icon" },
  { offset: 0, bytes: ascii("%PDF-"), type: "application/pdf" },
  { offset: 0, bytes: [0x1f, 0x8b], type: "application/gzip" },
  { offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04], type: "application/zip" },
  { offset: 0, bytes: ascii("BZh"), type: "application/x-bzip2" },
  { offset: 0, bytes: [0xfd, ...ascii("7zXZ"), 0], type: "application/x-xz" },
  { offset: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd], type: "application/zstd" },
  {
    offset: 0,
    bytes: [...ascii("7z"), 0xbc, 0xaf, 0x27, 0x1c],
    type: "application/x-7z-compressed",
  },
  { offset: 257, bytes: ascii("ustar"), type: "application/x-tar" },
  { offset: 0, bytes: [0x7f, ...ascii("ELF")], type: "application/x-executable" },
  { offset: 0, bytes: [0, ...ascii("asm")], type: "application/wasm" },
  { offset: 0, bytes: ascii("SQLite format 3\0"), type: "application/vnd.sqlite3" },
  { offset: 0, bytes: [0xca, 0xfe, 0xba, 0xbe], type: "application/java-vm" },
  { offset: 4, bytes: ascii("ftyp"), type: "video/mp4" },
  { offset: 0, bytes: ascii("ID3"), type: "audio/mpeg" },
  { offset: 0, bytes: ascii("OggS"), type: "audio/ogg" },
  { offset: 0, bytes: ascii("RIFF"), type: "application/x-riff" },
];

/** The media type that the magic number at the start of `bytes` names, or null. */
export function guessMediaType(bytes: Uint8Array): string | null {
  for (const signature of SIGNATURES) {
    if (bytes.length < signature.offset + signature.bytes.length) continue;
    if (signature.bytes.every((byte, i) => bytes[signature.offset + i] === byte)) {
      return signature.type;
    }
  }
  return null;
}
