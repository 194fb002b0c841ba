import { existsSync } from "node:fs";
import { BashSpawnError, type SandboxEnforcement, type SandboxPolicy } from "../seam/mod.ts";
import { canonicalWorkspaceRoot, DEFAULT_PROTECTED_PATHS } from "./policy.ts";
import { type ProtectedPaths, protectionGaps } from "./protected/mod.ts";
import { existingRealpath } from "../engine/mod.ts";
import { DEFAULT_DENY_READ } from "./secrets.ts";
import {
  type ConfinedPolicy,
  makeMaskFile,
  outermost,
  type SandboxBackend,
  secretMasks,
  socketMasks,
} from "./backends/mod.ts";

/**
 * Turns a policy into what a backend enforces ({@linkcode ConfinedPolicy}),
 * keeping the one empty mode-000 file that masks are made of.
 */
export class Confinement {
  readonly #home: string;
  readonly #privateDir: () => Promise<string>;
  #maskFile: string | undefined;

  /** `home` is what `~/` stands for; the mask file is made in `privateDir()`. */
  constructor(home: string, privateDir: () => Promise<string>) {
    this.#home = home;
    this.#privateDir = privateDir;
  }

  /**
   * `policy` ready to enforce: its paths canonical and existing (see
   * {@linkcode confinedRoots}), and what it hides: the `denyRead` paths
   * (less `allowRead`, the workspace and the writable roots) and, under
   * network `deny` with an `allowUnixSockets` list, every other Unix socket.
   */
  async confine(policy: SandboxPolicy): Promise<ConfinedPolicy> {
    const roots = confinedRoots(policy);
    const network = roots.network;
    const allowSockets = policy.allowUnixSockets ?? [];
    const secrets = secretMasks(
      policy.denyRead ?? DEFAULT_DENY_READ,
      policy.allowRead ?? [],
      this.#home,
      [roots.workspaceRoot, ...roots.writableRoots],
    );
    const sockets = network === "deny" && allowSockets.length > 0
      ? socketMasks(allowSockets, this.#home)
      : [];
    // Made again when an unconfined command removed the private folder.
    const maskFile = this.#maskFile !== undefined && existsSync(this.#maskFile)
      ? this.#maskFile
      : makeMaskFile(await this.#privateDir());
    this.#maskFile = maskFile;
    return {
      ...roots,
      // Under an allow-list, Unix sockets stay closed as under deny.
      unixSockets: network === "allow" || (network === "deny" && allowSockets.length > 0),
      masks: outermost([...secrets, ...sockets]),
      maskFile,
    };
  }
}

/**
 * A confined mode's policy but what it hides, every path canonical and
 * existing, checked again at each launch. Each path must still resolve to itself: a path that
 * now leads elsewhere got a symlink since it was resolved (a confined command
 * may plant one where a writable root will appear), and following it would
 * make its target writable. A workspace root that vanished or moved so is a
 * spawn error; such writable roots, and those that do not exist, are skipped.
 */
export function confinedRoots(
  policy: SandboxPolicy,
): Omit<ConfinedPolicy, "unixSockets" | "masks" | "maskFile"> {
  let workspaceRoot: string;
  try {
    workspaceRoot = canonicalWorkspaceRoot(policy.workspaceRoot);
  } catch (error) {
    throw new BashSpawnError((error as Error).message, { cause: error });
  }
  if (workspaceRoot !== policy.workspaceRoot) {
    throw new BashSpawnError(
      `Workspace root "${policy.workspaceRoot}" now resolves to "${workspaceRoot}", so nothing ` +
        "was run; remove the symlink in its path, or resolve the request again to confine it there",
    );
  }
  const writableRoots = (policy.writableRoots ?? []).filter((root) =>
    existingRealpath(root) === root
  );
  return {
    mode: policy.mode === "workspace-write" ? "workspace-write" : "read-only",
    workspaceRoot,
    writableRoots,
    network: policy.network === "allow"
      ? "allow"
      : typeof policy.network === "object"
      ? "proxy"
      : "deny",
    protectedPaths: [...(policy.protectedPaths ?? DEFAULT_PROTECTED_PATHS)],
    readOnlyPaths: [],
  };
}

/** What `backend` enforces for `policy`, with what protecting its paths leaves open. */
export function enforcementOf(
  backend: SandboxBackend,
  policy: ConfinedPolicy,
  guard: ProtectedPaths | undefined,
): SandboxEnforcement {
  const enforcement = backend.enforcement(policy);
  if (policy.mode !== "workspace-write") return enforcement;
  const gaps = protectionGaps(policy.protectedPaths, guard?.unwalked, guard?.watchBound);
  return { ...enforcement, gaps: [...enforcement.gaps, ...gaps] };
}
