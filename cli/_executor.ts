import { resolve } from "node:path";
import process from "node:process";
import type { SandboxMode, SandboxNetwork } from "@shellseam/bash/seam";
import { SandboxBashExecutor } from "@shellseam/bash/sandbox";

/** Where and how the CLI's commands run. */
export interface CliSandboxOptions {
  /** The confined mode of every command. */
  mode: SandboxMode;
  /** The network policy. */
  network: SandboxNetwork;
  /** The workspace folder, relative to the current directory (default: the current directory). */
  workspace?: string | undefined;
}

/** A sandboxing executor over the workspace; throws `BashConfigError` for a bad workspace. */
export function cliExecutor(options: CliSandboxOptions): SandboxBashExecutor {
  return new SandboxBashExecutor({
    workspaceRoot: resolve(process.cwd(), options.workspace ?? "."),
    defaultMode: options.mode,
    network: options.network,
  });
}
