/**
 * Committing for a confined session: the sandbox keeps `.git` read-only, so
 * a harness commits on the model's behalf, on the host, with git hardened
 * against whatever the workspace could have planted for it to run.
 *
 * @module
 */
import process from "node:process";
import { BashSpawnError } from "../seam/mod.ts";
import { existingRealpath, exposedLocation, findOnPath } from "../engine/mod.ts";
import { CommitClaim, grantedRoots } from "../sandbox/protected/mod.ts";
import { checkedOptions } from "./_checked_options.ts";
import { checkedPath } from "./_checked_path.ts";
import { parseConfigList, refuseConfig, refuseFilterAttributes } from "./_config.ts";
import { globalIdentity, localIdentity } from "./_identity.ts";
import { findRepository, refuseNestedRepositories, refuseRepository } from "./_repository.ts";
import { runGit } from "./_run.ts";
import { GitCommitError } from "./error.ts";
import { GIT_HARDENING_CONFIG } from "./hardening.ts";
import type { GitCommitOptions, GitCommitResult } from "./options.ts";

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
 *   fetch would run the config's `uploadpack`); the `git` found on `PATH`, and every location
 *   its resolution passes, must lie outside the workspace and every root a confined command of
 *   this process could have written;
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
 * import { gitCommit } from "@shellseam/bash/git";
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
  const { workspace, cwd, paths, message, author, signal, timeoutMs } = checkedOptions(options);
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
  refuseRepository(repo, workspace);
  const relativePaths = [...new Set(paths.map((path) => checkedPath(path, cwd, workspace, repo)))];
  const git = findOnPath("git");
  if (git === null) throw new BashSpawnError(`"git" was not found on PATH; install git`);
  // Every location its resolution passes (a link in the workspace to a script elsewhere too),
  // against the workspace and every root a confined command of this process could have written.
  const roots = [workspace, ...grantedRoots()];
  const exposed = exposedLocation(git, roots);
  if (exposed !== undefined) {
    throw new GitCommitError(
      `The "git" found on PATH ("${git}") lies in the workspace or a writable root ("${exposed.location}" lies in "${exposed.root}"), where a confined command could have replaced it; put a system git first on PATH`,
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
  refuseConfig(config, workspace, hold);
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
  refuseNestedRepositories(nested, repo, workspace, claim);
  const attributes = (await run(
    [...hardened, "check-attr", "-z", "filter", "--", ...relativePaths],
    "read the attributes",
  )).stdout.split("\0");
  refuseFilterAttributes(attributes);
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
