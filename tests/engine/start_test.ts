// awaitStart over a child whose streams the test plays: the start byte
// taken out, a launch that ended before it, and a wait cut short (the byte
// still taken out when it comes later).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { awaitStart, LAUNCH_STARTED } from "../../engine/_start.ts";
import type { ExitStatus, SpawnedChild } from "../../runtime/mod.ts";

const encoder = new TextEncoder();

/** A child whose stdout and stderr the test writes, and whose stdin it reads. */
function playedChild() {
  let out!: ReadableStreamDefaultController<Uint8Array>;
  let err!: ReadableStreamDefaultController<Uint8Array>;
  let exit!: (status: ExitStatus) => void;
  const written: Uint8Array[] = [];
  const child: SpawnedChild = {
    pid: 1,
    stdout: new ReadableStream({ start: (controller) => void (out = controller) }),
    stderr: new ReadableStream({ start: (controller) => void (err = controller) }),
    stdin: new WritableStream({ write: (chunk) => void written.push(chunk) }),
    exited: new Promise((done) => exit = done),
    unref: () => {},
    ref: () => {},
  };
  return { child, out, err, exit, written };
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

describe("awaitStart", () => {
  it("writes the input, then takes the start byte out of stdout", async () => {
    const played = playedChild();
    const start = awaitStart(played.child, encoder.encode("options"), undefined);
    played.out.enqueue(new Uint8Array([LAUNCH_STARTED, ...encoder.encode("hi")]));
    played.out.close();
    const seen = await start;
    assert.equal(seen.state, "started");
    assert.equal(await text(seen.child.stdout), "hi");
    assert.deepEqual(played.written.map((chunk) => new TextDecoder().decode(chunk)), ["options"]);
  });

  it("says a launch ended before its command started, with the runner's stderr kept", async () => {
    const played = playedChild();
    const start = awaitStart(played.child, undefined, undefined);
    played.err.enqueue(encoder.encode("bwrap: Can't create file at /x: Read-only file system\n"));
    played.err.close();
    played.out.close();
    played.exit({ code: 1, signal: null });
    const seen = await start;
    assert.equal(seen.state, "ended");
    assert.equal(seen.stderr, "bwrap: Can't create file at /x: Read-only file system\n");
    assert.equal(await text(seen.child.stderr), seen.stderr);
    assert.equal(await text(seen.child.stdout), "");
  });

  it("goes on when the call is aborted, and still takes out a start byte that comes later", async () => {
    const played = playedChild();
    const aborted = new AbortController();
    const start = awaitStart(played.child, undefined, aborted.signal);
    aborted.abort();
    const seen = await start;
    assert.equal(seen.state, "unknown");
    played.out.enqueue(new Uint8Array([LAUNCH_STARTED]));
    played.out.enqueue(encoder.encode("late"));
    played.out.close();
    assert.equal(await text(seen.child.stdout), "late");
  });
});
