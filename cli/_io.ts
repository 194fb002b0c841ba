import process from "node:process";

/**
 * A stream the command line writes to: what it needs of `process.stdout` and
 * `process.stderr`, which are such streams.
 *
 * @example
 * ```ts
 * import type { CliStream } from "@shellseam/cli";
 * import process from "node:process";
 * import assert from "node:assert/strict";
 *
 * const stream: CliStream = process.stderr;
 * assert.equal(typeof stream.write, "function");
 * ```
 */
export interface CliStream {
  /** Writes text, or bytes as they are. */
  write(chunk: string | Uint8Array): unknown;
  /** Whether it is a terminal (status lines and colours are drawn only there). */
  readonly isTTY?: boolean;
  /** The terminal's width, when it is one. */
  readonly columns?: number;
}

/**
 * Where a run of the command line writes and the folder its relative paths
 * start from: the process's own by default; a test (or a program embedding
 * the CLI) passes its own.
 *
 * @example Capture what `shellseam --version` prints
 * ```ts
 * import { type CliIo, main } from "@shellseam/cli";
 * import assert from "node:assert/strict";
 *
 * let printed = "";
 * const io: CliIo = {
 *   stdout: { write: (chunk) => printed += String(chunk) },
 *   stderr: { write: () => {} },
 *   cwd: "/",
 * };
 * assert.equal(await main(["--version"], io), 0);
 * assert.match(printed, /^shellseam \d+\.\d+\.\d+\n$/);
 * ```
 */
export interface CliIo {
  /** Where a command's output and the command line's answers go. */
  stdout: CliStream;
  /** Where markers, status lines and errors go. */
  stderr: CliStream;
  /** The folder that relative paths (the workspace, the workdir, a rules file) start from. */
  cwd: string;
}

/** The process's own streams and current directory. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() };
}
