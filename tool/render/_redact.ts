import process from "node:process";
import { MANAGED_ENV_PREFIX, scrubbedParentEnv } from "../../seam/mod.ts";

/**
 * Values shorter than this are never redacted: a short value (`1`, `true`,
 * `dev`) would blank out ordinary words of the output.
 *
 * @example
 * ```ts
 * import { MIN_REDACTED_LENGTH } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MIN_REDACTED_LENGTH, 8);
 * ```
 */
export const MIN_REDACTED_LENGTH = 8;

/**
 * The values the environment scrub keeps from commands, by variable name:
 * those of the variables `scrubbedParentEnv()` drops as credentials from
 * `env` (this process's environment by default), managed `SHELLSEAM_*`
 * names aside, and only values of {@linkcode MIN_REDACTED_LENGTH} characters
 * or more.
 *
 * @example
 * ```ts
 * import { scrubbedSecrets } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const secrets = scrubbedSecrets({
 *   PATH: "/usr/bin",
 *   GITHUB_TOKEN: "ghp_0123456789",
 *   API_KEY: "short",
 *   SHELLSEAM_SESSION: "session-0123",
 * });
 * assert.deepEqual(secrets, { GITHUB_TOKEN: "ghp_0123456789" });
 * ```
 */
export function scrubbedSecrets(
  env: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of scrubbedParentEnv(env).scrubbed) {
    const value = env[name];
    if (name.startsWith(MANAGED_ENV_PREFIX) || value === undefined) continue;
    if (value.length >= MIN_REDACTED_LENGTH) secrets[name] = value;
  }
  return secrets;
}

/**
 * `text` with every exact occurrence of a value of `secrets` replaced by
 * `[redacted: NAME]` (longer values first, so a value that contains another
 * is replaced whole). Values shorter than {@linkcode MIN_REDACTED_LENGTH}
 * are left alone.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   redactSecrets("token=ghp_0123456789 ok", { GITHUB_TOKEN: "ghp_0123456789", X: "ok" }),
 *   "token=[redacted: GITHUB_TOKEN] ok",
 * );
 * ```
 */
export function redactSecrets(text: string, secrets: Readonly<Record<string, string>>): string {
  const entries = Object.entries(secrets)
    .filter(([, value]) => value.length >= MIN_REDACTED_LENGTH)
    .sort(([, a], [, b]) => b.length - a.length);
  let redacted = text;
  for (const [name, value] of entries) {
    if (redacted.includes(value)) redacted = redacted.split(value).join(`[redacted: ${name}]`);
  }
  return redacted;
}
