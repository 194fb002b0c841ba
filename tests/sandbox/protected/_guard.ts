import { join } from "node:path";
import { ProtectedPaths } from "../../../sandbox/protected/mod.ts";
import type { Workspace } from "../_fixtures.ts";

/** The protected paths of `workspace`'s root (and `more` roots), quarantined into its base. */
export function guard(
  workspace: Workspace,
  names: string[] = [".git"],
  more: string[] = [],
): ProtectedPaths {
  return new ProtectedPaths(
    [workspace.root, ...more],
    names,
    () => join(workspace.base, "quarantine"),
  );
}
