/**
 * The network proxy of a sandboxing executor: the only way out for a
 * command whose policy's network is an allow-list. Every launch gets a Unix
 * socket of its own (its bridge connects to that one alone) and a token of
 * its own, which the command presents as the proxy password: a connection
 * is served under the list of the launch whose socket it came in on, and
 * only with that launch's token, so a token read elsewhere opens nothing.
 * Each socket speaks HTTP (`CONNECT` tunnels and plain `http://` requests,
 * one request per connection) and SOCKS5 (told apart by the first byte).
 * The proxy checks each destination against the launch's list, resolves
 * names itself and connects only to addresses the list allows, and records
 * what it refused. A launch holds at most {@linkcode MAX_LAUNCH_CONNECTIONS}
 * connections; when it settles, its socket, token and connections go.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { joinedBytes, makeFolder } from "../../engine/mod.ts";
import { join } from "node:path";
import type { SandboxNetworkAllowList } from "../../seam/mod.ts";
import {
  connectTcp,
  type ListenHandlers,
  listenLoopback,
  listenUnix,
  type NetListener,
  type NetSocket,
  resolveHost,
  splice,
} from "../../runtime/mod.ts";
import { messageOf } from "../../seam/message.ts";
import { addressRefusal, normalHost, refusal } from "./_allow_list.ts";
import { forwardBody } from "./_forward.ts";
import {
  type BodyFraming,
  type Destination,
  type HttpProxyRequest,
  parseHttpHead,
  parseSocksAuth,
  parseSocksGreeting,
  parseSocksRequest,
  ProxyProtocolError,
  SOCKS_REPLY,
  SOCKS_USER_PASS,
  socksReply,
} from "./_proxy_protocol.ts";

/** The proxy user name in the URLs commands get (the password is the launch's token). */
export const PROXY_USER = "shellseam";
/**
 * How long a client may take, from its connection, to send its request and
 * have its destination reached (a deadline: bytes that keep coming do not
 * extend it).
 */
export const HANDSHAKE_TIMEOUT_MS = 30_000;
/** How long a connection to a destination may take. */
const CONNECT_TIMEOUT_MS = 15_000;
/** At most this many refused destinations are kept per launch. */
const MAX_REFUSED = 50;
/**
 * The most connections one launch may hold open at once. One past it is
 * answered with an error (HTTP 503, or SOCKS5 "no acceptable method") and
 * closed; twice as many are closed at once, unanswered.
 */
export const MAX_LAUNCH_CONNECTIONS = 64;

/**
 * How many bytes a step used; `wait` for more, `done` when the connection is
 * answered. A step that throws leaves the answer to the caller (an HTTP one).
 */
type Step = (bytes: Uint8Array) => Promise<number | "wait" | "done">;
/**
 * Joins the client to `target`: a tunnel past the first `used` bytes, or,
 * for a forwarded request, its body alone.
 */
type Finish = (target: NetSocket, used: number, body?: BodyFraming) => void;
/** A client stops being read past this many pending bytes until its tunnel is up. */
const MAX_PENDING_BYTES = 256 * 1024;

/**
 * The key of a `SandboxBashExecutor` config entry holding {@linkcode ProxyOptions}:
 * internal (tests give the proxy a fake resolver), never public API.
 */
export const PROXY_OPTIONS: unique symbol = Symbol("shellseam.proxyOptions");

/** Internal options; tests replace the resolver, the connector, the listener and the deadline. */
export interface ProxyOptions {
  /** Resolves a host name to IP addresses (the system resolver by default). */
  resolve?: (host: string) => Promise<string[]>;
  /** Connects to an IP address and port. */
  connect?: (address: string, port: number) => Promise<NetSocket>;
  /** Listens on a Unix socket (`listenUnix` by default). */
  listen?: typeof listenUnix;
  /** Listens on a TCP port of 127.0.0.1 (`listenLoopback` by default). */
  listenLoopback?: typeof listenLoopback;
  /** The handshake deadline in milliseconds (30 s by default). */
  handshakeTimeoutMs?: number;
}

