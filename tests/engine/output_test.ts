import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutputCollector } from "../../engine/_output.ts";
import { completePrefixLength, countInvalidUtf8 } from "../../engine/_utf8.ts";

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = 97 + ((i * 7 + seed) % 26);
  return out;
}

function chunked(data: Uint8Array, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  let i = 0;
  while (offset < data.length) {
    const size = sizes[i++ % sizes.length]!;
    chunks.push(data.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}

const latin1 = (data: Uint8Array): string => Buffer.from(data).toString("latin1");

describe("OutputCollector", () => {
  it("keeps everything up to the budget and head + tail past it, through ring wrap-around", () => {
    for (const total of [0, 1, 99, 100, 101, 250, 1_000, 10_007]) {
      const data = bytes(total, total);
      const collector = new OutputCollector({
        maxBytes: 100,
        headBytes: 30,
        maxSpillBytes: 0,
        spillDir: () => "/nonexistent",
      });
      for (const chunk of chunked(data, [1, 7, 33, 64, 3])) collector.push(chunk);
      const out = collector.collect();
      assert.equal(out.totalBytes, total);
      if (total <= 100) {
        assert.equal(out.text, latin1(data));
        assert.equal(out.truncated, false);
      } else {
        assert.equal(out.truncated, true);
        assert.equal(out.omittedBytes, total - 100);
        assert.equal(
          out.text,
          `${latin1(data.subarray(0, 30))}\n[... ${total - 100} bytes omitted ...]\n${
            latin1(data.subarray(total - 70))
          }`,
        );
      }
    }
  });

  it("copies what it keeps: views of larger buffers are not held, and reused buffers do not change it", () => {
    const collector = new OutputCollector({
      maxBytes: 100,
      headBytes: 30,
      maxSpillBytes: 0,
      spillDir: () => "/nonexistent",
    });
    // As Deno hands over a slow writer's output: each byte a view of its own 64 KiB buffer.
    const buffers: Uint8Array[] = [];
    const data = bytes(150, 4);
    for (const byte of data) {
      const buffer = new Uint8Array(64 * 1024);
      buffer[0] = byte;
      buffers.push(buffer);
      collector.push(buffer.subarray(0, 1));
    }
    for (const buffer of buffers) buffer.fill(0x21);
    assert.equal(
      collector.collect().text,
      `${latin1(data.subarray(0, 30))}\n[... 50 bytes omitted ...]\n${latin1(data.subarray(80))}`,
    );
    assert.equal(
      latin1(collector.readFrom(0).before ?? new Uint8Array()),
      latin1(data.subarray(0, 30)),
    );
  });

  it("reads with exact byte cursors and counts what a late read lost", () => {
    const data = bytes(5_000, 3);
    const collector = new OutputCollector({
      maxBytes: 200,
      headBytes: 50,
      maxSpillBytes: 0,
      spillDir: () => "/nonexistent",
    });
    let cursor = 0;
    let seen = "";
    for (const chunk of chunked(data, [13, 40, 150])) {
      collector.push(chunk);
      const slice = collector.readFrom(cursor);
      assert.equal(slice.dropped, 0);
      seen += latin1(slice.before ?? new Uint8Array()) + latin1(slice.after ?? new Uint8Array());
      cursor = slice.end;
    }
    assert.equal(seen, latin1(data));
    collector.push(bytes(1_000, 9));
    const late = collector.readFrom(cursor);
    assert.equal(late.before, null);
    assert.equal(late.dropped, 1_000 - 150);
    assert.equal(late.after?.length, 150);
    const fromStart = collector.readFrom(0);
    assert.equal(fromStart.before?.length, 50);
    assert.equal(fromStart.dropped, 6_000 - 200);
  });

  it("spills the whole stream from byte 0 on the first overflow", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-spill-"));
    try {
      const data = bytes(1_000, 5);
      const collector = new OutputCollector({
        maxBytes: 100,
        headBytes: 10,
        maxSpillBytes: 600,
        spillDir: () => dir,
      });
      for (const chunk of chunked(data, [30, 90])) collector.push(chunk);
      collector.finish();
      const out = collector.collect();
      assert.ok(out.spillPath !== undefined && out.spillPath.startsWith(dir));
      assert.equal(out.spillComplete, false);
      assert.deepEqual(new Uint8Array(readFileSync(out.spillPath)), data.subarray(0, 600));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("makes no spill file when maxSpillBytes is 0", () => {
    const collector = new OutputCollector({
      maxBytes: 10,
      headBytes: 5,
      maxSpillBytes: 0,
      spillDir: () => {
        throw new Error("no spill directory should be needed");
      },
    });
    collector.push(bytes(50, 1));
    assert.equal(collector.collect().spillPath, undefined);
  });

  it("gives no spill path when the spill file cannot be created", () => {
    const collector = new OutputCollector({
      maxBytes: 10,
      headBytes: 5,
      maxSpillBytes: 100,
      spillDir: () => "/proc/no-such-dir",
    });
    collector.push(bytes(50, 1));
    const out = collector.collect();
    assert.equal(out.spillPath, undefined);
    assert.equal(out.spillComplete, false);
    assert.equal(out.truncated, true);
  });

  it("cuts head and tail on character boundaries and counts the cut bytes as omitted", () => {
    const text = "\u{1F600}".repeat(100);
    const collector = new OutputCollector({
      maxBytes: 41,
      headBytes: 10,
      maxSpillBytes: 0,
      spillDir: () => "/nonexistent",
    });
    collector.push(new TextEncoder().encode(text));
    const out = collector.collect();
    assert.equal(out.invalidUtf8Bytes, 0);
    assert.equal(
      out.text,
      `${"\u{1F600}".repeat(2)}\n[... 364 bytes omitted ...]\n${"\u{1F600}".repeat(7)}`,
    );
  });
  it("keeps characters split across chunks and across the head and tail intact", () => {
    const encoded = new TextEncoder().encode(`${"a".repeat(8)}\u{1F600}\u00e9\u{1F600}`);
    for (let cut = 1; cut < encoded.length; cut++) {
      const collector = new OutputCollector({
        maxBytes: 100,
        headBytes: 10,
        maxSpillBytes: 0,
        spillDir: () => "/nonexistent",
      });
      collector.push(encoded.slice(0, cut));
      collector.push(encoded.slice(cut));
      const out = collector.collect();
      assert.equal(out.text, `${"a".repeat(8)}\u{1F600}\u00e9\u{1F600}`, `cut at ${cut}`);
      assert.equal(out.invalidUtf8Bytes, 0);
      assert.equal(out.truncated, false);
    }
  });
});

describe("OutputCollector for readers", () => {
  const collector = () =>
    new OutputCollector({
      maxBytes: 100,
      headBytes: 30,
      maxSpillBytes: 0,
      spillDir: () => "/nonexistent",
    });

  it("gives every waiting reader one promise, settled by the next chunk and at the end", async () => {
    const c = collector();
    const first = c.changed();
    assert.equal(c.changed(), first, "asking again adds no waiter");
    c.push(bytes(5, 1));
    await first;
    const second = c.changed();
    assert.notEqual(second, first);
    c.finish();
    await second;
    await c.changed();
    assert.equal(c.finished, true);
  });

  it("locates each offset in memory, or as lost up to the tail with the reason", () => {
    const c = collector();
    const data = bytes(250, 3);
    for (const chunk of chunked(data, [40])) c.push(chunk);
    const head = c.locate(0, 1000);
    assert.deepEqual(head.kind === "memory" && latin1(head.bytes), latin1(data.subarray(0, 30)));
    const gap = c.locate(30, 1000);
    assert.deepEqual(gap, {
      kind: "lost",
      end: 180,
      reason: "maxSpillBytes is 0, so no spill file keeps what memory does not",
    });
    const tail = c.locate(200, 10);
    assert.deepEqual(tail.kind === "memory" && latin1(tail.bytes), latin1(data.subarray(200, 210)));
    assert.deepEqual(c.locate(250, 10), { kind: "end" });
  });
});

describe("UTF-8 helpers", () => {
  it("counts every byte of each ill-formed subpart", () => {
    const cases: [number[], number][] = [
      [[0x61], 0],
      [[0xc3, 0xa9], 0],
      [[0xf0, 0x9f, 0x98, 0x80], 0],
      [[0xff], 1],
      [[0xc3], 1],
      [[0xe2, 0x82], 2],
      [[0xf0, 0x9f, 0x98], 3],
      [[0xed, 0xa0, 0x80], 3],
      [[0xc0, 0xaf], 2],
      [[0x80, 0x61, 0xe2, 0x82, 0xac], 1],
    ];
    for (const [input, expected] of cases) {
      assert.equal(countInvalidUtf8(new Uint8Array(input)), expected, `bytes ${input}`);
    }
  });

  it("finds the complete prefix before a cut sequence", () => {
    assert.equal(completePrefixLength(new Uint8Array([0x61, 0xf0, 0x9f])), 1);
    assert.equal(completePrefixLength(new Uint8Array([0x61, 0xc3, 0xa9])), 3);
    assert.equal(completePrefixLength(new Uint8Array([0x61, 0xff])), 2);
  });
});
