/**
 * The paths a commit names, checked before git runs and made relative to
 * the repository's working tree.
 *
 * @module
 */
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { BashConfigError } from "../seam/mod.ts";
import { existingRealpath, isBeneath } from "../engine/mod.ts";
import type { Repository } from "./_repository.ts";

/** `path` checked (in the workspace and the working tree, no option, magic nor .git) and made relative to the working tree. */
export function checkedPath(
  path: unknown,
  cwd: string,
  workspace: string,
  repo: Repository,
): string {
  const refuse = (why: string): never => {
    throw new BashConfigError(
      `Path ${
        JSON.stringify(path)
      } cannot be committed: ${why}; pass paths of files in the repository "${repo.workTree}"`,
    );
  };
  if (typeof path !== "string" || path.trim() === "") return refuse("it is not a non-blank string");
  if (path.includes("\0") || path.includes("\n")) return refuse("it holds NUL or a newline");
  if (path.startsWith("-")) return refuse('it starts with "-" (an option)');
  if (path.startsWith(":")) return refuse('it starts with ":" (pathspec magic)');
  const lexical = resolve(cwd, path);
  // The entry itself is committed as it is (a symlink as a link): resolve its parents only.
  const real = join(withRealParents(dirname(lexical)), basename(lexical));
  for (const candidate of [lexical, real]) {
    if (!isBeneath(candidate, workspace)) {
      return refuse(`it lies outside the workspace "${workspace}"`);
    }
    if (!isBeneath(candidate, repo.workTree)) return refuse("it lies outside the repository");
  }
  const inside = relative(repo.workTree, real);
  if (inside === "") return ".";
  if (inside.split(sep).some((part) => part === ".git")) return refuse("it is in a .git folder");
  return inside;
}

/** `path` with the symlinks of its nearest existing ancestor resolved (it need not exist). */
export function withRealParents(path: string): string {
  const rest: string[] = [];
  for (let dir = path;; dir = dirname(dir)) {
    const real = existingRealpath(dir);
    if (real !== undefined) return join(real, ...rest.reverse());
    if (dir === dirname(dir)) return path;
    rest.push(basename(dir));
  }
}
