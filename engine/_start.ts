/**
 * The start of a launch that says when its command starts (see
 * `LaunchPlan.announcesStart`): its first stdout byte is
 * {@linkcode LAUNCH_STARTED}, written once the runner's own setup is done,
 * so a launch that ends before it never ran the command and may be planned
 * and spawned again.
 *
 * @module
 */
import type { SpawnedChild } from "../runtime/mod.ts";
import { within } from "./_within.ts";

/**
 * The byte a launch writes first on its stdout once the command itself
 * starts: one run by a process started ahead, and a cold one whose plan
 * announces its start.
 */
export const LAUNCH_STARTED = 6;

/**
 * How long the executor waits for the byte before it goes on without
 * knowing (the command's own clocks then run): a runner's setup that hangs
 * must not hang the call.
 */
const START_WAIT_MS = 10_000;

/** How long the executor reads the stderr of a launch that ended before it started. */
const STDERR_GRACE_MS = 1000;

/**
 * What a read of a byte stream gives (named here: not every consumer's
 * TypeScript library has the global `ReadableStreamReadResult`).
 */
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

/** The rest of a stream, read by `reader`, with `head` (read already) in front. */
function prepend(
  head: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending?: Promise<ReadResult>,
): ReadableStream<Uint8Array> {
  let first: Uint8Array | undefined = head.length > 0 ? head : undefined;
  let next = pending;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (first !== undefined) {
        controller.enqueue(first);
        first = undefined;
        return;
      }
      const read = next ?? reader.read();
      next = undefined;
      const { done, value } = await read;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/**
 * The rest of a stream that `reader` reads (`pending` a read already asked
 * for), its first byte taken out when it is {@linkcode LAUNCH_STARTED}.
 */
function withoutStartByte(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<ReadResult>,
): ReadableStream<Uint8Array> {
  let next: Promise<ReadResult> | undefined = pending;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await (next ?? reader.read());
        next = undefined;
        if (done) return controller.close();
        const chunk = first && value[0] === LAUNCH_STARTED ? value.subarray(1) : value;
        first &&= value.length === 0;
        if (chunk.length > 0) return controller.enqueue(chunk);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/** What {@linkcode awaitStart} saw. */
export interface LaunchStart {
  /**
   * `started`: the byte came (it is gone from `child.stdout`); `ended`: the
   * launch ended without it, so its command never ran, and `stderr` is what
   * the runner said; `unknown`: the wait ran out, or the call was aborted.
   */
  state: "started" | "ended" | "unknown";
  /** The child, its streams as they were (what was read put back, the byte taken out). */
  child: SpawnedChild;
  /** The runner's stderr when the launch ended before it started. */
  stderr: string;
}

/**
 * Writes `input` (what the launch reads first) to the child's stdin, which
 * it leaves open, then waits for the first byte of its stdout (see
 * {@linkcode LAUNCH_STARTED}), at most `START_WAIT_MS` or until `signal`
 * aborts.
 */
export async function awaitStart(
  child: SpawnedChild,
  input: Uint8Array | undefined,
  signal: AbortSignal | undefined,
): Promise<LaunchStart> {
  if (input !== undefined && child.stdin !== null) {
    const writer = child.stdin.getWriter();
    // A runner that died before it read everything ends its stdout too: that
    // says the rest. One that reads nothing must not hang the call: a write
    // still queued when the writer is let go stays queued, before the
    // command's own stdin.
    await within(writer.write(input).catch(() => {}), START_WAIT_MS, signal);
    writer.releaseLock();
  }
  const reader = child.stdout.getReader();
  let read = reader.read();
  for (;;) {
    const first = await within(read, START_WAIT_MS, signal);
    if (first?.done === true) break;
    if (first === undefined || first.value.length > 0) {
      // Started, or not waited for to the end: the byte is taken out when it comes first.
      return {
        state: first === undefined ? "unknown" : "started",
        child: { ...child, stdout: withoutStartByte(reader, read) },
        stderr: "",
      };
    }
    read = reader.read();
  }
  const said = await stderrOf(child);
  return {
    state: "ended",
    child: { ...child, stdout: withoutStartByte(reader, read), stderr: said.rest },
    stderr: new TextDecoder().decode(said.bytes),
  };
}

/**
 * What the child wrote to stderr, read until it ends (each read at most
 * `STDERR_GRACE_MS` once the child exited: a process it left could hold the
 * pipe), and the stream with those bytes put back in front.
 */
async function stderrOf(
  child: SpawnedChild,
): Promise<{ bytes: Uint8Array; rest: ReadableStream<Uint8Array> }> {
  await within(child.exited, START_WAIT_MS);
  const reader = child.stderr.getReader();
  const chunks: Uint8Array[] = [];
  let pending: Promise<ReadResult> | undefined = reader.read();
  while (pending !== undefined) {
    const chunk: ReadResult | undefined = await within(pending, STDERR_GRACE_MS);
    if (chunk === undefined) break;
    pending = chunk.done ? undefined : reader.read();
    if (!chunk.done) chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, rest: prepend(bytes, reader, pending) };
}
