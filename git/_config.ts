/**
 * The config git reads in a repository (with what it includes), as entries,
 * and what in it refuses a commit.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import process from "node:process";

/**
 * Config keys that name a program git could run while it adds and commits,
 * which no command-line value can switch off without changing what is
 * committed: a repository whose config sets one is refused.
 */
export const REFUSED_KEYS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /^filter\..+\.(clean|smudge|process)$/, what: "a filter driver's program" },
  { pattern: /^hook\..+\.command$/, what: "a configured hook" },
];

/** One entry of the config git reads: its key as git prints it, value, and the file it came from. */
export interface ConfigEntry {
  key: string;
  value: string;
  /** The config file (absolute), or undefined for another origin. */
  origin: string | undefined;
}

/** `git config --list --show-origin --null` output (run in `cwd`) as entries. */
export function parseConfigList(text: string, cwd: string): ConfigEntry[] {
  const parts = text.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const from = parts[i]!;
    const entry = parts[i + 1]!;
    const newline = entry.indexOf("\n");
    entries.push({
      key: newline < 0 ? entry : entry.slice(0, newline),
      value: newline < 0 ? "" : entry.slice(newline + 1),
      origin: from.startsWith("file:") ? resolve(cwd, from.slice("file:".length)) : undefined,
    });
  }
  return entries;
}

/** The file an `include.path` or `includeIf.<condition>.path` entry names, resolved as git does. */
export function includedFile(
  key: string,
  value: string,
  origin: string | undefined,
): string | undefined {
  if (key !== "include.path" && !/^includeif\..*\.path$/.test(key)) return undefined;
  if (value.startsWith("~/")) return join(process.env.HOME ?? "/", value.slice(2));
  return resolve(origin === undefined ? "/" : dirname(origin), value);
}
