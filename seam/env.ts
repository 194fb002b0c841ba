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
 * import { MANAGED_ENV_PREFIX } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const key: ManagedEnvKey = "SHELLSEAM_SESSION_ID";
 * assert.ok(key.startsWith(MANAGED_ENV_PREFIX));
 * ```
 */
export type ManagedEnvKey = `${typeof MANAGED_ENV_PREFIX}${string}`;

/**
 * Managed environment entries, merged last into a command's environment.
 *
 * @example
 * ```ts
 * import type { ManagedEnv } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const env: ManagedEnv = { SHELLSEAM_SESSION_ID: "s-1" };
 * assert.deepEqual(Object.keys(env), ["SHELLSEAM_SESSION_ID"]);
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
 * import assert from "node:assert/strict";
 *
 * const scrubbed: ScrubbedEnv = { env: { HOME: "/root" }, scrubbed: ["GITHUB_TOKEN"] };
 * assert.equal("GITHUB_TOKEN" in scrubbed.env, false);
 * ```
 */
export interface ScrubbedEnv {
  /** What a child may inherit. */
  env: Record<string, string>;
  /** The names that were dropped, sorted. */
  scrubbed: string[];
}

const CREDENTIAL_SHAPED = /KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL/i;

/**
 * Returns the parent environment without credential-shaped names
 * (`KEY`, `SECRET`, `TOKEN`, `PASSWORD`, `CREDENTIAL`, any case) and without
 * ambient `SHELLSEAM_*` names, so a stale managed fact never leaks into a
 * command. Pass `parent` to scrub something other than this process's env.
 *
 * @example
 * ```ts
 * import { scrubbedParentEnv } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const { env, scrubbed } = scrubbedParentEnv({
 *   PATH: "/usr/bin",
 *   MY_API_TOKEN: "t",
 *   SHELLSEAM_OLD: "x",
 * });
 * assert.deepEqual(env, { PATH: "/usr/bin" });
 * assert.deepEqual(scrubbed, ["MY_API_TOKEN", "SHELLSEAM_OLD"]);
 * ```
 */
export function scrubbedParentEnv(
  parent: Record<string, string | undefined> = process.env,
): ScrubbedEnv {
  const env: Record<string, string> = {};
  const scrubbed: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (CREDENTIAL_SHAPED.test(name) || name.startsWith(MANAGED_ENV_PREFIX)) {
      scrubbed.push(name);
    } else {
      env[name] = value;
    }
  }
  return { env, scrubbed: scrubbed.sort() };
}
