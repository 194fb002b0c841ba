import { realpathSync, statSync } from "node:fs";
import { isAbsolute, normalize, resolve } from "node:path";
import { BashConfigError, type SandboxPolicy } from "../seam/mod.ts";
import { isSandboxMode } from "./mode.ts";
import { checkedPolicyPaths } from "./backends/mod.ts";
import { canonicalPath, isBeneath, throwIfDenied } from "../engine/mod.ts";
import { checkedNetwork } from "./network/mod.ts";

/**
 * The start-up files of bash, zsh and sh in a home folder, which the next
 * login or shell runs: protected by default, and kept out of the writable
 * roots of the SSH executor's remote sandbox (`remote/_login_files.ts`).
 */
export const SHELL_START_UP_FILES: readonly string[] = Object.freeze([
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshenv",
  ".zshrc",
  ".zprofile",
  ".zlogin",
]);

/**
 * The protected paths of a policy without its own `protectedPaths`: names
 * that no confined command may create, replace nor write, in each writable
 * root and in every directory below it (nested packages and repositories
 * have their own), because a program outside the sandbox obeys or runs them
 * later, unconfined: git's metadata and configuration (`.git`, `.gitconfig`,
 * `.gitmodules`; also the folder a repository's `core.hooksPath` names, when
 * it lies in a writable root), shell start-up files, `.ssh` (sshd runs its
 * `rc` at every session), direnv's `.envrc`, git hook managers (`.husky`,
 * `.pre-commit-config.yaml`), editor and agent configuration (`.vscode`,
 * `.idea`, `.mcp.json`, `.claude`, `.codex`, `.shellseam`) and `.ripgreprc`.
 * A list of your own replaces it: spread it in to add a name, filter it to
 * drop one (see `SandboxPolicy.protectedPaths`).
 *
 * @example
 * ```ts
 * import { DEFAULT_PROTECTED_PATHS, resolveSandboxPolicy } from "@shellseam/bash/sandbox";
 * import { tmpdir } from "node:os";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_PROTECTED_PATHS[0], ".git");
 * assert.ok(DEFAULT_PROTECTED_PATHS.includes(".bashrc"));
 * assert.ok(DEFAULT_PROTECTED_PATHS.includes(".ssh"));
 * // Add a name, and let commands edit the editor settings.
 * const policy = resolveSandboxPolicy({
 *   mode: "workspace-write",
 *   workspaceRoot: tmpdir(),
 *   network: "deny",
 *   protectedPaths: [...DEFAULT_PROTECTED_PATHS, ".npmrc"].filter((name) => name !== ".vscode"),
 * });
 * assert.ok(policy.protectedPaths?.includes(".npmrc"));
 * assert.equal(policy.protectedPaths?.includes(".vscode"), false);
 * ```
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = Object.freeze([
  // git: metadata, its configuration (a home folder's: both places git
  // reads its global config from), submodule URLs.
  ".git",
  ".gitconfig",
  ".config/git",
  ".gitmodules",
  // Shell start-up files (bash, zsh, sh), run by the next login or shell.
  ...SHELL_START_UP_FILES,
  // ssh: sshd runs `~/.ssh/rc` at every session and obeys `authorized_keys`
  // (`command=`, `environment=`) and `environment`; ssh obeys `config`
  // (`ProxyCommand`, `LocalCommand`, `Match exec` run programs).
  ".ssh",
  // direnv, run on entering the folder; git hook managers.
  ".envrc",
  ".husky",
  ".pre-commit-config.yaml",
  // Editors and agents: tasks, launch configurations, hooks, MCP servers.
  ".vscode",
  ".idea",
  ".mcp.json",
  ".claude",
  ".codex",
  ".shellseam",
  // ripgrep reads its flags from it (`--pre` runs a program per file).
  ".ripgreprc",
]);

/**
 * The canonical form of a workspace root: absolute, every symlink resolved.
 * Throws `BashConfigError` when the path is relative, does not exist or is
 * not a directory.
 *
 * @example
 * ```ts
 * import { canonicalWorkspaceRoot } from "@shellseam/bash/sandbox";
 * import { BashConfigError } from "@shellseam/bash/seam";
 * import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const dir = mkdtempSync(join(tmpdir(), "example-"));
 * mkdirSync(join(dir, "ws"));
 * symlinkSync(join(dir, "ws"), join(dir, "link"));
 * assert.equal(canonicalWorkspaceRoot(join(dir, "link")), realpathSync(join(dir, "ws")));
 * assert.throws(() => canonicalWorkspaceRoot(join(dir, "missing")), BashConfigError);
 * rmSync(dir, { recursive: true });
 * ```
 */
export function canonicalWorkspaceRoot(path: string): string {
  if (typeof path !== "string" || !isAbsolute(path)) {
    throw new BashConfigError(
      `Workspace root ${JSON.stringify(path)} is not an absolute path; pass an absolute directory`,
    );
  }
  let canonical: string;
  try {
    canonical = realpathSync(path);
  } catch (error) {
    throwIfDenied(error, `resolve the workspace root "${path}"`);
    throw new BashConfigError(
      `Workspace root "${path}" does not exist; create it or pass an existing directory`,
    );
  }
  if (!statSync(canonical).isDirectory()) {
    throw new BashConfigError(
      `Workspace root "${path}" is not a directory; pass an existing directory`,
    );
  }
  return canonical;
}

