/**
 * `shellseam`: the command line of shellseam. `shellseam run` runs one
 * command confined, `shellseam doctor` says what the sandbox enforces here,
 * `shellseam mcp` serves the bash tools to any MCP client over stdio, and
 * `shellseam demo` runs a short tour.
 *
 * @example
 * ```ts
 * import { main } from "@shellseam/cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(await main(["--no-such-flag"]), 2);
 * ```
 *
 * @module
 */
import { realpathSync } from "node:fs";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { BashError } from "@shellseam/bash/seam";
import { type CliIo, processIo } from "./_io.ts";
import { UsageError } from "./_usage_error.ts";
import { CLI_VERSION } from "./_version.ts";

export type { CliIo, CliStream } from "./_io.ts";

/** The usage of `shellseam`. */
export const USAGE: string = `Usage: shellseam COMMAND [options]

Commands:
  run -- COMMAND...   run one command through the sandbox and show what a model would see
  doctor              say what the sandbox enforces on this machine
  mcp                 serve the bash tools to an MCP client over stdio
  demo                a short tour of what shellseam does

Run "shellseam COMMAND --help" for a command's options, "shellseam --version"
for the version.
`;

/** A command's entry point: `args` after the command's name. */
type Command = (args: string[], io: CliIo) => Promise<number>;

/**
 * Each command, loaded when it is run: `shellseam --version` or
 * `shellseam run` does not load the MCP server, nor `shellseam mcp` the demo.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./run.ts")).runCommand,
  doctor: async () => (await import("./doctor.ts")).doctorCommand,
  mcp: async () => {
    const { mcpCommand } = await import("./mcp.ts");
    return (args, io) => mcpCommand(args, undefined, io);
  },
  demo: async () => (await import("./demo.ts")).demoCommand,
};

/**
 * Runs the command line `args` (without the program name) and returns its
 * exit code: a usage error prints one line and the usage on stderr and
 * returns 2; a `BashError` (a bad workspace, no sandbox) prints its message
 * and returns 2 for bad configuration, 1 otherwise. It writes to `io`'s
 * streams and resolves relative paths from `io.cwd` (the process's own by
 * default).
 */
export async function main(args: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === "--help" || name === "-h" || name === "help") {
      io.stdout.write(USAGE);
      return 0;
    }
    if (name === "--version" || name === "-V") {
      io.stdout.write(`shellseam ${CLI_VERSION}\n`);
      return 0;
    }
    const load = name === undefined ? undefined : COMMANDS[name];
    if (load === undefined) {
      throw new UsageError(
        name === undefined ? "a command is required" : `unknown command "${name}"`,
        USAGE,
      );
    }
    const command = await load();
    return await command(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`shellseam: ${error.message}\n\n${error.usage}`);
      return 2;
    }
    if (error instanceof BashError) {
      io.stderr.write(`shellseam: ${error.message}\n`);
      return error.code === "config" ? 2 : 1;
    }
    throw error;
  }
}

/**
 * True when this module is the program being run: `import.meta.main` where
 * the runtime has it (Deno, Node 24.2+), else the script Node was given (a
 * bin link resolved to this file).
 */
function runAsProgram(): boolean {
  if (typeof import.meta.main === "boolean") return import.meta.main;
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(realpathSync(script)).href === import.meta.url;
}

// No top-level await, so that `require("@shellseam/cli")` works on Node (a
// module with one cannot be required); a rejection still ends the program.
if (runAsProgram()) main(process.argv.slice(2)).then((code) => process.exit(code));
