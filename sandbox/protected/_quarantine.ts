import { chmodSync, mkdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { runtime } from "../../runtime/mod.ts";
import { shapeOf } from "./_shape.ts";

/**
 * The executor's quarantine as one call's sweeps use it: where what a
 * command planted at a protected location is moved.
 */
export class Quarantine {
  readonly #dir: () => string;
  #moved = 0;

  /** `dir` gives the directory (out of every writable root) that receives what a command planted. */
  constructor(dir: () => string) {
    this.#dir = dir;
  }

  /**
   * Renames `path` (never following it: a planted symlink moves as the link)
   * into the quarantine; across file systems, to an inert name beside it.
   * Returns where it went, or null when it could not be moved.
   */
  move(path: string): string | null {
    // Unique across the calls that share the quarantine: a rename replaces a file.
    const name = `${crypto.randomUUID().slice(0, 8)}-${++this.#moved}-${basename(path)}`;
    try {
      const dir = this.#dir();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const to = join(dir, name);
      renameSync(path, to);
      return to;
    } catch (error) {
      if ((error as { code?: string }).code !== "EXDEV") return null;
    }
    const beside = `${path}.shellseam-quarantine-${crypto.randomUUID().slice(0, 8)}`;
    try {
      renameSync(path, beside);
      return beside;
    } catch {
      return null;
    }
  }
}

/**
 * Gives the owner every right on `dir` (a directory a command made and left
 * unreadable) and, past it, on the directories below it up to `entries`
 * entries: in the quarantine, where no confined command can write, the tree
 * holds still, and disposal must be able to remove it.
 */
export function openUp(dir: string, entries: number): void {
  const stack = [dir];
  for (let seen = 0; stack.length > 0;) {
    const current = stack.pop()!;
    try {
      if (shapeOf(current).kind !== "directory") continue;
      chmodSync(current, 0o700);
      if (seen >= entries) continue;
      const listing = runtime.readDirectory(current);
      seen += listing.length;
      for (const entry of listing) if (entry.isDirectory) stack.push(join(current, entry.name));
    } catch {
      // What cannot be opened up stays; disposal says so.
    }
  }
}
