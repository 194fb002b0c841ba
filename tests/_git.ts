import { execFileSync } from "node:child_process";
import process from "node:process";

/** The environment the tests run git in: no system or global config, a fixed identity. */
export const TEST_GIT_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
});

/**
 * Runs git in `cwd` as the test sets up a repository, with hooks off and
 * each of `config` (`name=value`) given with `-c`; returns its stdout and
 * throws when it fails.
 */
export function testGit(cwd: string, config: readonly string[], args: readonly string[]): string {
  return execFileSync(
    "git",
    [...["core.hooksPath=/dev/null", ...config].flatMap((entry) => ["-c", entry]), ...args],
    { cwd, encoding: "utf8", env: { ...TEST_GIT_ENV } },
  );
}
