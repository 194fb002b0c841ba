import { parseArgs } from "node:util";
import { isSandboxMode } from "@shellseam/bash/sandbox";
import type { SandboxMode, SandboxNetwork } from "@shellseam/bash/seam";
import { UsageError } from "./_usage_error.ts";

/** How one flag is read: a string value, or a boolean switch; `short` is its one-letter form. */
export type FlagSpec = Record<string, { type: "string" | "boolean"; short?: string }>;

/** The parsed values of a {@linkcode FlagSpec}. */
export type FlagValues<S extends FlagSpec> = {
  [K in keyof S]?: S[K]["type"] extends "string" ? string : boolean;
};

/**
 * Parses `args` strictly by `spec` (plus `--help`): an unknown flag, a
 * missing value or, unless `positionals` is true, a stray word is a
 * {@linkcode UsageError} carrying `usage`.
 */
export function parseFlags<S extends FlagSpec>(
  args: string[],
  spec: S,
  usage: string,
  positionals = false,
): { values: FlagValues<S> & { help?: boolean }; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args,
      options: { ...spec, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: positionals,
    });
    return {
      values: parsed.values as FlagValues<S> & { help?: boolean },
      positionals: parsed.positionals,
    };
  } catch (error) {
    // Node's texts go on with advice on "--"; the first sentence is the fault.
    const message = (error instanceof Error ? error.message : String(error)).split(". ", 1)[0];
    throw new UsageError(message ?? "", usage);
  }
}

/** The sandbox flags that `run` and `mcp` share. */
export const SANDBOX_FLAGS: {
  mode: { type: "string" };
  network: { type: "string" };
  workspace: { type: "string" };
} = {
  mode: { type: "string" },
  network: { type: "string" },
  workspace: { type: "string" },
};

/** `--mode` checked against the sandbox modes (`fallback` when absent). */
export function modeFlag(
  value: string | undefined,
  fallback: SandboxMode,
  usage: string,
): SandboxMode {
  if (value === undefined) return fallback;
  if (!isSandboxMode(value)) {
    throw new UsageError(
      `--mode must be read-only, workspace-write or danger-full-access; got "${value}"`,
      usage,
    );
  }
  return value;
}

/**
 * `--network` read: `deny` (the default), `allow`, or `allow:HOST[,HOST...]`
 * for an allow-list (its entries are checked by the executor).
 */
export function networkFlag(value: string | undefined, usage: string): SandboxNetwork {
  if (value === undefined || value === "deny" || value === "allow") return value ?? "deny";
  if (value.startsWith("allow:")) {
    const allow = value.slice("allow:".length).split(",").filter((host) => host !== "");
    if (allow.length === 0) {
      throw new UsageError(
        `--network allow: needs at least one host, as in allow:example.com; got "${value}" (use deny for no network)`,
        usage,
      );
    }
    return { allow };
  }
  throw new UsageError(
    `--network must be deny, allow or allow:HOST[,HOST...]; got "${value}"`,
    usage,
  );
}
