/**
 * The proxy's protocol parsing, kept small and free of I/O so that it can be
 * fuzzed: an HTTP/1 proxy request head (`CONNECT host:port`, or an
 * absolute `http://` URL) and the SOCKS5 greeting, username/password
 * sub-negotiation (RFC 1929) and `CONNECT` request. Every parser takes the
 * bytes received so far and answers `undefined` (more bytes needed), a
 * result with how many bytes it used, or throws {@linkcode ProxyProtocolError}.
 *
 * @module
 */
import { isIP } from "node:net";

/** The most bytes an HTTP request head may take. */
export const MAX_HEAD_BYTES: number = 16 * 1024;

/** Malformed input, with the HTTP status (or SOCKS reply code) to answer. */
export class ProxyProtocolError extends Error {
  /** HTTP status for an HTTP client. */
  readonly status: number;
  /** Creates one. */
  constructor(message: string, status = 400) {
    super(message);
    this.name = "ProxyProtocolError";
    this.status = status;
  }
}

/** A destination: a host name or IP address (no brackets) and a port. */
export interface Destination {
  host: string;
  port: number;
}

/**
 * How a forwarded request's body is framed: none, a `Content-Length`, or
 * `Transfer-Encoding: chunked` (see {@linkcode ChunkedBody}).
 */
export type BodyFraming = { kind: "none" } | { kind: "length"; length: number } | {
  kind: "chunked";
};

