import { statSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { fileState } from "../../runtime/mod.ts";
import { type ExpandedConfig, expandedConfig } from "./_git_config.ts";
import { type FolderListings, SETTLED_MS } from "./_listings.ts";

/** At most this many expansions are kept (one a repository, and the global one); past it, all are dropped. */
const MAX_KEPT = 1024;

interface Kept {
  /** The state of each file the expansion read or looked for, in order. */
  stamps: string[];
  config: ExpandedConfig;
}

/**
 * The state of the file at `path` (followed, as git reads it): its inode,
 * times and size, or "absent"; undefined when it cannot be told, or when it
 * changed too recently for its times to tell the next change apart.
 */
function settledStamp(path: string, now: number, listings: FolderListings): string | undefined {
  // A file in a folder its parent's listing lacks (`~/.config/git/config`
  // with no `~/.config/git`) is told absent with no failed system call.
  // The folder first: looking into a missing one fails.
  if (listings.absent(dirname(path)) || listings.absent(path)) return "absent";
  let stat;
  try {
    // A regular file's `lstat` is its `stat`, and the runtime's own costs half
    // of `node:fs`'s under Deno (a repository's config is one a launch); a
    // symlink (or nothing) is followed as git follows it.
    stat = fileState(path) ?? statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (stat === undefined) return "absent";
  if (now - Math.max(stat.mtimeMs, stat.ctimeMs) <= SETTLED_MS) return undefined;
  return `${stat.dev}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}`;
}

/**
 * Git config files expanded (see {@linkcode expandedConfig}), kept from call
 * to call and parsed again only when one of the files read or looked for
 * (an include that did not exist is one) changed: another inode, other
 * times or size, or one that appeared or went.
 */
export class GitConfigs {
  readonly #kept = new Map<string, Kept>();
  readonly #listings: FolderListings;
  #parses = 0;

  /** `listings` tells a missing file from its folder's listing. */
  constructor(listings: FolderListings) {
    this.#listings = listings;
  }

  /** How many expansions were parsed so far (one reused is not counted). */
  get parses(): number {
    return this.#parses;
  }

  /** The expansion of `files`, parsed again only when one of its files changed. */
  expanded(files: readonly string[]): ExpandedConfig {
    // `~/` in an include is read from HOME.
    const key = JSON.stringify([process.env.HOME ?? "", ...files]);
    const now = Date.now();
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      const paths = [...kept.config.files, ...kept.config.included];
      if (paths.every((path, at) => settledStamp(path, now, this.#listings) === kept.stamps[at])) {
        return kept.config;
      }
      this.#kept.delete(key);
    }
    this.#parses++;
    const config = expandedConfig(files);
    // Each state is taken after the read but must have stood still since
    // before it began (`now`), so the parse saw it; a file removed meanwhile
    // leaves its settings kept until the next change, which only protects more.
    const stamps = [...config.files, ...config.included].map((path) =>
      settledStamp(path, now, this.#listings)
    );
    if (stamps.every((stamp) => stamp !== undefined)) {
      if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
      this.#kept.set(key, { stamps: stamps as string[], config });
    }
    return config;
  }
}
