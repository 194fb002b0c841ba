/**
 * What the proxy does once a forwarded request's head is through: it sends
 * the request's body on, framed as its head says, and the answer back.
 *
 * @module
 */
import type { NetSocket } from "../../runtime/mod.ts";
import { type BodyFraming, ChunkedBody } from "./_proxy_protocol.ts";

/**
 * Sends a forwarded request's body to `target` (`rest` first, then what
 * the client sends), framed as `body` says, and the answer back; what the
 * client sends past the body (a second request: this proxy forwards one per
 * connection, as its `Connection: close` says) is never forwarded. A body
 * that breaks its framing drops both connections.
 */
export function forwardBody(
  client: NetSocket,
  target: NetSocket,
  body: BodyFraming,
  rest: Uint8Array,
): void {
  const drop = () => {
    client.destroy();
    target.destroy();
  };
  let left = body.kind === "length" ? body.length : 0;
  const chunked = body.kind === "chunked" ? new ChunkedBody() : undefined;
  /** How many of `bytes` belong to the body; undefined when all do and more are to come. */
  const take = (bytes: Uint8Array): number | undefined => {
    if (chunked !== undefined) return chunked.feed(bytes);
    const used = Math.min(left, bytes.length);
    left -= used;
    return left === 0 ? used : undefined;
  };
  const onData = (chunk: Uint8Array) => {
    let used: number | undefined;
    try {
      used = take(chunk);
    } catch {
      drop();
      return;
    }
    const part = used === undefined ? chunk : chunk.subarray(0, used);
    if (part.length > 0 && !target.write(part) && used === undefined) {
      client.pause();
      target.once("drain", () => client.resume());
    }
    if (used !== undefined) {
      // The body is whole: nothing more of the client's goes on.
      client.off("data", onData);
      client.pause();
    }
  };
  client.pause();
  if (body.kind !== "none") {
    client.on("data", onData);
    if (rest.length > 0) onData(rest);
    if (client.listenerCount("data") > 0) client.resume();
  }
  target.on("error", drop);
  client.on("close", drop);
  // Once the answer is through, the client's side goes too (unread bytes with it).
  target.on("close", () => client.end(() => client.destroy()));
  target.pipe(client, { end: false });
}
