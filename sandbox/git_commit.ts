/**
 * Committing for a confined session: the sandbox keeps `.git` read-only, so
 * a harness commits on the model's behalf, on the host, with git hardened
 * against whatever the workspace could have planted for it to run.
 *
 * @module
 */
import { lstatSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { BashConfigError, BashError, BashSpawnError } from "../seam/mod.ts";
import { runtime } from "../local/mod.ts";
import { findOnPath } from "../local/internal.ts";
import { canonicalWorkspaceRoot } from "./policy.ts";
import { existingRealpath, isBeneath } from "./_paths.ts";
import { CommitClaim, unprotectedReason } from "./protected/mod.ts";

/**
 * The configuration every git run of {@linkcode gitCommit} gets on its
 * command line, where it outranks every config file: no hooks (`/dev/null`
 * holds none), no fsmonitor, no untracked cache, no editor, pager, ssh or
 * askpass program, no credential helper, no signing program, no transport
 * at all (so no lazy fetch of a partial clone runs one), and no automatic
 * maintenance afterwards.
 *
 * @example
 * ```ts
 * import { GIT_HARDENING_CONFIG } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * assert.ok(GIT_HARDENING_CONFIG.includes("core.hooksPath=/dev/null"));
 * assert.ok(GIT_HARDENING_CONFIG.includes("core.fsmonitor=false"));
 * ```
 */
export const GIT_HARDENING_CONFIG: readonly string[] = Object.freeze([
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.editor=false",
  "sequence.editor=false",
  "core.pager=cat",
  "core.sshCommand=false",
  "core.askPass=false",
  "credential.helper=",
  "commit.gpgSign=false",
  "gpg.program=false",
  "gpg.openpgp.program=false",
  "gpg.x509.program=false",
  "gpg.ssh.program=false",
  "protocol.allow=never",
  "maintenance.auto=false",
  "gc.auto=0",
  "submodule.recurse=false",
  "core.useReplaceRefs=false",
]);

/**
 * Config keys that name a program git could run while it adds and commits,
 * which no command-line value can switch off without changing what is
 * committed: a repository whose config sets one is refused.
 */
const REFUSED_KEYS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /^filter\..+\.(clean|smudge|process)$/, what: "a filter driver's program" },
  { pattern: /^hook\..+\.command$/, what: "a configured hook" },
];

/**
 * What {@linkcode gitCommit} commits.
 *
 * @example
 * ```ts
 * import type { GitCommitOptions } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const options: GitCommitOptions = {
 *   workspaceRoot: "/work/project",
 *   paths: ["src/main.ts"],
 *   message: "Fix the parser",
 * };
 * assert.equal(options.paths.length, 1);
 * ```
 */
export interface GitCommitOptions {
  /** The workspace: the repository and every path must lie in it. */
  workspaceRoot: string;
  /** Where relative paths start, and where the repository is looked up from (default: the workspace root). */
  cwd?: string;
  /** The files (or folders) to commit, as they are now: added, changed or deleted. */
  paths: string[];
  /** The commit message. */
  message: string;
  /** Who the commit is by; default: `user.name`/`user.email` of the repository, else of the user's global git config. */
  author?: { name: string; email: string };
  /** Stops git (killed) when aborted. */
  signal?: AbortSignal;
  /** How long git may take in all, in milliseconds (default 60000). */
  timeoutMs?: number;
}

/**
 * What {@linkcode gitCommit} made.
 *
 * @example
 * ```ts
 * import type { GitCommitResult } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const result: GitCommitResult = {
 *   commit: "0123456789abcdef0123456789abcdef01234567",
 *   branch: "main",
 *   repository: "/work/project",
 *   paths: ["src/main.ts"],
 * };
 * assert.equal(result.branch, "main");
 * ```
 */
export interface GitCommitResult {
  /** The new commit's id. */
  commit: string;
  /** The branch it is on, or null on a detached HEAD. */
  branch: string | null;
  /** The repository's working tree. */
  repository: string;
  /** The committed paths, relative to the working tree. */
  paths: string[];
}

/**
 * Git refused or failed; the message says why (git's own words included)
 * and what to do.
 *
 * @example
 * ```ts
 * import { GitCommitError } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const error = new GitCommitError("git commit failed: nothing to commit");
 * assert.equal(error.code, "git-commit");
 * ```
 */
export class GitCommitError extends BashError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("git-commit", message, options);
    this.name = "GitCommitError";
  }
}

