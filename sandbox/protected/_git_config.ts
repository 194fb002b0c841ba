import { dirname, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import { existingRealpath } from "../../engine/mod.ts";
import { readPointer } from "./_read_pointer.ts";
import { shapeOf } from "./_shape.ts";

/** The most bytes of a repository's `config` that are read for `core.hooksPath`. */
const CONFIG_BYTES = 256 * 1024;

/**
 * How deep git follows includes (a deeper one stops git with an error,
 * before it reads any config): includes are followed as far, and no
 * further.
 */
const INCLUDE_DEPTH = 10;

/** One setting of a git config file, with the folder of the file it is in. */
interface ConfigSetting {
  /** The section, lower case (`core`, `includeif`). */
  section: string;
  /** The subsection as written (`[includeIf "gitdir:/x/"]`), if any. */
  subsection: string | undefined;
  /** The key, lower case. */
  key: string;
  /** The value: comments and quotes removed, escapes undone. */
  value: string;
  /** The (canonical) folder of the file it was read from: where its relative paths start. */
  dir: string;
}

/**
 * What git reads for the repository whose `.git` is `location`, beyond the
 * repository's own files:
 *
 * 1. The user's global and the system config files (see
 *    {@linkcode globalGitConfigFiles}).
 * 2. Every file those and the repository's `config`/`config.worktree`
 *    include (`include.path`, `includeIf.<condition>.path` whatever the
 *    condition; includes of includes too, as deep as git goes).
 * 3. Where `core.hooksPath` may send its hooks: every value set in any of
 *    them, whichever wins (an `includeIf` condition can change). An absolute
 *    path is taken as it is, a relative one from the working tree as git
 *    does, and `~/` from `HOME`.
 */
export interface RepositoryGitConfig {
  /** The folders `core.hooksPath` names. */
  hooksPaths: string[];
  /** Every config file git may read besides the repository's own (absolute; existing or not). */
  files: string[];
}

/**
 * The config git reads for the repository whose `.git` is `location` (see
 * {@linkcode RepositoryGitConfig}), read by our own parser: git is never run.
 * `global` is the expansion of the global config files, when known;
 * `expand` expands the repository's own (a cache may keep it), and
 * `absent` may tell a missing file without looking it up. `resolved` says
 * that `location` is a directory (not a symlink) in a canonical folder, as
 * a walk that found it there knows: it is not resolved again.
 */
export function repositoryGitConfig(
  location: string,
  global: ExpandedConfig = expandedConfig(globalGitConfigFiles()),
  expand: (files: readonly string[]) => ExpandedConfig = expandedConfig,
  absent: (path: string) => boolean = () => false,
  resolved = false,
): RepositoryGitConfig {
  const own = expand(repositoryConfigFiles(location, absent, resolved));
  const hooksPaths: string[] = [];
  for (const { section, subsection, key, value } of [...global.settings, ...own.settings]) {
    if (section !== "core" || subsection !== undefined || key !== "hookspath" || value === "") {
      continue;
    }
    const path = value.startsWith("~/") ? homePath(value) : resolve(dirname(location), value);
    if (path !== undefined && !hooksPaths.includes(path)) hooksPaths.push(path);
  }
  const files = [...global.files, ...global.included, ...own.included];
  return { hooksPaths, files: [...new Set(files)] };
}

/**
 * The global and system config files the user's git reads wherever it runs
 * (existing or not): `/etc/gitconfig`, `$GIT_CONFIG_GLOBAL`,
 * `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config` without it) and
 * `~/.gitconfig`, as this process's environment names them.
 */
export function globalGitConfigFiles(): string[] {
  const { GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME, HOME } = process.env;
  const files = ["/etc/gitconfig"];
  if (GIT_CONFIG_GLOBAL && isAbsolute(GIT_CONFIG_GLOBAL)) files.push(GIT_CONFIG_GLOBAL);
  const xdg = XDG_CONFIG_HOME && isAbsolute(XDG_CONFIG_HOME)
    ? XDG_CONFIG_HOME
    : HOME
    ? join(HOME, ".config")
    : undefined;
  if (xdg !== undefined) files.push(join(xdg, "git", "config"));
  if (HOME) files.push(join(HOME, ".gitconfig"));
  return files;
}

/** `~/<rest>` from `HOME`, or undefined without one. */
function homePath(value: string): string | undefined {
  const home = process.env.HOME;
  return home ? join(home, value.slice(2)) : undefined;
}

/** Config files read in order, with what they include in place. */
export interface ExpandedConfig {
  /** The files read first (given, existing or not). */
  files: string[];
  /** Every file an include named, in the order met (existing or not, each once). */
  included: string[];
  /** Every setting, an included file's where its include stands. */
  settings: ConfigSetting[];
}

/**
 * The settings of the config `files`, in order, each include followed where
 * it stands (includes of includes too, up to git's depth; a file already
 * being read is not read again, so a cycle ends).
 */
export function expandedConfig(files: readonly string[]): ExpandedConfig {
  const out: ExpandedConfig = { files: [...files], included: [], settings: [] };
  const read = (file: string, depth: number, reading: Set<string>) => {
    const real = existingRealpath(file);
    if (real === undefined || reading.has(real)) return;
    const text = readPointer(real, CONFIG_BYTES);
    if (text === undefined) return;
    reading.add(real);
    for (const setting of configSettings(text, dirname(real))) {
      out.settings.push(setting);
      const include = setting.key === "path" && setting.value !== "" &&
        (setting.section === "include" ||
          (setting.section === "includeif" && setting.subsection !== undefined));
      if (!include) continue;
      const named = setting.value.startsWith("~/")
        ? homePath(setting.value)
        : resolve(setting.dir, setting.value);
      if (named === undefined) continue;
      if (!out.included.includes(named)) out.included.push(named);
      if (depth < INCLUDE_DEPTH) read(named, depth + 1, reading);
    }
    reading.delete(real);
  };
  for (const file of files) read(file, 0, new Set());
  return out;
}

/**
 * The config files of the repository whose `.git` is `location` (`config`
 * and `config.worktree`, a linked worktree's main repository's first);
 * `absent` may tell a missing `commondir` without looking it up; with
 * `resolved`, `location` is a directory in a canonical folder (see
 * {@linkcode repositoryGitConfig}).
 */
function repositoryConfigFiles(
  location: string,
  absent: (path: string) => boolean,
  resolved: boolean,
): string[] {
  const dirs: string[] = [];
  const gitdir = resolved ? location : existingRealpath(location);
  if (gitdir === undefined) return [];
  if (resolved || shapeOf(gitdir).kind === "directory") dirs.push(gitdir);
  else {
    const named = /^gitdir:\s*(.+)$/m.exec(readPointer(gitdir) ?? "")?.[1]?.trim();
    if (named) dirs.push(resolve(dirname(location), named));
  }
  const pointer = dirs[0] && join(dirs[0], "commondir");
  const common = pointer && !absent(pointer) && readPointer(pointer)?.split("\n")[0]?.trim();
  if (common) dirs.unshift(resolve(dirs[0]!, common));
  return dirs.flatMap((dir) => [join(dir, "config"), join(dir, "config.worktree")]);
}

/**
 * The last value of `section.key` (both lower case, no subsection) in the
 * text of a git config file.
 */
export function configValue(text: string, section: string, key: string): string | undefined {
  return configSettings(text, "/").findLast((setting) =>
    setting.section === section && setting.subsection === undefined && setting.key === key
  )?.value;
}

/**
 * The settings of the text of a git config file read from `dir`, in order:
 * comments and quotes removed, `\\`, `\"`, `\t` and `\n` unescaped, a value
 * whose line ends in `\` continued on the next; a key without `=` (a
 * boolean) has the value "true".
 */
function configSettings(text: string, dir: string): ConfigSetting[] {
  let section = "";
  let subsection: string | undefined;
  const settings: ConfigSetting[] = [];
  const lines = text.split("\n");
  for (let at = 0; at < lines.length; at++) {
    let line = lines[at]!.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      subsection = header[2]?.replace(/\\(.)/g, "$1");
      line = header[3]!.trim();
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry || section === "") continue;
    let value = "";
    let quoted = false;
    let rest = entry[2] ?? "";
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i]!;
      if (c === "\\" && i + 1 === rest.length && at + 1 < lines.length) {
        // A backslash ending the line: the value goes on in the next one.
        rest += lines[++at]!;
      } else if (c === "\\" && i + 1 < rest.length) {
        const next = rest[++i]!;
        value += next === "t" ? "\t" : next === "n" ? "\n" : next;
      } else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === "#" || c === ";")) break;
      else value += c;
    }
    settings.push({
      section,
      subsection,
      key: entry[1]!.toLowerCase(),
      value: entry[2] === undefined ? "true" : value.trim(),
      dir,
    });
  }
  return settings;
}
