// The confined policy the backend tests start from.
import type { ConfinedPolicy } from "../../../sandbox/backends/_backend.ts";
import { MASK_FILE } from "../_fixtures.ts";

/** A confined read-only policy over `/srv/ws` with no network, with `overrides`. */
export function confinedPolicy(overrides: Partial<ConfinedPolicy> = {}): ConfinedPolicy {
  return {
    mode: "read-only",
    workspaceRoot: "/srv/ws",
    writableRoots: [],
    network: "deny",
    protectedPaths: [".git"],
    readOnlyPaths: [],
    unixSockets: false,
    masks: [],
    maskFile: MASK_FILE,
    ...overrides,
  };
}
