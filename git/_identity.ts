/**
 * Who a commit is by when no author is passed: the repository's config,
 * else the user's global git config (read, never run).
 *
 * @module
 */
import process from "node:process";
import type { ConfigEntry } from "./_config.ts";
import { GitCommitError } from "./error.ts";
import type { GitOutput } from "./_run.ts";

/** The last `user.name` and `user.email` of the repository's config, when both are set. */
export function localIdentity(config: ConfigEntry[]): { name: string; email: string } | undefined {
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
export async function globalIdentity(
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
