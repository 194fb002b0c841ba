import { resolve } from "node:path";
import process from "node:process";
import type { BashOutputChunk, BashRunResult, CollectedOutput } from "@shellseam/bash";
import { renderRunResult } from "@shellseam/bash/tool";
import { modeFlag, networkFlag, parseFlags, SANDBOX_FLAGS, UsageError } from "./_args.ts";
import { cliExecutor } from "./_executor.ts";

/** The usage of `shellseam run`. */
export const RUN_USAGE: string = `Usage: shellseam run [options] -- COMMAND...

Runs one command through the sandboxing executor, streams its output as it
arrives (stdout to stdout, stderr to stderr), then prints the marker lines the
model would see. Exits with the command's exit code (124 on a timeout,
128 + N when signal N ended it).

Options:
  --mode MODE        read-only | workspace-write (default) | danger-full-access
  --network NET      deny (default) | allow | allow:HOST[,HOST...] (an allow-list
                     reached through the executor's proxy; *.domain wildcards)
  --workspace DIR    the workspace (default: the current directory)
  --workdir DIR      where the command runs (default: the workspace)
  --timeout MS       the wall clock in milliseconds (default 120000)
  --json             print the structured result as JSON instead
  -h, --help         show this help
`;

const SIGNAL_NUMBERS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** The exit code a shell would report for `result`. */
export function exitCodeOf(result: BashRunResult): number {
  if (result.timedOut || result.idledOut) return 124;
  if (result.exitCode !== null) return result.exitCode;
  return 128 + (result.signal === null ? 0 : SIGNAL_NUMBERS[result.signal] ?? 0);
}

/** `shellseam run`: returns the exit code. */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    args,
    {
      ...SANDBOX_FLAGS,
      workdir: { type: "string" },
      timeout: { type: "string" },
      json: { type: "boolean" },
    },
    RUN_USAGE,
    true,
  );
  if (values.help) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("a command is required after --", RUN_USAGE);
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError(
      `--timeout must be a positive whole number of milliseconds; got "${values.timeout}"`,
      RUN_USAGE,
    );
  }
  const mode = modeFlag(values.mode, "workspace-write", RUN_USAGE);
  const network = networkFlag(values.network, RUN_USAGE);
  await using executor = cliExecutor({ mode, network, workspace: values.workspace });
  let endsLine = true;
  const result = await executor.run({
    command: positionals.join(" "),
    ...(values.workdir === undefined ? {} : { workdir: resolve(process.cwd(), values.workdir) }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(values.json ? {} : {
      onOutput: (chunk: BashOutputChunk) => {
        process[chunk.stream].write(chunk.text);
        if (chunk.stream === "stdout") endsLine = chunk.text.endsWith("\n");
      },
    }),
  });
  if (values.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  } else {
    process.stdout.write((endsLine ? "" : "\n") + markerLines(result) + "\n");
  }
  return exitCodeOf(result);
}

/** The lines the model would see after the output (which was shown live). */
function markerLines(result: BashRunResult): string {
  const silent = (output: CollectedOutput): CollectedOutput => ({ ...output, text: "" });
  const rendered = renderRunResult(
    { ...result, stdout: silent(result.stdout), stderr: silent(result.stderr) },
    { runInBackground: false },
  ).text;
  return rendered.startsWith(`${NO_OUTPUT}\n`) ? rendered.slice(NO_OUTPUT.length + 1) : rendered;
}

const NO_OUTPUT = "(no output)";
