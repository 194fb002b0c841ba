import { resolve } from "node:path";
import type { SandboxMode, SandboxNetwork } from "@shellseam/bash/seam";
import { SandboxBashExecutor } from "@shellseam/bash/sandbox";

/** Where and how the CLI's commands run. */
export interface CliSandboxOptions {
  /** The confined mode of every command. */
  mode: SandboxMode;
  /** The network policy. */
  network: SandboxNetwork;
  /** The workspace folder, relative to the folder `cliExecutor` is given (default: that folder). */
  workspace?: string | undefined;
}

/**
 * A sandboxing executor over the workspace (a relative one starts from
 * `cwd`); throws `BashConfigError` for a bad workspace.
 */
export function cliExecutor(options: CliSandboxOptions, cwd: string): SandboxBashExecutor {
  return new SandboxBashExecutor({
    workspaceRoot: resolve(cwd, options.workspace ?? "."),
    defaultMode: options.mode,
    network: options.network,
  });
}
