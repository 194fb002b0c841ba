import process from "node:process";

/**
 * The namespace of managed environment variables: facts the harness sets for
 * every command (never taken from the ambient environment).
 *
 * @example
 * ```ts
 * import { MANAGED_ENV_PREFIX } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MANAGED_ENV_PREFIX, "SHELLSEAM_");
 * ```
 */
export const MANAGED_ENV_PREFIX = "SHELLSEAM_";

/**
 * The name of a managed environment variable.
 *
 * @example
 * ```ts
 * import type { ManagedEnvKey } from "@shellseam/bash/seam";
 *
 * const key: ManagedEnvKey = "SHELLSEAM_SESSION_ID";
 * console.log(key);
 * ```
 */
export type ManagedEnvKey = `${typeof MANAGED_ENV_PREFIX}${string}`;

/**
 * Managed environment entries, merged last into a command's environment.
 *
 * @example
 * ```ts
 * import type { ManagedEnv } from "@shellseam/bash/seam";
 *
 * const env: ManagedEnv = { SHELLSEAM_SESSION_ID: "s-1" };
 * console.log(Object.keys(env));
 * ```
 */
export type ManagedEnv = { [key: ManagedEnvKey]: string };

/**
 * The parent environment with ambient credentials and managed names removed,
 * and the names that were removed.
 *
 * @example
 * ```ts
 * import type { ScrubbedEnv } from "@shellseam/bash/seam";
 *
 * const scrubbed: ScrubbedEnv = { env: { HOME: "/root" }, scrubbed: ["GITHUB_TOKEN"] };
 * console.log(scrubbed.scrubbed);
 * ```
 */
export interface ScrubbedEnv {
  /** What a child may inherit. */
  env: Record<string, string>;
  /** The names that were dropped, sorted. */
  scrubbed: string[];
}

/** Anywhere in a name, in any case. */
const CREDENTIAL_PARTS = /KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL|COOKIE|SESSION/i;
/** Whole words of a name (split at every character that is not a letter or digit). */
const CREDENTIAL_WORDS = new Set(["PASS", "PASSWD", "PASSPHRASE", "PAT"]);
/** A word holding AUTH (AUTHORIZATION, OAUTH, XAUTHORITY) that is not git's AUTHOR. */
const AUTH_WORD = /AUTH/;
const AUTHOR_WORD = /^(?:CO)?AUTHORS?$/;
/** A URL that carries a password: `scheme://user:password@host`. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/**
 * True when the variable looks like an ambient credential: by its name (see
 * {@linkcode scrubbedParentEnv}) or by a value that holds a URL with a password.
 */
function credentialShaped(name: string, value: string): boolean {
  if (CREDENTIAL_PARTS.test(name) || URL_WITH_PASSWORD.test(value)) return true;
  const words = name.toUpperCase().split(/[^A-Z0-9]+/).filter((word) => word !== "");
  return words.some((word) =>
    CREDENTIAL_WORDS.has(word) || (AUTH_WORD.test(word) && !AUTHOR_WORD.test(word)) ||
    // MYSQL_PWD is a password; PWD and OLDPWD are the working directories.
    (word === "PWD" && words.length > 1)
  );
}

/**
 * Returns the parent environment without ambient credentials and without
 * ambient `SHELLSEAM_*` names, so a stale managed fact never leaks into a
 * command. Pass `parent` to scrub something other than this process's env.
 *
 * It is a filter on names and on the shape of values, not a secret detector.
 * A variable is dropped when:
 * - its name holds `KEY`, `SECRET`, `TOKEN`, `PASSWORD`, `CREDENTIAL`,
 *   `COOKIE` or `SESSION` anywhere, in any case (`MY_API_TOKEN`, `apikey`);
 * - one of its words (the parts between characters that are not letters or
 *   digits) is `PASS`, `PASSWD`, `PASSPHRASE` or `PAT` (`SMTP_PASS`,
 *   `GITHUB_PAT`), holds `AUTH` without being `AUTHOR` or `AUTHORS`
 *   (`SSH_AUTH_SOCK`, `OAUTH_CLIENT`, `XAUTHORITY`, but not
 *   `GIT_AUTHOR_NAME`), or is `PWD` in a name of more than one word
 *   (`MYSQL_PWD`, but not `PWD` or `OLDPWD`);
 * - its value holds a URL with a password (`https://user:pass@host`).
 *
 * Names that merely contain those letters inside a longer word are kept
 * (`PASSAGE`, `COMPASS_DIR`, `PATH`), and so is a secret under a name of
 * another shape (`DBPASS`).
 *
 * @example
 * ```ts
 * import { scrubbedParentEnv } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const { env, scrubbed } = scrubbedParentEnv({
 *   PATH: "/usr/bin",
 *   PWD: "/work",
 *   MY_API_TOKEN: "t",
 *   HTTPS_PROXY: "http://me:hunter2@proxy:3128",
 *   SHELLSEAM_OLD: "x",
 * });
 * assert.deepEqual(env, { PATH: "/usr/bin", PWD: "/work" });
 * assert.deepEqual(scrubbed, ["HTTPS_PROXY", "MY_API_TOKEN", "SHELLSEAM_OLD"]);
 * ```
 */
export function scrubbedParentEnv(
  parent: Record<string, string | undefined> = process.env,
): ScrubbedEnv {
  const env: Record<string, string> = {};
  const scrubbed: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (credentialShaped(name, value) || name.startsWith(MANAGED_ENV_PREFIX)) {
      scrubbed.push(name);
    } else {
      env[name] = value;
    }
  }
  return { env, scrubbed: scrubbed.sort() };
}