/** What one launch may reach, and what it was refused. */
interface LaunchRecord {
  list: SandboxNetworkAllowList;
  token: string;
  refused: string[];
}

/**
 * One launch's way through the proxy (see {@linkcode NetworkProxy.open}):
 * its socket, its token, and what it was refused.
 */
export interface ProxyLaunch {
  /** The Unix socket the launch's bridge connects to. */
  readonly socketPath: string;
  /** The password its command presents. */
  readonly token: string;
  /** The destinations refused to it so far. */
  refused(): string[];
  /** Ends it: its socket goes, its connections are dropped, its token opens nothing. */
  close(): Promise<void>;
}

/**
 * One launch's way through the proxy on a loopback port (see
 * {@linkcode NetworkProxy.openLoopback}): as a {@linkcode ProxyLaunch}, with
 * a port of 127.0.0.1 in place of a socket.
 */
export interface LoopbackProxyLaunch extends Omit<ProxyLaunch, "socketPath"> {
  /** The TCP port on 127.0.0.1 the launch's command connects to. */
  readonly port: number;
}

/**
 * The state of an executor's network proxy (see
 * `SandboxBashExecutor.networkProxyState()` and the doctor).
 *
 * @example
 * ```ts
 * import type { ProxyState } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const state: ProxyState = {
 *   listening: true,
 *   socketDir: "/tmp/shellseam-u0/shellseam-exec-1-2-abc/proxy",
 *   launches: 3,
 *   connections: 0,
 * };
 * assert.equal(state.listening, true);
 * ```
 */
export interface ProxyState {
  /** Whether it serves launches (until the executor is disposed). */
  listening: boolean;
  /** The folder of its Unix sockets, one per running command with an allow-list. */
  socketDir: string;
  /** Launches registered now (running commands with an allow-list). */
  launches: number;
  /** Connections open now. */
  connections: number;
  /**
   * Why the socket of a running launch stopped listening, when an error
   * stopped one (an accept that failed: too many open files, ...): that
   * command's later connections fail; the next command gets a socket of its own.
   */
  error?: string;
}

/** One executor's proxy (see the module). */
export class NetworkProxy {
  /** The folder of its sockets. */
  readonly socketDir: string;
  readonly #resolve: (host: string) => Promise<string[]>;
  readonly #connect: (address: string, port: number) => Promise<NetSocket>;
  readonly #listen: typeof listenUnix;
  readonly #handshakeMs: number;
  readonly #listenLoopback: typeof listenLoopback;
  /** Running launches, with their listeners and what removes a listener's leftovers. */
  readonly #launches = new Map<
    symbol,
    { listener: Promise<NetListener>; failure?: Error; forget: () => void }
  >();
  #closed = false;

  /** A proxy whose sockets go in `socketDir` (made when missing, mode 0700). */
  constructor(socketDir: string, options: ProxyOptions = {}) {
    this.socketDir = socketDir;
    this.#resolve = options.resolve ?? resolveHost;
    this.#connect = options.connect ??
      ((address, port) => connectTcp(address, port, CONNECT_TIMEOUT_MS));
    this.#listen = options.listen ?? listenUnix;
    this.#listenLoopback = options.listenLoopback ?? listenLoopback;
    this.#handshakeMs = options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  }

  /**
   * Opens a launch that may reach `list`: a socket of its own in the
   * folder, listening, and a token. Rejects when it cannot listen.
   */
  async open(list: SandboxNetworkAllowList): Promise<ProxyLaunch> {
    if (this.#closed) throw new Error("The network proxy was stopped");
    // Not recursive: its parent (the executor's private folder) is not the proxy's to make.
    makeFolder(this.socketDir);
    const id = crypto.randomUUID().replaceAll("-", "");
    const socketPath = join(this.socketDir, `${id.slice(0, 16)}.sock`);
    const launch = await this.#register(
      list,
      (handlers) => this.#listen(socketPath, handlers),
      () => rmSync(socketPath, { force: true }),
    );
    return { ...launch, socketPath };
  }

  /**
   * Opens a launch that may reach `list` on a TCP port of its own on
   * 127.0.0.1 (an ephemeral one), for a sandbox that lets its command reach
   * that port alone (Seatbelt's profile names it), and a token. Any local
   * process can connect to such a port: the token, not the port, is what
   * serves one command. Rejects when it cannot listen.
   */
  async openLoopback(list: SandboxNetworkAllowList): Promise<LoopbackProxyLaunch> {
    if (this.#closed) throw new Error("The network proxy was stopped");
    let port = 0;
    const launch = await this.#register(list, async (handlers) => {
      const listener = await this.#listenLoopback(handlers);
      port = listener.port;
      return listener;
    }, () => {});
    return { ...launch, port };
  }