/** A parsed HTTP proxy request head. */
export interface HttpProxyRequest {
  /** `CONNECT` (a tunnel) or another method (forwarded). */
  method: string;
  destination: Destination;
  /** The password of `Proxy-Authorization: Basic`, if any. */
  credential: string | undefined;
  /**
   * For a forwarded request: the head to send the origin (origin-form
   * target, `Host` from the URL, no proxy credentials nor hop-by-hop fields,
   * `Connection: close`).
   */
  forwardHead: string;
  /** For a forwarded request: how its body is framed (the bytes after it are never forwarded). */
  body: BodyFraming;
  /** Bytes of the head, blank line included. */
  length: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A request target: visible ASCII only (a space, TAB, bare LF or other control would split the line). */
const TARGET = /^[\x21-\x7e]+$/;
/** What a header value may not hold: controls but TAB (a bare LF or CR would start a header of its own). */
// deno-lint-ignore no-control-regex
const VALUE_CONTROLS = /[\x00-\x08\x0a-\x1f\x7f]/;
const HOP_BY_HOP = new Set([
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
  "host",
]);

/** Parses an HTTP proxy request head from `bytes` (see the module). */
export function parseHttpHead(bytes: Uint8Array): HttpProxyRequest | undefined {
  const end = indexOfBlankLine(bytes);
  if (end < 0) {
    if (bytes.length > MAX_HEAD_BYTES) {
      throw new ProxyProtocolError("request head too large", 431);
    }
    return undefined;
  }
  const length = end + 4;
  if (length > MAX_HEAD_BYTES) throw new ProxyProtocolError("request head too large", 431);
  const text = latin1(bytes.subarray(0, end));
  const [requestLine = "", ...headerLines] = text.split("\r\n");
  const parts = requestLine.split(" ");
  const [method = "", target = "", version = ""] = parts;
  if (parts.length !== 3 || !TOKEN.test(method) || !/^HTTP\/1\.[01]$/.test(version)) {
    throw new ProxyProtocolError("malformed request line");
  }
  if (!TARGET.test(target)) {
    throw new ProxyProtocolError("the request target holds a control, space or non-ASCII byte");
  }
  const headers: [string, string][] = headerLines.map((line) => {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name) || VALUE_CONTROLS.test(line)) {
      throw new ProxyProtocolError("malformed header line");
    }
    return [name, line.slice(colon + 1).trim()];
  });
  const named = (wanted: string) =>
    headers.filter(([name]) => name.toLowerCase() === wanted).map(([, value]) => value);
  const credential = basicPassword(named("proxy-authorization")[0]);
  if (method === "CONNECT") {
    return {
      method,
      destination: authority(target),
      credential,
      forwardHead: "",
      body: { kind: "none" },
      length,
    };
  }
  const url = /^http:\/\/([^/?#]+)([^#]*)/i.exec(target);
  if (url === null) {
    throw new ProxyProtocolError(
      "only absolute http:// URLs are forwarded; use CONNECT for anything else",
    );
  }
  const [, hostPort = "", rest = ""] = url;
  if (hostPort.includes("@")) throw new ProxyProtocolError("credentials in the URL");
  const destination = authority(hostPort, 80);
  // The origin routes by Host: it must name the destination the policy checked.
  const hosts = named("host");
  if (hosts.length > 1) throw new ProxyProtocolError("more than one Host header");
  if (hosts[0] !== undefined) {
    const host = authority(hosts[0], 80);
    if (host.host !== destination.host || host.port !== destination.port) {
      throw new ProxyProtocolError(
        `the Host header ${JSON.stringify(hosts[0].slice(0, 100))} differs from the URL's host`,
      );
    }
  }
  const path = rest === "" ? "/" : rest.startsWith("/") ? rest : `/${rest}`;
  // The fields the Connection header names are this hop's too.
  const hop = new Set(HOP_BY_HOP);
  for (const value of named("connection")) {
    for (const name of value.split(",")) hop.add(name.trim().toLowerCase());
  }
  const kept = headers.filter(([name]) => !hop.has(name.toLowerCase()));
  const forwardHead = `${method} ${path} ${version}\r\nHost: ${hostPort}\r\n` +
    kept.map(([name, value]) => `${name}: ${value}\r\n`).join("") +
    "Connection: close\r\n\r\n";
  return { method, destination, credential, forwardHead, body: bodyFraming(named), length };
}

/**
 * A request's body framing by RFC 9112: `Transfer-Encoding: chunked` alone,
 * or one `Content-Length`, or none. Anything a server could read another
 * way (both, differing lengths, another coding) is refused.
 */
function bodyFraming(named: (name: string) => string[]): BodyFraming {
  const codings = named("transfer-encoding");
  const lengths = named("content-length");
  if (codings.length > 0) {
    if (lengths.length > 0) {
      throw new ProxyProtocolError("both Transfer-Encoding and Content-Length");
    }
    if (codings.length > 1 || codings[0]?.toLowerCase() !== "chunked") {
      throw new ProxyProtocolError("only the chunked transfer coding is forwarded", 501);
    }
    return { kind: "chunked" };
  }
  if (lengths.length === 0) return { kind: "none" };
  const [first = ""] = lengths;
  if (!/^\d{1,15}$/.test(first) || lengths.some((value) => value !== first)) {
    throw new ProxyProtocolError("malformed or conflicting Content-Length");
  }
  return { kind: "length", length: Number(first) };
}

/** The most bytes a chunk-size line or a trailer line may take. */
const MAX_CHUNK_LINE = 1024;

/**
 * Finds the end of a chunked body as its bytes arrive: `feed` answers how
 * many of the bytes given belong to the body, the last chunk included,
 * or undefined when all do and more are to come. Throws
 * {@linkcode ProxyProtocolError} for a malformed size line, a missing CRLF
 * after a chunk, or a trailer field (none is forwarded).
 */
export class ChunkedBody {
  #state: "size" | "data" | "data-end" | "trailer" = "size";
  #line = "";
  #remaining = 0;

  /** See the class. */
  feed(bytes: Uint8Array): number | undefined {
    let index = 0;
    while (index < bytes.length) {
      if (this.#state === "data") {
        const take = Math.min(this.#remaining, bytes.length - index);
        index += take;
        this.#remaining -= take;
        if (this.#remaining === 0) this.#state = "data-end";
        continue;
      }
      const byte = bytes[index++] as number;
      if (byte !== 10) {
        this.#line += String.fromCharCode(byte);
        if (this.#line.length > MAX_CHUNK_LINE) {
          throw new ProxyProtocolError("chunk line too long");
        }
        continue;
      }
      const line = this.#line;
      this.#line = "";
      if (!line.endsWith("\r")) throw new ProxyProtocolError("bare LF in a chunked body");
      const content = line.slice(0, -1);
      if (this.#state === "data-end") {
        if (content !== "") throw new ProxyProtocolError("no CRLF after a chunk");
        this.#state = "size";
      } else if (this.#state === "trailer") {
        if (content !== "") throw new ProxyProtocolError("trailer fields are not forwarded");
        return index;
      } else {
        const size = /^([0-9a-fA-F]{1,12})(?:;[\x20-\x7e\t]*)?$/.exec(content)?.[1];
        if (size === undefined) throw new ProxyProtocolError("malformed chunk size");
        this.#remaining = parseInt(size, 16);
        this.#state = this.#remaining === 0 ? "trailer" : "data";
      }
    }
    return undefined;
  }
}

/** `host:port` (an IPv6 host in brackets); the port defaults to `defaultPort` when given. */
function authority(text: string, defaultPort?: number): Destination {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const [, rawHost = "", rawPort] = match ?? [];
  const port = rawPort === undefined ? defaultPort : Number(rawPort);
  const host = rawHost.startsWith("[") ? rawHost.slice(1, -1) : rawHost;
  if (
    match === null || port === undefined || port < 1 || port > 65535 ||
    (rawHost.startsWith("[") && isIP(host) !== 6) ||
    // A name goes into results the model reads: no controls, spaces or odd bytes.
    (isIP(host) === 0 && !/^[A-Za-z0-9._-]{1,253}$/.test(host))
  ) {
    throw new ProxyProtocolError(`malformed destination ${JSON.stringify(text.slice(0, 100))}`);
  }
  return { host: host.toLowerCase(), port };
}

/** The password of a `Basic` credential, or undefined. */
function basicPassword(value: string | undefined): string | undefined {
  const match = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(value ?? "");
  if (match?.[1] === undefined) return undefined;
  let decoded: string;
  try {
    decoded = atob(match[1]);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

function indexOfBlankLine(bytes: Uint8Array): number {
  const limit = Math.min(bytes.length, MAX_HEAD_BYTES + 4);
  for (let i = 0; i + 3 < limit; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/** SOCKS5 method: username/password (RFC 1929). */
export const SOCKS_USER_PASS: number = 2;

/** A SOCKS5 greeting: the methods the client offers. */
export function parseSocksGreeting(
  bytes: Uint8Array,
): { methods: number[]; length: number } | undefined {
  if (bytes.length < 2) return undefined;
  if (bytes[0] !== 5) throw new ProxyProtocolError("not SOCKS5");
  const count = bytes[1] ?? 0;
  if (count === 0) throw new ProxyProtocolError("no SOCKS5 method offered");
  if (bytes.length < 2 + count) return undefined;
  return { methods: [...bytes.subarray(2, 2 + count)], length: 2 + count };
}

/** A SOCKS5 username/password sub-negotiation: the password. */
export function parseSocksAuth(
  bytes: Uint8Array,
): { password: string; length: number } | undefined {
  if (bytes.length < 2) return undefined;
  if (bytes[0] !== 1) throw new ProxyProtocolError("bad SOCKS5 authentication version");
  const userLength = bytes[1] ?? 0;
  if (bytes.length < 3 + userLength) return undefined;
  const passwordLength = bytes[2 + userLength] ?? 0;
  const length = 3 + userLength + passwordLength;
  if (bytes.length < length) return undefined;
  return { password: latin1(bytes.subarray(3 + userLength, length)), length };
}

/** SOCKS5 reply codes this proxy sends. */
export const SOCKS_REPLY: Readonly<Record<string, number>> & {
  readonly succeeded: 0;
  readonly failure: 1;
  readonly notAllowed: 2;
  readonly hostUnreachable: 4;
  readonly commandNotSupported: 7;
  readonly addressNotSupported: 8;
} = {
  succeeded: 0,
  failure: 1,
  notAllowed: 2,
  hostUnreachable: 4,
  commandNotSupported: 7,
  addressNotSupported: 8,
};

/** A SOCKS5 request: `CONNECT` to a destination. */
export function parseSocksRequest(
  bytes: Uint8Array,
): { destination: Destination; length: number } | undefined {
  if (bytes.length < 5) return undefined;
  if (bytes[0] !== 5 || bytes[2] !== 0) throw new ProxyProtocolError("malformed SOCKS5 request");
  if (bytes[1] !== 1) {
    throw new ProxyProtocolError("only CONNECT is supported", SOCKS_REPLY.commandNotSupported);
  }
  const type = bytes[3];
  const addressLength = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? 1 + (bytes[4] ?? 0) : -1;
  if (addressLength < 0 || (type === 3 && addressLength === 1)) {
    throw new ProxyProtocolError("unknown SOCKS5 address type", SOCKS_REPLY.addressNotSupported);
  }
  const length = 4 + addressLength + 2;
  if (bytes.length < length) return undefined;
  const address = bytes.subarray(4, 4 + addressLength);
  const host = type === 1
    ? [...address].join(".")
    : type === 4
    ? [...Array(8).keys()].map((i) => ((address[2 * i]! << 8) | address[2 * i + 1]!).toString(16))
      .join(":")
    : latin1(address.subarray(1));
  if (type === 3 && (isIP(host) === 0 && !/^[A-Za-z0-9._-]+$/.test(host))) {
    throw new ProxyProtocolError("malformed SOCKS5 host name", SOCKS_REPLY.addressNotSupported);
  }
  const port = ((bytes[length - 2] ?? 0) << 8) | (bytes[length - 1] ?? 0);
  if (port === 0) throw new ProxyProtocolError("SOCKS5 port 0", SOCKS_REPLY.addressNotSupported);
  return { destination: { host: host.toLowerCase(), port }, length };
}

/** A SOCKS5 reply with `code` and a zero bound address. */
export function socksReply(code: number): Uint8Array {
  return new Uint8Array([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
