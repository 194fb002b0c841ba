import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { classifyStream, guessMediaType, SNIFF_BYTES } from "../../engine/_binary.ts";
import { OutputCollector } from "../../engine/_output.ts";

const encoder = new TextEncoder();

/** The first bytes of a real 1x1 PNG. */
const PNG = Uint8Array.from([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0x00,
  0x00,
  0x00,
  0x0d,
  0x49,
  0x48,
  0x44,
  0x52,
  0x00,
  0x00,
  0x00,
  0x01,
  0x00,
  0x00,
  0x00,
  0x01,
  0x08,
  0x06,
  0x00,
  0x00,
  0x00,
  0x1f,
  0x15,
  0xc4,
]);

function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[2 + i * 2] = unit & 0xff;
    out[3 + i * 2] = unit >> 8;
  }
  return out;
}

describe("classifyStream", () => {
  it("takes UTF-8 text, including multi-byte characters, as text", () => {
    assert.deepEqual(classifyStream(encoder.encode("héllo wörld ✓ 日本\n".repeat(50))), {
      kind: "text",
    });
    assert.deepEqual(classifyStream(new Uint8Array(0)), { kind: "text" });
  });

  it("does not count a character cut at the end of the sniffed bytes", () => {
    const text = encoder.encode("日".repeat(3));
    assert.deepEqual(classifyStream(text.subarray(0, 7)), { kind: "text" });
  });

  it("names a PNG as binary image/png", () => {
    assert.deepEqual(classifyStream(PNG), { kind: "binary", looksLike: "image/png" });
  });

  it("names gzip data as binary application/gzip", () => {
    const gz = gzipSync(encoder.encode("some text ".repeat(100)));
    assert.deepEqual(classifyStream(gz), { kind: "binary", looksLike: "application/gzip" });
  });

  it("decodes UTF-16 with a byte-order mark as text, little and big endian", () => {
    assert.deepEqual(classifyStream(utf16le("hello\n")), { kind: "utf16", encoding: "utf-16le" });
    assert.deepEqual(classifyStream(Uint8Array.from([0xfe, 0xff, 0, 0x68])), {
      kind: "utf16",
      encoding: "utf-16be",
    });
  });

  it("takes UTF-16 without a byte-order mark (it holds NUL bytes) as binary", () => {
    assert.equal(classifyStream(utf16le("hello").subarray(2)).kind, "binary");
  });

  it("calls one NUL byte binary, with no type when no magic number matches", () => {
    assert.deepEqual(classifyStream(encoder.encode("abc\0def")), {
      kind: "binary",
      looksLike: null,
    });
  });

  it("puts the line at 10% invalid UTF-8", () => {
    const at = (invalid: number) => {
      const bytes = new Uint8Array(100).fill(0x61);
      bytes.fill(0xff, 0, invalid);
      return classifyStream(bytes).kind;
    };
    assert.equal(at(10), "text");
    assert.equal(at(11), "binary");
  });

  it("reads only the first SNIFF_BYTES bytes", () => {
    const bytes = new Uint8Array(SNIFF_BYTES + 10).fill(0x61);
    bytes[SNIFF_BYTES + 5] = 0;
    assert.deepEqual(classifyStream(bytes), { kind: "text" });
    bytes[SNIFF_BYTES - 1] = 0;
    assert.equal(classifyStream(bytes).kind, "binary");
  });
});

describe("guessMediaType", () => {
  it("reads magic numbers at their offsets", () => {
    const tar = new Uint8Array(512);
    tar.set(encoder.encode("ustar"), 257);
    assert.equal(guessMediaType(tar), "application/x-tar");
    assert.equal(guessMediaType(encoder.encode("\x7fELF\x02\x01")), "application/x-executable");
    assert.equal(guessMediaType(encoder.encode("%PDF-1.7")), "application/pdf");
    assert.equal(guessMediaType(PNG.subarray(0, 4)), null);
  });
});

describe("OutputCollector with binary streams", () => {
  function withCollector(
    budget: { maxBytes: number; headBytes: number; maxSpillBytes?: number },
    fn: (collector: OutputCollector) => void,
  ): void {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-binary-"));
    try {
      fn(new OutputCollector({ maxSpillBytes: 1 << 20, ...budget, spillDir: () => dir }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("spills a binary stream far below the memory budget, every byte of it", () => {
    withCollector({ maxBytes: 4000, headBytes: 1000 }, (collector) => {
      collector.push(PNG.subarray(0, 10));
      collector.push(PNG.subarray(10));
      collector.finish();
      const out = collector.collect();
      assert.deepEqual(out.binary, { totalBytes: PNG.length, looksLike: "image/png" });
      assert.equal(out.spillComplete, true);
      assert.deepEqual(readFileSync(out.spillPath ?? ""), Buffer.from(PNG));
    });
  });

  it("keeps a short text stream in memory only", () => {
    withCollector({ maxBytes: 4000, headBytes: 1000 }, (collector) => {
      collector.push(encoder.encode("hello\n"));
      collector.finish();
      const out = collector.collect();
      assert.equal(out.binary, undefined);
      assert.equal(out.spillPath, undefined);
    });
  });

  it("decides at the first 8 KB when they come in pieces past a small head, and spills from byte 0", () => {
    withCollector({ maxBytes: 20_000, headBytes: 1000 }, (collector) => {
      const data = new Uint8Array(12_000).fill(0x61);
      data[SNIFF_BYTES - 2] = 0;
      for (let at = 0; at < data.length; at += 1500) collector.push(data.subarray(at, at + 1500));
      assert.deepEqual(collector.binary, { totalBytes: 12_000 }, "known before the end");
      collector.finish();
      const out = collector.collect();
      assert.deepEqual(readFileSync(out.spillPath ?? ""), Buffer.from(data));
    });
  });

  it("says why a binary stream has no file when spilling is off", () => {
    withCollector({ maxBytes: 4000, headBytes: 1000, maxSpillBytes: 0 }, (collector) => {
      collector.push(PNG);
      collector.finish();
      const out = collector.collect();
      assert.deepEqual(out.binary, { totalBytes: PNG.length, looksLike: "image/png" });
      assert.equal(out.spillPath, undefined);
    });
  });

  it("decodes truncated UTF-16 at whole code units on both sides of the cut", () => {
    withCollector({ maxBytes: 101, headBytes: 51 }, (collector) => {
      const data = utf16le("abcdefghij".repeat(100));
      collector.push(data.subarray(0, 3));
      collector.push(data.subarray(3));
      collector.finish();
      const out = collector.collect();
      assert.equal(out.truncated, true);
      assert.equal(out.invalidUtf8Bytes, 0);
      assert.doesNotMatch(out.text, /\uFFFD/);
      assert.match(out.text, /^abcdefghijabcdefghijabcd\n\[\.\.\. 1902 bytes omitted \.\.\.\]\n/);
      assert.match(out.text, /\]\nfghij(abcdefghij){2}$/);
      assert.equal(out.totalBytes - out.omittedBytes, 50 + 50);
    });
  });
});
