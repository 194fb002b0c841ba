import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BashLiveOutputChunk, BashRunResult, CollectedOutput } from "@shellseam/bash/seam";
import { shellQuote } from "@shellseam/bash/seam";
import { renderRunResult } from "@shellseam/bash/tool";
import { modeFlag, networkFlag, parseFlags, SANDBOX_FLAGS } from "./_args.ts";
import { UsageError } from "./_usage_error.ts";
import { cliExecutor } from "./_executor.ts";
import type { CliIo } from "./_io.ts";
import { endsLine, StatusLine } from "./_status_line.ts";
import { styleFor } from "./_style.ts";

/** The usage of `shellseam run`. */
export const RUN_USAGE: string = `Usage: shellseam run [options] -- PROGRAM [ARG...]
       shellseam run [options] -- 'COMMAND LINE'
       shellseam run [options] -c 'COMMAND LINE'

Runs one command through the sandboxing executor. Words after -- run as they
are: the first is the program, the others its arguments (no expansion, no
globbing, no redirection). A single string after --, or the string after -c,
is a bash command line.

The command's output streams as it arrives, stdout to stdout and stderr to
stderr, byte for byte (binary output included); then the lines a model would
see after it (the markers, less those naming spill files: the output was
all written) go to stderr, so stdout carries the command's output alone. Exits
with the command's exit code (124 on a timeout, 128 + N when signal N ended it,
N as numbered on this machine: Linux's numbers on Linux).

Options:
  -c, --command LINE a bash command line to run (instead of words after --)
  --mode MODE        read-only | workspace-write (default) | danger-full-access
  --network NET      deny (default) | allow | allow:HOST[,HOST...] (an allow-list
                     reached through the executor's proxy; *.domain wildcards)
  --workspace DIR    the workspace (default: the current directory)
  --workdir DIR      where the command runs (default: the workspace)
  --timeout MS       the wall clock in milliseconds (default 120000)
  --json             print the structured result as JSON on stdout instead (its
                     spill files are copied to a folder that stays, named on
                     stderr)
  -h, --help         show this help

With stderr a terminal, a command that runs longer than a second shows a
status line there; colours only on a terminal, and never with NO_COLOR set.
`;

/**
 * The exit code a shell would report for `result`: 124 for a timeout, the
 * exit code, or 128 + the number of the signal that ended it (`undefined`
 * for a signal this platform has no number for). Signal numbers differ
 * between platforms: this machine's table is used, which is right because
 * the commands ran here (Linux's numbers on Linux, where the sandbox runs).
 */
export function exitCodeOf(result: BashRunResult): number | undefined {
  if (result.timedOut || result.idledOut) return 124;
  if (result.exitCode !== null) return result.exitCode;
  const signals: Record<string, number | undefined> = constants.signals;
  const number = signals[result.signal ?? ""];
  return number === undefined ? undefined : 128 + number;
}

/** The bash command line that `run` was given: words quoted, or one string as it is. */
function commandLineOf(command: string | undefined, words: string[]): string {
  if (command !== undefined) {
    if (words.length > 0) {
      throw new UsageError(
        `-c takes the whole command line; drop the words after it (${
          JSON.stringify(words[0])
        }...) or put them in the string`,
        RUN_USAGE,
      );
    }
    if (command.trim() === "") {
      throw new UsageError("the command line after -c is empty", RUN_USAGE);
    }
    return command;
  }
  if (words.length === 0) {
    throw new UsageError("a command is required after -- (or -c 'COMMAND LINE')", RUN_USAGE);
  }
  return words.length === 1 ? words[0]! : shellQuote(words);
}

