/**
 * The config git reads in a repository (with what it includes), as entries,
 * and what in it refuses a commit.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { isBeneath } from "../engine/mod.ts";
import { withRealParents } from "./_checked_path.ts";
import { GitCommitError } from "./error.ts";

/**
 * Config keys that name a program git could run while it adds and commits,
 * which no command-line value can switch off without changing what is
 * committed: a repository whose config sets one is refused.
 */
const REFUSED_KEYS: readonly { pattern: RegExp; what: string }[] = [
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

/**
 * Throws a `GitCommitError` when the config (with what it includes) sets a
 * key in {@linkcode REFUSED_KEYS}, or includes a file in `workspace`, which
 * a confined command could rewrite between this check and the commit; each
 * included file elsewhere is given to `hold` (no call that can write it may
 * run until git is done).
 */
export function refuseConfig(
  config: readonly ConfigEntry[],
  workspace: string,
  hold: (paths: string[]) => void,
): void {
  for (const { key, value, origin } of config) {
    const refused = REFUSED_KEYS.find(({ pattern }) => pattern.test(key));
    if (refused) {
      throw new GitCommitError(
        `The repository's config sets "${key}", ${refused.what} git would run while committing; git_commit runs none, so nothing was committed: commit by hand after checking .git/config`,
      );
    }
    const included = includedFile(key, value, origin);
    if (included === undefined) continue;
    if (isBeneath(withRealParents(included), workspace)) {
      throw new GitCommitError(
        `The repository's config includes "${included}" (${key}), which lies in the workspace, where a command could rewrite it while git runs; nothing was committed: move the include out of the workspace, or commit by hand`,
      );
    }
    // In another writable root: no call that can write it may run meanwhile.
    hold([withRealParents(included)]);
  }
}

/**
 * Throws a `GitCommitError` when a path has a `filter` attribute (git-lfs
 * included), read from `git check-attr -z filter` output split at NUL:
 * filters are not run, and no command-line value can switch one off without
 * changing what is committed.
 */
export function refuseFilterAttributes(attributes: readonly string[]): void {
  for (let i = 0; i + 2 < attributes.length; i += 3) {
    const value = attributes[i + 2];
    if (value !== "unspecified" && value !== "unset") {
      throw new GitCommitError(
        `"${
          attributes[i]
        }" has the filter attribute "${value}" (.gitattributes); git_commit runs no filter driver (git-lfs included), so nothing was committed: commit it by hand`,
      );
    }
  }
}
