const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossyDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Decodes bytes as UTF-8 and counts the bytes that had to be replaced. */
export function decodeCounting(bytes: Uint8Array): { text: string; invalid: number } {
  try {
    return { text: strictDecoder.decode(bytes), invalid: 0 };
  } catch {
    return { text: lossyDecoder.decode(bytes), invalid: countInvalidUtf8(bytes) };
  }
}

/**
 * Counts bytes that are not part of a well-formed UTF-8 sequence: every byte of
 * each maximal ill-formed subpart (the unit a decoder replaces with U+FFFD).
 */
export function countInvalidUtf8(bytes: Uint8Array): number {
  let invalid = 0;
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) need = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2;
      if (lead === 0xe0) lo = 0xa0;
      else if (lead === 0xed) hi = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3;
      if (lead === 0xf0) lo = 0x90;
      else if (lead === 0xf4) hi = 0x8f;
    } else {
      invalid++;
      i++;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      const next = bytes[i + j];
      if (next === undefined || next < lo || next > hi) break;
      lo = 0x80;
      hi = 0xbf;
    }
    if (j > need) i += j;
    else {
      invalid += j;
      i += j;
    }
  }
  return invalid;
}

/** Length of `bytes` without a trailing multi-byte sequence that a cut left incomplete. */
export function completePrefixLength(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const byte = bytes[n - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte < 0xc2 || byte > 0xf4) return n;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return length > back ? n - back : n;
  }
  return n;
}

/** How many continuation bytes (at most 3) a cut left at the start of `bytes`. */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}

/** The one line that stands for omitted bytes, placed on a line of its own after `before`. */
export function omissionMarker(before: string, omittedBytes: number): string {
  const gap = before === "" || before.endsWith("\n") ? "" : "\n";
  return `${gap}[... ${omittedBytes} bytes omitted ...]\n`;
}
