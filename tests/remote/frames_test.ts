// The stdin frames the bootstrap reads, and the splitter that takes its messages out of stderr.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { frame, MessageSplitter } from "../../remote/_frames.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MARK = "\x1eshellseam-0123456789abcdef:";

/** Feeds `text` to a splitter in chunks of `size` bytes; returns what passed and the messages. */
function split(text: string, size: number): { data: string; messages: string[] } {
  const splitter = new MessageSplitter(MARK);
  const bytes = encoder.encode(text);
  const data: Uint8Array[] = [];
  const messages: string[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const out = splitter.push(bytes.subarray(at, at + size));
    data.push(...out.data);
    messages.push(...out.messages);
  }
  data.push(splitter.end());
  return { data: data.map((chunk) => decoder.decode(chunk)).join(""), messages };
}

describe("frame", () => {
  it("prefixes the byte length, not the character count, and has a bare form", () => {
    assert.deepEqual(decoder.decode(frame("D", "é\n")), "D 3\né\n");
    assert.deepEqual(
      frame("D", new Uint8Array([0, 255])),
      new Uint8Array([68, 32, 50, 10, 0, 255]),
    );
    assert.equal(decoder.decode(frame("K")), "K\n");
  });
});

describe("MessageSplitter", () => {
  const stream =
    `err 1\n${MARK}S 42\nerr 2 \x1eshell not a message\n${MARK}E 0 -\ntail${MARK}Z 0 \n`;

  it("takes the messages out wherever they fall, in chunks of any size", () => {
    for (const size of [1, 2, 3, 7, 30, 1000]) {
      assert.deepEqual(split(stream, size), {
        data: "err 1\nerr 2 \x1eshell not a message\ntail",
        messages: ["S 42", "E 0 -", "Z 0 "],
      }, `chunks of ${size}`);
    }
  });

  it("passes on bytes that only began like a message when the stream ends", () => {
    assert.deepEqual(split(`data${MARK.slice(0, 5)}`, 2), {
      data: `data${MARK.slice(0, 5)}`,
      messages: [],
    });
    assert.deepEqual(split(`data${MARK}no newline`, 4), {
      data: `data${MARK}no newline`,
      messages: [],
    });
  });
});