/** `shellseam run`, writing to `io`: returns the exit code. */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    args,
    {
      ...SANDBOX_FLAGS,
      command: { type: "string", short: "c" },
      workdir: { type: "string" },
      timeout: { type: "string" },
      json: { type: "boolean" },
    },
    RUN_USAGE,
    true,
  );
  if (values.help) {
    io.stdout.write(RUN_USAGE);
    return 0;
  }
  const command = commandLineOf(values.command, positionals);
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError(
      `--timeout must be a positive whole number of milliseconds; got "${values.timeout}"`,
      RUN_USAGE,
    );
  }
  const mode = modeFlag(values.mode, "workspace-write", RUN_USAGE);
  const network = networkFlag(values.network, RUN_USAGE);
  await using executor = cliExecutor({ mode, network, workspace: values.workspace }, io.cwd);
  using status = new StatusLine(
    io.stderr,
    (seconds) => `shellseam: running for ${seconds} s: ${command}`,
  );
  // Whether the last text on stderr ended its line, so that the markers start on one of their own.
  let stderrEndsLine = true;
  const result = await executor.run({
    command,
    ...(values.workdir === undefined ? {} : { workdir: resolve(io.cwd, values.workdir) }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(values.json ? {} : {
      // The bytes as the command wrote them, so that binary output is copied exactly.
      onOutput: (chunk: BashLiveOutputChunk) => {
        if (chunk.bytes.length === 0) return;
        status.write(io[chunk.stream], chunk.bytes);
        if (chunk.stream === "stderr") stderrEndsLine = endsLine(chunk.bytes);
      },
    }),
  });
  const code = exitCodeOf(result);
  if (values.json) {
    status.write(io.stdout, JSON.stringify(keepSpillFiles(result, io), null, 2) + "\n");
  } else {
    const style = styleFor(io.stderr);
    const failed = code !== 0;
    const markers = markerLines(result).split("\n").map((line) =>
      failed ? style.red(line) : style.dim(line)
    ).join("\n");
    // On a terminal, stdout's last line may be unfinished too, and the markers would join it.
    const newline = stderrEndsLine && status.atLineStart ? "" : "\n";
    status.write(io.stderr, newline + markers + "\n");
  }
  if (code === undefined) {
    io.stderr.write(
      `shellseam: the command was ended by signal "${result.signal}", which has no number on this platform; exiting 128\n`,
    );
    return 128;
  }
  return code;
}

/**
 * The lines the model would see after the output, less those about where
 * the whole output is: `run` wrote every byte of both streams as they came,
 * and the executor deletes its spill files when `run` exits, so it names
 * none (no `[binary output ...; saved to PATH]` nor `[output truncated ...;
 * full output: PATH]`), nor a count of bytes that were not UTF-8 (they
 * were written as they are). A stream cut short is still said.
 */
function markerLines(result: BashRunResult): string {
  const silent = (output: CollectedOutput): CollectedOutput => ({
    text: "",
    truncated: false,
    totalBytes: output.totalBytes,
    omittedBytes: 0,
    invalidUtf8Bytes: 0,
    spillComplete: false,
    ...(output.cut === undefined ? {} : { cut: output.cut }),
  });
  const rendered = renderRunResult(
    { ...result, stdout: silent(result.stdout), stderr: silent(result.stderr) },
    { runInBackground: false },
  ).text;
  return rendered.startsWith(`${NO_OUTPUT}\n`) ? rendered.slice(NO_OUTPUT.length + 1) : rendered;
}

const NO_OUTPUT = "(no output)";

/**
 * `result` with its spill files copied out of the executor's folder (which
 * is deleted when `run` exits) into a new private folder that stays, and
 * their paths changed to the copies; `io`'s stderr says where the folder is.
 * A result with no spill file comes back as it is.
 */
function keepSpillFiles(result: BashRunResult, io: CliIo): BashRunResult {
  const streams = (["stdout", "stderr"] as const).filter((name) => {
    const path = result[name].spillPath;
    return path !== undefined && existsSync(path);
  });
  if (streams.length === 0) return result;
  const folder = mkdtempSync(join(tmpdir(), "shellseam-run-"));
  const kept = { ...result };
  for (const name of streams) {
    const copy = join(folder, `${name}.out`);
    copyFileSync(result[name].spillPath!, copy);
    kept[name] = { ...result[name], spillPath: copy };
  }
  io.stderr.write(
    `shellseam: the whole output is kept in ${folder} (${
      streams.map((name) => `${name}.out`).join(", ")
    }); remove the folder when done\n`,
  );
  return kept;
}