/**
 * Commits `paths` (as they are in the working tree: added, changed or
 * deleted; other staged changes are left staged and uncommitted) in the git
 * repository that holds `cwd`, on the host, unconfined but hardened against
 * a workspace that a confined command could write:
 * - the repository is found by hand (the nearest `.git` from `cwd` up to the
 *   workspace root: a folder, or a `gitdir:` file) and named to git by
 *   `GIT_DIR` and `GIT_WORK_TREE`, so no discovery, `core.worktree` nor
 *   symlinked `.git` leads elsewhere; a `commondir` is accepted only in a
 *   linked worktree's own layout (`<repo>/worktrees/<name>` naming `<repo>`);
 * - its `.git` and git folder must be ones the sandbox keeps read-only:
 *   within the walk's bounds and not in a skipped tree; the same holds for
 *   every nested repository among the paths (`git add` runs `git status` in
 *   it); and nothing git writes (`COMMIT_EDITMSG`, the index, `HEAD`, the
 *   reflogs, refs, object folders) may be a symlink, which git would follow;
 * - these checks are a snapshot: what they looked at (the working tree, the
 *   git folders, included config files, the `git` program) is held until git
 *   is done, so the commit is refused while a sandboxed call of this process
 *   that can write one of them still runs, and such a call is refused at
 *   launch meanwhile;
 * - git starts from an empty environment (no `GIT_*` of this process), with
 *   no system nor global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`),
 *   {@linkcode GIT_HARDENING_CONFIG} on its command line, literal pathspecs
 *   no replace objects and no transport (`GIT_ALLOW_PROTOCOL` empty: a lazy
 *   fetch would run the config's `uploadpack`); the `git` found on `PATH` must lie outside the
 *   workspace;
 * - a repository whose config (with what it includes) sets a filter
 *   driver's program or a configured hook is refused, and so is a path whose
 *   attributes name a filter (git-lfs): filters are not run; so is one whose
 *   config includes a file in the workspace (a confined command could
 *   rewrite it between the check and the commit);
 * - only builtins run (`config`, `ls-files`, `check-attr`, `add`, `commit`, `rev-parse`),
 *   which no alias can replace; `commit` runs with `--no-verify` and
 *   `--no-gpg-sign`.
 * Paths must lie in the workspace and the repository's working tree, and not
 * in a `.git`; a path starting with `-` or `:` (an option, pathspec magic)
 * is refused. The author is `author`, else the repository's `user.name` and
 * `user.email`, else those of the user's global git config.
 *
 * Throws `BashConfigError` for bad input (nothing run), `BashSpawnError`
 * when git cannot be started, and `GitCommitError` when the repository is
 * refused or git fails (nothing to commit, an ignored path, ...).
 *
 * @example Commit a file a confined command wrote
 * ```ts
 * import { gitCommit } from "@shellseam/bash/sandbox";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const workspace = mkdtempSync(join(tmpdir(), "example-"));
 * execFileSync("git", ["init", "-q", workspace]);
 * writeFileSync(join(workspace, "notes.txt"), "hello\n");
 * try {
 *   const result = await gitCommit({
 *     workspaceRoot: workspace,
 *     paths: ["notes.txt"],
 *     message: "Add notes",
 *     author: { name: "Agent", email: "agent@example.com" },
 *   });
 *   assert.deepEqual(result.paths, ["notes.txt"]);
 *   const shown = execFileSync("git", ["-C", workspace, "show", "HEAD:notes.txt"], { encoding: "utf8" });
 *   assert.equal(shown, "hello\n");
 * } finally {
 *   rmSync(workspace, { recursive: true });
 * }
 * ```
 */
