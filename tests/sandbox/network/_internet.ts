/**
 * A stand-in for the internet in tests: one HTTP server on 127.0.0.1 that
 * answers for every name (it echoes the Host header and path), and a fake
 * resolver giving the proxy the names the tests use.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The names the fake resolver knows, and where they lead. */
export const FAKE_DNS: Readonly<Record<string, string[]>> = {
  "allowed.test": ["127.0.0.1"],
  "also.allowed.test": ["127.0.0.1"],
  "evil.test": ["127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
};

/** Resolves the names of {@linkcode FAKE_DNS}; any other name fails as DNS does. */
export function fakeResolve(host: string): Promise<string[]> {
  const found = FAKE_DNS[host];
  return found === undefined
    ? Promise.reject(new Error(`getaddrinfo ENOTFOUND ${host}`))
    : Promise.resolve([...found]);
}

/** A running stand-in server. */
export interface Internet extends AsyncDisposable {
  port: number;
  /** The Host headers it was asked for, in order. */
  hosts: string[];
}

/**
 * Starts the stand-in: `GET /path` answers `hello <host> <path>`; `handler`
 * may answer a request itself (return true when it did).
 */
export async function startInternet(
  handler?: (
    request: import("node:http").IncomingMessage,
    response: import("node:http").ServerResponse,
  ) => boolean,
): Promise<Internet> {
  const hosts: string[] = [];
  const server: Server = createServer((request, response) => {
    hosts.push(request.headers.host ?? "");
    if (handler?.(request, response)) return;
    response.setHeader("content-type", "text/plain");
    response.end(`hello ${request.headers.host} ${request.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hosts,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
