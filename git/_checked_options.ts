/**
 * The options of a commit, checked before anything runs.
 *
 * @module
 */
import { resolve } from "node:path";
import { BashConfigError } from "../seam/mod.ts";
import { canonicalWorkspaceRoot } from "../sandbox/policy.ts";
import { existingRealpath, isBeneath } from "../engine/mod.ts";
import type { GitCommitOptions } from "./options.ts";

/** {@linkcode GitCommitOptions} checked: the workspace and `cwd` canonical, the default timeout filled in. */
export interface CheckedOptions extends Omit<GitCommitOptions, "workspaceRoot" | "cwd"> {
  /** The workspace root, canonical. */
  workspace: string;
  /** The canonical `cwd`, in the workspace. */
  cwd: string;
  /** How long git may take in all, in milliseconds. */
  timeoutMs: number;
}

/**
 * `options` checked, or a `BashConfigError` saying what is wrong: the
 * workspace and `cwd` must be existing folders (`cwd` in the workspace), the
 * message non-blank without NUL, the author (when given) a name and email
 * without newline, "<" nor ">", and the paths a non-empty list.
 */
export function checkedOptions(options: GitCommitOptions): CheckedOptions {
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
  return {
    workspace,
    cwd,
    paths,
    message,
    ...(author ? { author } : {}),
    ...(signal ? { signal } : {}),
    timeoutMs,
  };
}
