/**
 * Sockets for the sandbox's network proxy: a Unix socket or loopback TCP server, TCP
 * connections out and name resolution. `node:net` and `node:dns` behave
 * the same under Deno and Node for these calls, so one implementation
 * serves both runtimes, and it lives here alone.
 *
 * @module
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { lookup } from "node:dns/promises";

/** A connected stream socket (a `node:net` socket under either runtime). */
export type NetSocket = Socket;

/** A listening server. */
export interface NetListener {
  /** Stops accepting and destroys every connection it accepted. */
  close(): Promise<void>;
  /** How many accepted connections are open. */
  readonly connections: number;
}

/** What a listener hands its connections and its later errors to (see {@linkcode listenUnix}). */
export interface ListenHandlers {
  onConnection: (socket: NetSocket) => void;
  onError: (error: Error) => void;
}

/**
 * Listens on the Unix socket `path` (which must not exist) and hands every
 * connection to `onConnection`. Rejects when it cannot listen. An error of
 * the server after that (an accept that failed: `EMFILE`, ...) stops it, so
 * no client waits on a server that no longer answers (connections it
 * accepted stay open), and is handed to `onError`. `server` is the server to
 * use (tests give one whose errors they raise).
 */
export async function listenUnix(
  path: string,
  handlers: ListenHandlers,
  server: Server = createServer(),
): Promise<NetListener> {
  return await listenOn(server, { path }, handlers);
}

/** A listener on a TCP port of 127.0.0.1. */
export interface LoopbackListener extends NetListener {
  /** The port it listens on. */
  readonly port: number;
}

/**
 * Listens on a free TCP port of 127.0.0.1 (never `localhost`, which may
 * resolve to `::1`), as {@linkcode listenUnix} does on a socket: its port,
 * known once it resolves.
 */
export async function listenLoopback(
  handlers: ListenHandlers,
  server: Server = createServer(),
): Promise<LoopbackListener> {
  const listener = await listenOn(server, { port: 0, host: "127.0.0.1" }, handlers);
  const address = server.address();
  if (address === null || typeof address !== "object") {
    await listener.close();
    throw new Error("the loopback listener has no port");
  }
  const { port } = address;
  return {
    port,
    get connections() {
      return listener.connections;
    },
    close: () => listener.close(),
  };
}

/** `server` listening at `where` (see {@linkcode listenUnix}). */
function listenOn(
  server: Server,
  where: { path: string } | { port: number; host: string },
  handlers: ListenHandlers,
): Promise<NetListener> {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    handlers.onConnection(socket);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => {
      server.off("error", reject);
      server.on("error", (error) => {
        server.close();
        handlers.onError(error);
      });
      resolve({
        get connections() {
          return open.size;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of open) socket.destroy();
            // A server an error stopped is closed already: the callback still runs.
            server.close(() => done());
          }),
      });
    });
  });
}

/** Connects to `address:port` (an IP address); rejects after `timeoutMs`. */
export function connectTcp(address: string, port: number, timeoutMs: number): Promise<NetSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection to ${address} port ${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve(socket);
    });
  });
}

/** The addresses `name` resolves to on this machine (the system resolver). */
export async function resolveHost(name: string): Promise<string[]> {
  const found = await lookup(name, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

/**
 * Joins two sockets both ways; when either ends or fails, both are
 * destroyed once their pending bytes are written.
 */
export function splice(a: NetSocket, b: NetSocket): void {
  const close = () => {
    a.destroy();
    b.destroy();
  };
  for (const [from, to] of [[a, b], [b, a]] as const) {
    from.on("error", close);
    from.on("close", close);
    from.pipe(to);
  }
}
