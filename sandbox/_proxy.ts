/**
 * The network proxy of a sandboxing executor: the only way out for a
 * command whose policy's network is an allow-list. One Unix socket speaks
 * HTTP (`CONNECT` tunnels and plain `http://` requests) and SOCKS5 (told
 * apart by the first byte). Every launch registers its allow-list under a
 * token of its own, which the command presents as the proxy password; the
 * proxy checks each destination against that launch's list, resolves names
 * itself and connects only to addresses the list allows, and records what
 * it refused, per launch.
 *
 * @module
 */
import { existsSync, rmSync } from "node:fs";
import type { SandboxNetworkAllowList } from "../seam/mod.ts";
import {
  connectTcp,
  listenUnix,
  type NetListener,
  type NetSocket,
  resolveHost,
  splice,
} from "../local/internal.ts";
import { messageOf } from "../seam/_message.ts";
import { addressRefusal, normalHost, refusal } from "./_network.ts";
import {
  type Destination,
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
/** How long a client may take to send its request before it is dropped. */
const HANDSHAKE_TIMEOUT_MS = 30_000;
/** How long a connection to a destination may take. */
const CONNECT_TIMEOUT_MS = 15_000;
/** At most this many refused destinations are kept per launch. */
const MAX_REFUSED = 50;

/**
 * How many bytes a step used; `wait` for more, `done` when the connection is
 * answered. A step that throws leaves the answer to the caller (an HTTP one).
 */
type Step = (bytes: Uint8Array) => Promise<number | "wait" | "done">;
/** Joins the client to `target`, forwarding what it sent past the first `used` bytes. */
type Finish = (target: NetSocket, used: number) => void;
/** A client stops being read past this many pending bytes until its tunnel is up. */
const MAX_PENDING_BYTES = 256 * 1024;

/**
 * The key of a `SandboxBashExecutor` config entry holding {@linkcode ProxyOptions}:
 * internal (tests give the proxy a fake resolver), never public API.
 */
export const PROXY_OPTIONS: unique symbol = Symbol("shellseam.proxyOptions");

/** Internal options; tests replace the resolver, the connector and the listener. */
export interface ProxyOptions {
  /** Resolves a host name to IP addresses (the system resolver by default). */
  resolve?: (host: string) => Promise<string[]>;
  /** Connects to an IP address and port. */
  connect?: (address: string, port: number) => Promise<NetSocket>;
  /** Listens on the Unix socket (`listenUnix` by default). */
  listen?: typeof listenUnix;
}

/** What one launch may reach, and what it was refused. */
interface LaunchRecord {
  list: SandboxNetworkAllowList;
  refused: string[];
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
 *   socketPath: "/tmp/shellseam-u0/shellseam-exec-1-2-abc/proxy.sock",
 *   launches: 3,
 *   connections: 0,
 * };
 * assert.equal(state.listening, true);
 * ```
 */
export interface ProxyState {
  /** Whether it listens now. */
  listening: boolean;
  /** Its Unix socket. */
  socketPath: string;
  /** Launches registered now (running commands with an allow-list). */
  launches: number;
  /** Connections open now. */
  connections: number;
  /**
   * Why it stopped listening, when an error stopped it (an accept that
   * failed: too many open files, ...); the next launch with an allow-list
   * starts it again.
   */
  error?: string;
}

/** One executor's proxy (see the module). Listens from the first {@linkcode NetworkProxy.start}. */
export class NetworkProxy {
  /** Its Unix socket. */
  readonly socketPath: string;
  readonly #resolve: (host: string) => Promise<string[]>;
  readonly #connect: (address: string, port: number) => Promise<NetSocket>;
  readonly #listen: typeof listenUnix;
  readonly #launches = new Map<string, LaunchRecord>();
  #listener: Promise<NetListener> | undefined;
  #listening = false;
  #closed = false;
  /** The error that stopped the current listener, if one did. */
  #failure: Error | undefined;
  /** Listeners an error stopped: their accepted connections still close with the proxy. */
  readonly #stopped: Promise<NetListener>[] = [];

  /** A proxy that will listen at `socketPath`. */
  constructor(socketPath: string, options: ProxyOptions = {}) {
    this.socketPath = socketPath;
    this.#resolve = options.resolve ?? resolveHost;
    this.#connect = options.connect ??
      ((address, port) => connectTcp(address, port, CONNECT_TIMEOUT_MS));
    this.#listen = options.listen ?? listenUnix;
  }

  /**
   * Starts listening (once; later calls wait for the first, and a call after
   * an error stopped it listens again). Rejects when it cannot.
   */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The network proxy was stopped"));
    if (this.#failure !== undefined && this.#listener !== undefined) {
      this.#stopped.push(this.#listener);
      this.#listener = undefined;
    }
    if (this.#listener === undefined) {
      this.#failure = undefined;
      this.#listening = false;
      if (existsSync(this.socketPath)) rmSync(this.socketPath);
      const listener = this.#listen(this.socketPath, {
        onConnection: (socket) => this.#accept(socket),
        onError: (error) => {
          if (this.#listener !== listener || this.#closed) return;
          // Stopped: clients get no answer from the socket, so it goes, and
          // they fail at once (never wait on it) until a launch starts it again.
          this.#failure = error;
          this.#listening = false;
          rmSync(this.socketPath, { force: true });
        },
      });
      this.#listener = listener;
      // A failed start may be retried by the next launch.
      listener.then(
        () => this.#listening = this.#listener === listener,
        () => {
          if (this.#listener === listener) this.#listener = undefined;
        },
      );
    }
    return this.#listener.then(() => {});
  }

  /** True once it listens (until it is closed, or an error stops it). */
  get listening(): boolean {
    return this.#listening && !this.#closed && this.#failure === undefined;
  }

  /** Registers a launch's allow-list; returns the token its command presents. */
  register(list: SandboxNetworkAllowList): string {
    const token = crypto.randomUUID().replaceAll("-", "");
    this.#launches.set(token, { list, refused: [] });
    return token;
  }

  /** The destinations refused to the launch of `token` so far. */
  refused(token: string): string[] {
    return [...(this.#launches.get(token)?.refused ?? [])];
  }

  /** Forgets a launch: its token opens nothing any more. */
  unregister(token: string): void {
    this.#launches.delete(token);
  }

  /** Its state now. */
  async state(): Promise<ProxyState> {
    const listener = await this.#listener?.catch(() => undefined);
    const state: ProxyState = {
      listening: listener !== undefined && !this.#closed && this.#failure === undefined,
      socketPath: this.socketPath,
      launches: this.#launches.size,
      connections: listener?.connections ?? 0,
    };
    if (this.#failure !== undefined && !this.#closed) {
      state.error = `it stopped listening after an error (${
        messageOf(this.#failure)
      }); the next command with an allow-list starts it again`;
    }
    return state;
  }

  /** Stops listening, drops every connection and removes the socket. */
  async close(): Promise<void> {
    this.#closed = true;
    const listeners = await Promise.all(
      [this.#listener, ...this.#stopped].map((listener) => listener?.catch(() => undefined)),
    );
    await Promise.all(listeners.map((listener) => listener?.close()));
    this.#launches.clear();
    rmSync(this.socketPath, { force: true });
  }

  #accept(socket: NetSocket): void {
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    socket.on("error", () => socket.destroy());
    // Bytes received and not yet used; a step reads them from the start.
    let buffered: Uint8Array = new Uint8Array(0);
    let busy = false;
    const finish: Finish = (target, used) => {
      step = undefined;
      socket.off("data", onData);
      socket.setTimeout(0);
      // What arrived while the destination was being reached goes first.
      const rest = buffered.subarray(used);
      if (rest.length > 0) target.write(rest);
      splice(socket, target);
      socket.resume();
    };
    let step: Step | undefined = (bytes) => {
      step = bytes[0] === 5 ? this.#socks(socket, finish) : this.#http(socket, finish);
      return Promise.resolve(0);
    };
    const onData = async (chunk: Uint8Array) => {
      buffered = concat(buffered, chunk);
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
  }

  /** The HTTP side: one request head, then a tunnel or a forwarded request. */
  #http(
    socket: NetSocket,
    finish: Finish,
  ): Step {
    return async (bytes) => {
      const request = parseHttpHead(bytes);
      if (request === undefined) return "wait";
      const record = request.credential === undefined
        ? undefined
        : this.#launches.get(request.credential);
      if (record === undefined) {
        respond(
          socket,
          407,
          "Proxy Authentication Required",
          "shellseam sandbox proxy: this proxy serves the commands of one executor; use the proxy URL in HTTP_PROXY",
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
      } else {
        opened.write(request.forwardHead);
      }
      finish(opened, request.length);
      return "done";
    };
  }

  /**
   * The SOCKS5 side: greeting, username/password, then `CONNECT`. Malformed
   * input is answered in the stage's own reply: no acceptable method, an
   * RFC 1929 failure, or a SOCKS5 failure reply.
   */
  #socks(
    socket: NetSocket,
    finish: Finish,
  ): Step {
    let record: LaunchRecord | undefined;
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
        record = this.#launches.get(auth.password);
        if (record === undefined) {
          socket.end(new Uint8Array([1, 1]));
          return "done";
        }
        socket.write(new Uint8Array([1, 0]));
        stage = "request";
        return auth.length;
      }
      const request = parseSocksRequest(bytes);
      if (request === undefined || record === undefined) return "wait";
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
    respond(
      socket,
      status,
      status === 431 ? "Request Header Fields Too Large" : "Bad Request",
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

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return new Uint8Array(b);
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
