import { resolve } from "node:path";
import { formatDoctorReport, shellseamDoctor } from "@shellseam/bash/sandbox";
import { modeFlag, networkFlag, parseFlags } from "./_args.ts";
import { UsageError } from "./_usage_error.ts";
import type { CliIo } from "./_io.ts";

/** The usage of `shellseam doctor`. */
export const DOCTOR_USAGE: string = `Usage: shellseam doctor [options]

Answers "is my sandbox real?": the platform, each sandbox backend (works or
not, and why), the Landlock ABI, what Seatbelt's self-probe saw refused
(macOS), and what the backend that would confine a command over the
workspace enforces and leaves open; the runtime's permissions in effect
(Deno's, scope by scope); then where spill files live (the filesystem,
RAM-backed or not, and the free space).

Options:
  --workspace DIR    the workspace the facts are about (default: the current directory)
  --mode MODE        read-only | workspace-write (default)
  --network NET      deny (default) | allow
  --spill-dir DIR    the folder spill files would live in (default: the OS temp directory)
  --json             print the report as JSON
  -h, --help         show this help
`;

/**
 * `shellseam doctor`, writing to `io`: returns the exit code (0 when a
 * backend confines commands here, else 1).
 */
export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, {
    workspace: { type: "string" },
    mode: { type: "string" },
    network: { type: "string" },
    "spill-dir": { type: "string" },
    json: { type: "boolean" },
  }, DOCTOR_USAGE);
  if (values.help) {
    io.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  const mode = modeFlag(values.mode, "workspace-write", DOCTOR_USAGE);
  if (mode === "danger-full-access") {
    throw new UsageError(
      "--mode must be a confined mode: read-only or workspace-write",
      DOCTOR_USAGE,
    );
  }
  const network = networkFlag(values.network, DOCTOR_USAGE);
  if (typeof network === "object") {
    throw new UsageError(
      `--network must be deny or allow (the doctor checks allow-lists itself); got "${values.network}"`,
      DOCTOR_USAGE,
    );
  }
  const report = await shellseamDoctor({
    workspaceRoot: resolve(io.cwd, values.workspace ?? "."),
    mode,
    network,
    ...(values["spill-dir"] === undefined
      ? {}
      : { spillDir: resolve(io.cwd, values["spill-dir"]) }),
  });
  io.stdout.write(
    values.json ? JSON.stringify(report, null, 2) + "\n" : formatDoctorReport(report),
  );
  return report.selected === null ? 1 : 0;
}
