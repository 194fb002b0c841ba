/**
 * What a confined command may not read unless a policy says otherwise: the
 * usual credential stores in the home of the user running the agent (keys,
 * cloud and cluster credentials, registry and package-index tokens, git and
 * GitHub credentials, password stores). `~/` stands for that home.
 *
 * @example
 * ```ts
 * import { DEFAULT_DENY_READ } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * assert.ok(DEFAULT_DENY_READ.includes("~/.ssh"));
 * assert.ok(DEFAULT_DENY_READ.every((path) => path.startsWith("~/")));
 * ```
 */
export const DEFAULT_DENY_READ: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.kube",
  "~/.docker/config.json",
  "~/.netrc",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.config/gh",
  "~/.config/hub",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.gem/credentials",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.vault-token",
  "~/.pgpass",
  "~/.password-store",
  "~/.local/share/keyrings",
]);