  /**
   * A launch of `list` served on the listener `listen` makes; `forget`
   * removes what the listener leaves behind (its socket file) once it stopped.
   */
  async #register(
    list: SandboxNetworkAllowList,
    listen: (handlers: ListenHandlers) => Promise<NetListener>,
    forget: () => void,
  ): Promise<Omit<ProxyLaunch, "socketPath">> {
    const record: LaunchRecord = {
      list,
      token: crypto.randomUUID().replaceAll("-", ""),
      refused: [],
    };
    const key = Symbol("launch");
    const entry: { listener: Promise<NetListener>; failure?: Error; forget: () => void } = {
      forget,
      listener: listen({
        onConnection: (socket) => this.#accept(socket, record, entry.listener),
        onError: (error) => {
          // Stopped: its clients get no answer from the socket, so it goes,
          // and they fail at once.
          entry.failure = error;
          forget();
        },
      }),
    };
    await entry.listener;
    this.#launches.set(key, entry);
    let closed: Promise<void> | undefined;
    return {
      token: record.token,
      refused: () => [...record.refused],
      close: () =>
        closed ??= (async () => {
          this.#launches.delete(key);
          record.token = "";
          await (await entry.listener).close();
          forget();
        })(),
    };
  }

  /** Its state now. */
  async state(): Promise<ProxyState> {
    const entries = [...this.#launches.values()];
    const listeners = await Promise.all(entries.map((entry) => entry.listener));
    const failure = entries.findLast((entry) => entry.failure !== undefined)?.failure;
    return {
      listening: !this.#closed,
      socketDir: this.socketDir,
      launches: entries.length,
      connections: listeners.reduce((sum, listener) => sum + listener.connections, 0),
      ...(failure === undefined || this.#closed ? {} : {
        error: `a command's proxy socket stopped listening after an error (${
          messageOf(failure)
        }); that command's later connections fail, and the next command gets a socket of its own`,
      }),
    };
  }

  /** Stops every launch's socket and drops every connection. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#launches.entries()];
    this.#launches.clear();
    await Promise.all(entries.map(async ([, entry]) => {
      await (await entry.listener).close();
      entry.forget();
    }));
  }

  #accept(socket: NetSocket, record: LaunchRecord, listener: Promise<NetListener>): void {
    socket.on("error", () => socket.destroy());
    // Once it has ended its side (an answer, or a tunnel's end), the connection is done:
    // it counts no longer, whatever the client does (a Unix socket keeps what was written).
    socket.on("finish", () => socket.destroy());
    // From the connection's start: bytes that keep coming do not extend it.
    const deadline = setTimeout(() => socket.destroy(), this.#handshakeMs);
    socket.once("close", () => clearTimeout(deadline));
    // Bytes received and not yet used; a step reads them from the start.
    let buffered: Uint8Array = new Uint8Array(0);
    let busy = false;
    const finish: Finish = (target, used, body) => {
      clearTimeout(deadline);
      step = undefined;
      socket.off("data", onData);
      if (socket.destroyed) {
        target.destroy();
        return;
      }
      const rest = buffered.subarray(used);
      if (body !== undefined) {
        forwardBody(socket, target, body, rest);
        return;
      }
      // A tunnel: what arrived while the destination was being reached goes first.
      if (rest.length > 0) target.write(rest);
      splice(socket, target);
      socket.resume();
    };
    let step: Step | undefined = (bytes) => {
      step = bytes[0] === 5
        ? this.#socks(socket, record, finish)
        : this.#http(socket, record, finish);
      return Promise.resolve(0);
    };
    const onData = async (chunk: Uint8Array) => {
      buffered = joinedBytes([buffered, chunk]);
      // A client may not pile up bytes while its destination is reached.
      if (buffered.length > MAX_PENDING_BYTES) socket.pause();
      if (busy) return;
      busy = true;
      try {
        while (step !== undefined && buffered.length > 0) {
          const used = await step(buffered);
          if (used === "wait" || used === "done") {
            if (used === "done") step = undefined;
            break;
          }
          buffered = buffered.subarray(used);
        }
      } catch (error) {
        // Only the HTTP side throws: the SOCKS side answers its own errors.
        step = undefined;
        this.#failHttp(socket, error);
      } finally {
        busy = false;
      }
    };
    socket.on("data", onData);
    void listener.then(({ connections }) => {
      if (connections <= MAX_LAUNCH_CONNECTIONS) return;
      if (connections > 2 * MAX_LAUNCH_CONNECTIONS) {
        socket.destroy();
        return;
      }
      // One too many: answered in the client's own protocol, from its first byte.
      step = (bytes) => {
        const message =
          `shellseam sandbox proxy: this command has ${MAX_LAUNCH_CONNECTIONS} proxy connections open, the most one command may hold; close some, or make fewer at once`;
        if (bytes[0] === 5) socket.end(new Uint8Array([5, 0xff]));
        else respond(socket, 503, "Service Unavailable", message);
        return Promise.resolve("done");
      };
    });
  }

  /** The HTTP side: one request head, then a tunnel or the one forwarded request. */
  #http(socket: NetSocket, record: LaunchRecord, finish: Finish): Step {
    return async (bytes) => {
      const request: HttpProxyRequest | undefined = parseHttpHead(bytes);
      if (request === undefined) return "wait";
      if (record.token === "" || request.credential !== record.token) {
        respond(
          socket,
          407,
          "Proxy Authentication Required",
          "shellseam sandbox proxy: this socket serves one command; use the proxy URL in its HTTP_PROXY",
          ['Proxy-Authenticate: Basic realm="shellseam"'],
        );
        return "done";
      }
      const opened = await this.#open(record, request.destination);
      if ("message" in opened) {
        if (opened.refused) respond(socket, 403, "Forbidden", opened.message);
        else respond(socket, 502, "Bad Gateway", opened.message);
        return "done";
      }
      if (request.method === "CONNECT") {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        finish(opened, request.length);
      } else {
        // Byte for byte as the client sent it (the head was read as latin1).
        opened.write(request.forwardHead, "latin1");
        finish(opened, request.length, request.body);
      }
      return "done";
    };
  }

  /**
   * The SOCKS5 side: greeting, username/password, then `CONNECT`. Malformed
   * input is answered in the stage's own reply: no acceptable method, an
   * RFC 1929 failure, or a SOCKS5 failure reply.
   */
  #socks(socket: NetSocket, record: LaunchRecord, finish: Finish): Step {
    let stage: "greeting" | "auth" | "request" = "greeting";
    const step: Step = async (bytes) => {
      if (stage === "greeting") {
        const greeting = parseSocksGreeting(bytes);
        if (greeting === undefined) return "wait";
        if (!greeting.methods.includes(SOCKS_USER_PASS)) {
          socket.end(new Uint8Array([5, 0xff]));
          return "done";
        }
        socket.write(new Uint8Array([5, SOCKS_USER_PASS]));
        stage = "auth";
        return greeting.length;
      }
      if (stage === "auth") {
        const auth = parseSocksAuth(bytes);
        if (auth === undefined) return "wait";
        if (record.token === "" || auth.password !== record.token) {
          socket.end(new Uint8Array([1, 1]));
          return "done";
        }
        socket.write(new Uint8Array([1, 0]));
        stage = "request";
        return auth.length;
      }
      const request = parseSocksRequest(bytes);
      if (request === undefined) return "wait";
      const opened = await this.#open(record, request.destination);
      if ("message" in opened) {
        socket.end(
          socksReply(opened.refused ? SOCKS_REPLY.notAllowed : SOCKS_REPLY.hostUnreachable),
        );
        return "done";
      }
      socket.write(socksReply(SOCKS_REPLY.succeeded));
      finish(opened, request.length);
      return "done";
    };
    return async (bytes) => {
      try {
        return await step(bytes);
      } catch (error) {
        if (stage === "greeting") socket.end(new Uint8Array([5, 0xff]));
        else if (stage === "auth") socket.end(new Uint8Array([1, 1]));
        else {
          const code = error instanceof ProxyProtocolError && error.status < 100
            ? error.status
            : SOCKS_REPLY.failure;
          socket.end(socksReply(code));
        }
        return "done";
      }
    };
  }

  /**
   * A connection to `destination` when `record`'s list allows it, else why
   * not (recorded as refused when the policy refused it).
   */
  async #open(
    record: LaunchRecord,
    { host, port }: Destination,
  ): Promise<NetSocket | { message: string; refused: boolean }> {
    const name = normalHost(host);
    const refuse = (reason: string) => {
      if (!record.refused.includes(name) && record.refused.length < MAX_REFUSED) {
        record.refused.push(name);
      }
      return {
        message: `shellseam sandbox: network access to "${name}" denied by policy (${reason}); ` +
          "only the hosts in the sandbox policy's network allow-list can be reached",
        refused: true,
      };
    };
    const unreachable = (message: string) => ({ message, refused: false });
    const listed = refusal(record.list, name);
    if (listed !== undefined) return refuse(listed);
    let addresses: string[];
    try {
      addresses = name.includes(":") || /^[0-9.]+$/.test(name) ? [name] : await this.#resolve(name);
    } catch (error) {
      return unreachable(`shellseam sandbox proxy: cannot resolve "${name}": ${messageOf(error)}`);
    }
    if (addresses.length === 0) {
      return unreachable(`shellseam sandbox proxy: cannot resolve "${name}": it has no address`);
    }
    const reasons = addresses.map((address) => addressRefusal(record.list, address));
    const index = reasons.findIndex((reason) => reason === undefined);
    const address = addresses[index];
    if (address === undefined) return refuse(reasons[0] ?? "no address it resolves to is allowed");
    try {
      return await this.#connect(address, port);
    } catch (error) {
      return unreachable(
        `shellseam sandbox proxy: cannot connect to "${name}" port ${port}: ${messageOf(error)}`,
      );
    }
  }

  #failHttp(socket: NetSocket, error: unknown): void {
    const status = error instanceof ProxyProtocolError ? error.status : 502;
    const reasons: Record<number, string> = {
      431: "Request Header Fields Too Large",
      501: "Not Implemented",
      502: "Bad Gateway",
    };
    respond(
      socket,
      status,
      reasons[status] ?? "Bad Request",
      `shellseam sandbox proxy: ${messageOf(error)}`,
    );
  }
}

/** Answers an HTTP client and closes the connection. */
function respond(
  socket: NetSocket,
  status: number,
  reason: string,
  body: string,
  headers: string[] = [],
): void {
  const bytes = new TextEncoder().encode(`${body}\n`);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${bytes.length}\r\nConnection: close\r\n` +
      headers.map((header) => `${header}\r\n`).join("") + "\r\n" + `${body}\n`,
  );
}
