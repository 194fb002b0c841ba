/**
 * The configuration that outranks every config file a workspace could plant.
 *
 * @module
 */
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
 * import { GIT_HARDENING_CONFIG } from "@shellseam/bash/git";
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