/**
 * Checks a policy and returns it with its workspace root canonicalised.
 * Writable roots must be absolute; one beneath the workspace root or beneath
 * another writable root is dropped (it is writable already, and resolving it
 * could follow a symlink that a confined command planted); the others are
 * canonicalised as far as they exist (a writable root that does not exist
 * when a command starts is skipped for that command: nothing is created).
 * Protected paths, when given, are normalised (`./.git/` is `.git`) and
 * deduplicated. `denyRead`, `allowRead` and `allowUnixSockets` keep their
 * `~/` paths (the executor expands them against its home directory at each
 * launch).
 * A network allow-list is checked (host names, `*.domain` wildcards, IP
 * addresses) and returned lower-cased and deduplicated.
 * Throws `BashConfigError` for a policy that is not an object, an unknown
 * mode or network value, a malformed allow-list entry, writable roots that are not absolute paths,
 * protected paths that are not relative paths inside a root, or path lists
 * holding anything but absolute and `~/` paths.
 *
 * @example
 * ```ts
 * import { resolveSandboxPolicy } from "@shellseam/bash/sandbox";
 * import { BashConfigError } from "@shellseam/bash/seam";
 * import { realpathSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import assert from "node:assert/strict";
 *
 * const root = tmpdir();
 * const policy = resolveSandboxPolicy({ mode: "read-only", workspaceRoot: root, network: "deny" });
 * assert.equal(policy.workspaceRoot, realpathSync(root));
 * assert.throws(
 *   () => resolveSandboxPolicy({ mode: "read-only", workspaceRoot: root, network: "open" as "deny" }),
 *   BashConfigError,
 * );
 * ```
 */
export function resolveSandboxPolicy(policy: SandboxPolicy): SandboxPolicy {
  if (typeof policy !== "object" || policy === null) {
    throw new BashConfigError(
      `A sandbox policy must be an object; got ${
        JSON.stringify(policy)
      }; pass { mode, workspaceRoot, network }, or omit it for the executor's default`,
    );
  }
  if (!isSandboxMode(policy.mode)) {
    throw new BashConfigError(
      `Sandbox mode ${
        JSON.stringify(policy.mode)
      } is not known; use "read-only", "workspace-write" or "danger-full-access"`,
    );
  }
  const resolved: SandboxPolicy = {
    mode: policy.mode,
    workspaceRoot: canonicalWorkspaceRoot(policy.workspaceRoot),
    network: checkedNetwork(policy.network),
  };
  if (policy.writableRoots !== undefined) {
    if (!Array.isArray(policy.writableRoots)) {
      throw new BashConfigError(
        `Writable roots must be a list of absolute paths; got ${
          JSON.stringify(policy.writableRoots)
        }; pass an array such as ["/srv/cache"]`,
      );
    }
    const given = [
      ...new Set(policy.writableRoots.map((root) => {
        if (typeof root !== "string" || !isAbsolute(root)) {
          throw new BashConfigError(
            `Writable root ${JSON.stringify(root)} is not an absolute path; pass absolute paths`,
          );
        }
        return resolve(root);
      })),
    ];
    // A root beneath another writable path is writable already; following a
    // symlink there would follow one that a confined command could plant.
    const workspace = [resolve(policy.workspaceRoot), resolved.workspaceRoot];
    resolved.writableRoots = given
      .filter((root) =>
        ![...workspace, ...given].some((other) => other !== root && isBeneath(root, other))
      )
      .map(canonicalPath);
  }
  if (policy.protectedPaths !== undefined) {
    resolved.protectedPaths = protectedPathList(policy.protectedPaths);
  }
  for (const field of ["denyRead", "allowRead", "allowUnixSockets"] as const) {
    if (policy[field] !== undefined) resolved[field] = checkedPolicyPaths(field, policy[field]);
  }
  return resolved;
}

/**
 * Protected `paths` checked and normalised: relative, inside the root (no
 * `..`), each once; otherwise a `BashConfigError` naming the entry.
 */
export function protectedPathList(paths: unknown): string[] {
  if (!Array.isArray(paths)) {
    throw new BashConfigError(
      `Protected paths must be a list of paths relative to each writable root; got ${
        JSON.stringify(paths)
      }; pass an array such as [".git", ".vscode"]`,
    );
  }
  return [
    ...new Set(paths.map((path: unknown) => {
      const normal = typeof path === "string" ? normalize(path).replace(/\/+$/, "") : "";
      if (
        typeof path !== "string" || path.includes("\0") || isAbsolute(path) || normal === "." ||
        normal === "" || path.split("/").includes("..")
      ) {
        throw new BashConfigError(
          `Protected path ${
            JSON.stringify(path)
          } is not a relative path inside a root; pass a name such as ".git" or ".vscode" (no leading "/", no "..")`,
        );
      }
      return normal;
    })),
  ];
}
