/**
 * One git run: no shell, its own process group, killed at the deadline or
 * when the call is cancelled.
 *
 * @module
 */
import { BashSpawnError } from "../seam/mod.ts";
import { runtime } from "../runtime/mod.ts";
import { GitCommitError } from "./error.ts";

/** What a git run printed, and its exit code. */
export interface GitOutput {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs `git` with `args` (no shell) in its own process group, killed at the
 * deadline or when `signal` aborts; an exit code not among `exits` is a
 * `GitCommitError` quoting git.
 */
export async function runGit(
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
