import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyStream, utf16Mark } from "../../engine/_binary.ts";
import { OutputCollector } from "../../engine/_output.ts";
import {
  cutCharacterBytes,
  LiveTextDecoder,
  wholePrefixLength,
} from "../../engine/_stream_text.ts";

/** `text` in UTF-16 (little or big endian) after its byte-order mark. */
function utf16(text: string, encoding: "utf-16le" | "utf-16be"): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xfeff, encoding === "utf-16le");
  for (let i = 0; i < text.length; i++) {
    view.setUint16(2 + i * 2, text.charCodeAt(i), encoding === "utf-16le");
  }
  return out;
}

/** Decodes `bytes` live, cut into pieces of `size` bytes. */
function live(bytes: Uint8Array, size: number): string[] {
  const decoder = new LiveTextDecoder();
  const pieces: string[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    pieces.push(decoder.decode(bytes.subarray(at, at + size)));
  }
  pieces.push(decoder.end());
  return pieces;
}

const TEXT = "héllo 𝄞 wörld\n";

describe("the live decoding of a stream", () => {
  it("decodes UTF-16 after a byte-order mark as the collector does, at any cut", () => {
    for (const encoding of ["utf-16le", "utf-16be"] as const) {
      const bytes = utf16(TEXT.repeat(3), encoding);
      const collector = new OutputCollector({
        maxBytes: 1 << 20,
        headBytes: 1 << 20,
        maxSpillBytes: 0,
        spillDir: () => "/nonexistent",
      });
      collector.push(bytes);
      collector.finish();
      const collected = collector.collect().text;
      assert.equal(collected, TEXT.repeat(3));
      for (const size of [1, 2, 3, 5, 7, 64]) {
        const pieces = live(bytes, size);
        assert.equal(pieces.join(""), collected, `${encoding}, pieces of ${size}`);
        assert.ok(pieces.every((piece) => !piece.includes("\uFFFD")), `${encoding} ${size}`);
      }
    }
  });

  it("keeps UTF-8 (a UTF-8 byte-order mark too) and holds back only what could be a mark", () => {
    const utf8 = new TextEncoder().encode(`\uFEFF${TEXT}`);
    assert.equal(live(utf8, 1).join(""), `\uFEFF${TEXT}`);
    const decoder = new LiveTextDecoder();
    assert.equal(decoder.decode(new Uint8Array([0x61])), "a", "a first byte that is no mark");
    const held = new LiveTextDecoder();
    assert.equal(held.decode(new Uint8Array([0xff, 0xfe])), "", "FF FE may still be UTF-32");
    assert.equal(held.decode(new Uint8Array([0x41, 0x00])), "A");
    const short = new LiveTextDecoder();
    assert.equal(short.decode(new Uint8Array([0xff])), "");
    assert.equal(
      short.end(),
      "\uFFFD",
      "one byte that ends the stream is UTF-8 as the collector has it",
    );
  });

  it("decides the mark as classifyStream does, however few bytes came", () => {
    const cases: [number[], "utf-16le" | "utf-16be" | null][] = [
      [[0xff, 0xfe, 0x41, 0x00], "utf-16le"],
      [[0xfe, 0xff, 0x00, 0x41], "utf-16be"],
      [[0xff, 0xfe, 0x00, 0x00], null],
      [[0xff, 0xfe], "utf-16le"],
      [[0x41, 0x42], null],
      [[], null],
    ];
    for (const [bytes, mark] of cases) {
      const first = new Uint8Array(bytes);
      assert.equal(utf16Mark(first, true), mark, `${bytes}`);
      const kind = classifyStream(first);
      assert.equal(kind.kind === "utf16" ? kind.encoding : null, mark, `${bytes}`);
    }
    assert.equal(utf16Mark(new Uint8Array([0xff, 0xfe]), false), undefined);
    assert.equal(utf16Mark(new Uint8Array([0xff, 0xfe, 0x00]), false), undefined);
    assert.equal(utf16Mark(new Uint8Array([0xff, 0xfe, 0x41]), false), "utf-16le");
    assert.equal(utf16Mark(new Uint8Array([0xfe]), false), undefined);
  });

  it("cuts UTF-16 at whole characters: code units, and surrogate pairs kept together", () => {
    const bytes = utf16("a𝄞", "utf-16le").subarray(2); // a, high, low surrogate
    assert.equal(wholePrefixLength(bytes, "utf-16le"), 6);
    assert.equal(wholePrefixLength(bytes.subarray(0, 5), "utf-16le"), 2, "odd, and a lone high");
    assert.equal(wholePrefixLength(bytes.subarray(0, 4), "utf-16le"), 2);
    assert.equal(
      cutCharacterBytes(bytes.subarray(4), "utf-16le", 4),
      2,
      "a low whose high was cut",
    );
    assert.equal(cutCharacterBytes(bytes.subarray(3), "utf-16le", 3), 3, "half a unit, then a low");
    assert.equal(cutCharacterBytes(bytes, "utf-16le", 0), 0);
    const be = utf16("a𝄞", "utf-16be").subarray(2);
    assert.equal(wholePrefixLength(be.subarray(0, 4), "utf-16be"), 2);
    assert.equal(cutCharacterBytes(be.subarray(4), "utf-16be", 4), 2);
  });
});