export async function gitCommit(options: GitCommitOptions): Promise<GitCommitResult> {
  const { paths, message, author, signal, timeoutMs = 60_000 } = options ?? {};
  const workspace = canonicalWorkspaceRoot(options?.workspaceRoot);
  const cwd = existingRealpath(resolve(workspace, options.cwd ?? "."));
  if (cwd === undefined || !isBeneath(cwd, workspace)) {
    throw new BashConfigError(
      `"cwd" ${
        JSON.stringify(options.cwd)
      } is not an existing folder in the workspace "${workspace}"; pass one inside it, or omit it`,
    );
  }
  if (typeof message !== "string" || message.trim() === "" || message.includes("\0")) {
    throw new BashConfigError(
      `The commit message must be a non-blank string without NUL; got ${JSON.stringify(message)}`,
    );
  }
  if (
    author !== undefined &&
    (typeof author?.name !== "string" || typeof author.email !== "string" ||
      author.name.trim() === "" || /[\0\n<>]/.test(author.name + author.email))
  ) {
    throw new BashConfigError(
      `"author" must be { name, email } (non-blank, no newline, "<" nor ">"); got ${
        JSON.stringify(author)
      }`,
    );
  }
  if (!Array.isArray(paths) || paths.length === 0) {
    throw new BashConfigError(
      `"paths" must be a non-empty list of files to commit; got ${JSON.stringify(paths)}`,
    );
  }
  const repo = findRepository(cwd, workspace);
  // Every check below is a snapshot: no confined call of this process that
  // could change what they looked at may run until git is done.
  using claim = new CommitClaim();
  const hold = (paths: string[]) => {
    const why = claim.claim(paths);
    if (why !== undefined) throw new GitCommitError(`Nothing was committed: ${why}`);
  };
  hold([
    ...new Set([repo.workTree, repo.gitDir, repo.commonDir].map((p) => existingRealpath(p) ?? p)),
  ]);
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
  const relativePaths = [...new Set(paths.map((path) => checkedPath(path, cwd, workspace, repo)))];
  const git = findOnPath("git");
  if (git === null) throw new BashSpawnError(`"git" was not found on PATH; install git`);
  if (isBeneath(existingRealpath(git) ?? git, workspace)) {
    throw new GitCommitError(
      `The "git" found on PATH ("${git}") lies in the workspace, where a confined command could have replaced it; put a system git first on PATH`,
    );
  }
  hold([existingRealpath(git) ?? git]);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LC_ALL: "C",
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_NO_LAZY_FETCH: "1",
    // No transport at all, whatever protocol.<name>.allow the config sets
    // (which outranks protocol.allow): a lazy fetch would run uploadpack.
    GIT_ALLOW_PROTOCOL: "",
    GIT_TERMINAL_PROMPT: "0",
  };
  const deadline = Date.now() + timeoutMs;
  const run = (
    args: string[],
    step: string,
    runEnv = env,
    dir = repo.workTree,
    exits: readonly number[] = [0],
  ) =>
    runGit(git, args, {
      cwd: dir,
      env: runEnv,
      deadline,
      step,
      exits,
      ...(signal ? { signal } : {}),
    });
  const hardened = GIT_HARDENING_CONFIG.flatMap((entry) => ["-c", entry]);

  const config = parseConfigList(
    (await run(["config", "--list", "--show-origin", "--null"], "read the config")).stdout,
    repo.workTree,
  );
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
  // `git add` runs `git status` inside every nested repository it meets (a
  // new one, or a submodule already in the index), and that git obeys the
  // nested repository's own config: each must be one no command could plant.
  const listed = async (args: string[], step: string) =>
    (await run([...hardened, "ls-files", "-z", ...args, "--", ...relativePaths], step))
      .stdout.split("\0").filter((entry) => entry !== "");
  const nested = [
    ...(await listed(["--others", "--exclude-standard"], "list untracked files"))
      .filter((entry) => entry.endsWith("/")),
    ...(await listed(["--stage"], "list tracked files"))
      .filter((entry) => entry.startsWith("160000 "))
      .map((entry) => entry.slice(entry.indexOf("\t") + 1)),
  ];
  for (const dir of nested) {
    const why = nestedRepositoryRefusal(join(repo.workTree, dir), workspace, claim);
    if (why !== undefined) {
      throw new GitCommitError(
        `Nothing was committed: "${
          dir.replace(/\/$/, "")
        }" is a nested repository, in which git add would run git obeying its config, and ${why}`,
      );
    }
  }
  const attributes = (await run(
    [...hardened, "check-attr", "-z", "filter", "--", ...relativePaths],
    "read the attributes",
  )).stdout.split("\0");
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
  const identity = author ?? localIdentity(config) ??
    await globalIdentity((args, step, runEnv, exits) => run(args, step, runEnv, "/", exits));
  if (identity === undefined) {
    throw new GitCommitError(
      "No author is known: the repository and the global git config set no user.name and user.email; pass author, or set them",
    );
  }
  const commitEnv = {
    ...env,
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
  await run(
    [...hardened, "--no-pager", "add", "--all", "--", ...relativePaths],
    "git add",
    commitEnv,
  );
  await run(
    [
      ...hardened,
      "--no-pager",
      "commit",
      "--quiet",
      "--no-verify",
      "--no-gpg-sign",
      "--no-edit",
      "--cleanup=whitespace",
      "-m",
      message,
      "--only",
      "--",
      ...relativePaths,
    ],
    "commit",
    commitEnv,
  );
  const head = (await run([...hardened, "rev-parse", "HEAD"], "read the new commit")).stdout.trim();
  const branch = (await run(
    [...hardened, "rev-parse", "--symbolic-full-name", "HEAD"],
    "read the branch",
  )).stdout.trim();
  return {
    commit: head,
    branch: branch.startsWith("refs/heads/") ? branch.slice("refs/heads/".length) : null,
    repository: repo.workTree,
    paths: relativePaths,
  };
}

