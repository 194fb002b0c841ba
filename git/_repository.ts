/**
 * The repository a commit goes to, found by hand (no discovery by git), and
 * the checks of what git writes in it: its git folders, the nested
 * repositories among the paths, and the files git writes through.
 *
 * @module
 */
import { lstatSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { existingRealpath } from "../engine/mod.ts";
import { type CommitClaim, unprotectedReason } from "../sandbox/protected/mod.ts";
import { GitCommitError } from "./error.ts";

/** A repository as git will be told of it. */
export interface Repository {
  workTree: string;
  gitDir: string;
  /** The `.git` entry found in the working tree. */
  dotGit: string;
  /** The main repository's git folder (`gitDir` unless a linked worktree). */
  commonDir: string;
}

/**
 * The nearest repository from `cwd` up to `workspace`: a `.git` folder, or a
 * `gitdir:` file; a symlinked `.git`, and a `commondir` outside git's own
 * linked-worktree layout, are refused.
 */
export function findRepository(cwd: string, workspace: string): Repository {
  for (let dir = cwd;; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    let stat;
    try {
      stat = lstatSync(dotGit);
    } catch {
      if (dir === workspace || dir === dirname(dir)) break;
      continue;
    }
    if (stat.isSymbolicLink()) {
      throw new GitCommitError(
        `"${dotGit}" is a symlink, which git would follow wherever it points; nothing was committed: check it and commit by hand`,
      );
    }
    let gitDir = dotGit;
    if (stat.isFile()) {
      const text = configText(dotGit);
      const named = /^gitdir:\s*(.+)$/m.exec(text ?? "")?.[1]?.trim();
      if (!named) {
        throw new GitCommitError(
          `"${dotGit}" is a file without a "gitdir:" line; nothing was committed`,
        );
      }
      gitDir = resolve(dir, named);
    } else if (!stat.isDirectory()) {
      throw new GitCommitError(
        `"${dotGit}" is neither a folder nor a gitdir: file; nothing was committed`,
      );
    }
    const common = configText(join(gitDir, "commondir"))?.split("\n")[0]?.trim();
    let commonDir = gitDir;
    if (common) {
      commonDir = resolve(gitDir, common);
      const own = basename(dirname(gitDir)) === "worktrees" &&
        commonDir === dirname(dirname(gitDir));
      if (!own) {
        throw new GitCommitError(
          `"${
            join(gitDir, "commondir")
          }" sends git to "${commonDir}", which is not how git lays out a linked worktree (a command may have planted it); nothing was committed: remove it, or commit by hand`,
        );
      }
    }
    return { workTree: dir, gitDir, dotGit, commonDir };
  }
  throw new GitCommitError(
    `No git repository holds "${cwd}" inside the workspace "${workspace}"; run git init first, or pass the cwd of one`,
  );
}

/**
 * Why the nested repository in `dir` could have been planted or written by a
 * confined command (see `unprotectedReason`), or undefined; a symlinked
 * `.git` always could, and a missing one runs nothing. The git folder a
 * `gitdir:` file names is held by `claim` (it may lie outside the working
 * tree, which the claim already holds).
 */
function nestedRepositoryRefusal(
  dir: string,
  workspace: string,
  claim: CommitClaim,
): string | undefined {
  const dotGit = join(dir, ".git");
  let stat;
  try {
    stat = lstatSync(dotGit);
  } catch {
    return undefined;
  }
  if (stat.isSymbolicLink()) return `its "${dotGit}" is a symlink: check it and commit by hand`;
  const named = stat.isFile()
    ? /^gitdir:\s*(.+)$/m.exec(configText(dotGit) ?? "")?.[1]?.trim()
    : undefined;
  for (const path of [dotGit, ...(named ? [resolve(dir, named)] : [])]) {
    const real = existingRealpath(path) ?? path;
    const why = unprotectedReason(real, workspace) ?? claim.claim([real]);
    if (why !== undefined) return why;
  }
  return undefined;
}

/**
 * The first symlink among what git writes while committing (the message
 * file, the index, HEAD, the reflogs and refs, the object folders), which it
 * would follow: only where `.git` is not kept read-only (Landlock without a
 * user namespace) can a command have planted one.
 */
function writtenThroughLink(repo: Repository): string | undefined {
  const isLink = (path: string) => {
    try {
      return lstatSync(path).isSymbolicLink();
    } catch {
      return false;
    }
  };
  const entries = (path: string) => {
    try {
      return runtime.readDirectory(path).map((entry) => join(path, entry.name));
    } catch {
      return []; // Not a folder, or gone: nothing below it to write through.
    }
  };
  // The object folders themselves, but not the objects (git writes those by rename).
  const stack: string[] = [];
  for (const dir of new Set([repo.gitDir, repo.commonDir])) {
    for (const name of ["COMMIT_EDITMSG", "index", "HEAD", "ORIG_HEAD", "packed-refs"]) {
      if (isLink(join(dir, name))) return join(dir, name);
    }
    const objects = join(dir, "objects");
    if (isLink(objects)) return objects;
    const linked = entries(objects).find(isLink);
    if (linked !== undefined) return linked;
    stack.push(join(dir, "logs"), join(dir, "refs"));
  }
  for (let seen = 0; stack.length > 0 && seen < 10_000; seen++) {
    const path = stack.pop()!;
    if (isLink(path)) return path;
    stack.push(...entries(path));
  }
  return undefined;
}

/** The text of a small pointer file, when it is a regular one (never following a symlink). */
function configText(path: string): string | undefined {
  try {
    if (!lstatSync(path).isFile() || lstatSync(path).size > 4096) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Throws a `GitCommitError` when the repository's `.git` or git folders are
 * ones a confined command could have planted or written (see
 * `unprotectedReason`), or when something git writes while committing is a
 * symlink (see {@linkcode writtenThroughLink}).
 */
export function refuseRepository(repo: Repository, workspace: string): void {
  for (const path of new Set([repo.dotGit, repo.gitDir, repo.commonDir])) {
    const why = unprotectedReason(existingRealpath(path) ?? path, workspace);
    if (why !== undefined) {
      throw new GitCommitError(
        `Nothing was committed: git writes the commit into the repository's git folder, following whatever is planted there, and ${why}`,
      );
    }
  }
  const linked = writtenThroughLink(repo);
  if (linked !== undefined) {
    throw new GitCommitError(
      `"${linked}" is a symlink, and git writes the commit (message included) through it, wherever it points; nothing was committed: check the repository and commit by hand`,
    );
  }
}

/**
 * Throws a `GitCommitError` when one of the nested repositories `dirs`
 * (relative to the working tree) could have been planted or written by a
 * confined command: `git add` runs `git status` in each, obeying its config.
 */
export function refuseNestedRepositories(
  dirs: readonly string[],
  repo: Repository,
  workspace: string,
  claim: CommitClaim,
): void {
  for (const dir of dirs) {
    const why = nestedRepositoryRefusal(join(repo.workTree, dir), workspace, claim);
    if (why !== undefined) {
      throw new GitCommitError(
        `Nothing was committed: "${
          dir.replace(/\/$/, "")
        }" is a nested repository, in which git add would run git obeying its config, and ${why}`,
      );
    }
  }
}