/** A repository as git will be told of it. */
interface Repository {
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
function findRepository(cwd: string, workspace: string): Repository {
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

/** `path` checked (in the workspace and the working tree, no option, magic nor .git) and made relative to the working tree. */
function checkedPath(path: unknown, cwd: string, workspace: string, repo: Repository): string {
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

/** One entry of the config git reads: its key as git prints it, value, and the file it came from. */
interface ConfigEntry {
  key: string;
  value: string;
  /** The config file (absolute), or undefined for another origin. */
  origin: string | undefined;
}

/** `git config --list --show-origin --null` output (run in `cwd`) as entries. */
function parseConfigList(text: string, cwd: string): ConfigEntry[] {
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
function includedFile(key: string, value: string, origin: string | undefined): string | undefined {
  if (key !== "include.path" && !/^includeif\..*\.path$/.test(key)) return undefined;
  if (value.startsWith("~/")) return join(process.env.HOME ?? "/", value.slice(2));
  return resolve(origin === undefined ? "/" : dirname(origin), value);
}

/** `path` with the symlinks of its nearest existing ancestor resolved (it need not exist). */
function withRealParents(path: string): string {
  const rest: string[] = [];
  for (let dir = path;; dir = dirname(dir)) {
    const real = existingRealpath(dir);
    if (real !== undefined) return join(real, ...rest.reverse());
    if (dir === dirname(dir)) return path;
    rest.push(basename(dir));
  }
}

/** The last `user.name` and `user.email` of the repository's config, when both are set. */
function localIdentity(config: ConfigEntry[]): { name: string; email: string } | undefined {
  const last = (key: string) => config.findLast((entry) => entry.key === key)?.value;
  const name = last("user.name");
  const email = last("user.email");
  return name && email !== undefined ? { name, email } : undefined;
}

/**
 * `user.name` and `user.email` of the user's own global git config (read
 * only, never run), or undefined when either is unset there; a config git
 * cannot read is a `GitCommitError` saying so.
 */
async function globalIdentity(
  run: (
    args: string[],
    step: string,
    env: Record<string, string>,
    exits: readonly number[],
  ) => Promise<GitOutput>,
): Promise<{ name: string; email: string } | undefined> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" };
  for (const name of ["HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"]) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  env.GIT_CONFIG_NOSYSTEM = "1";
  const read = async (key: string) => {
    // Exit 1 is git's "not set"; anything else (a config it cannot parse) is an error.
    const out = await run(["config", "--global", "--get", key], `read ${key}`, env, [0, 1])
      .catch((error) => {
        if (!(error instanceof GitCommitError)) throw error;
        throw new GitCommitError(
          `No author was passed and the repository sets none, and the user's global git config could not be read for ${key}: ${error.message}; fix that config (git config --global --list shows the fault), or pass author`,
          { cause: error },
        );
      });
    return out.code === 1 ? undefined : out.stdout.trim() || undefined;
  };
  const name = await read("user.name");
  const email = await read("user.email");
  return name && email ? { name, email } : undefined;
}

/** What a git run printed, and its exit code. */
interface GitOutput {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs `git` with `args` (no shell) in its own process group, killed at the
 * deadline or when `signal` aborts; an exit code not among `exits` is a
 * `GitCommitError` quoting git.
 */
async function runGit(
  git: string,
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    deadline: number;
    step: string;
    exits: readonly number[];
    signal?: AbortSignal;
  },
): Promise<GitOutput> {
  const { cwd, env, deadline, step, exits, signal } = options;
  if (signal?.aborted) throw new GitCommitError(`Stopped before ${step}: the call was cancelled`);
  let child;
  try {
    child = await runtime.spawn({
      program: git,
      args,
      cwd,
      env,
      stdin: "null",
      session: "detached",
    });
  } catch (error) {
    throw new BashSpawnError(`Could not start "${git}" to ${step}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let stopped: string | undefined;
  const stop = (why: string) => {
    stopped ??= why;
    runtime.kill(-child.pid, "SIGKILL");
  };
  const onAbort = () => stop("the call was cancelled");
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop("it ran out of time"), Math.max(0, deadline - Date.now()));
  try {
    const [stdout, stderr, status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (stopped !== undefined) {
      throw new GitCommitError(`git was stopped during ${step}: ${stopped}`);
    }
    if (status.code === null || !exits.includes(status.code)) {
      const said = stderr.trim() || stdout.trim() || `exit ${status.code ?? status.signal}`;
      throw new GitCommitError(`git failed to ${step}: ${said}`);
    }
    return { stdout, stderr, code: status.code };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
