import type { ProtectionPlan } from "./_launch_walk.ts";
import { PROTECTED_WALK_DEPTH, PROTECTED_WALK_ENTRIES } from "./_walk.ts";

/**
 * What protecting `names` leaves open under `workspace-write` on every
 * backend: the time a command runs (a missing path cannot be refused without
 * a mount point on the host), and the parts of the writable roots the walk
 * did not reach. `watchBound` (the bound the executor's folder watch met)
 * leaves nothing open, but is said here with the walk's other facts: the
 * folders past it cost an `lstat` each at every launch and sweep.
 */
export function protectionGaps(
  names: readonly string[],
  unwalked: ProtectionPlan["unwalked"] = [],
  watchBound?: string,
): string[] {
  if (names.length === 0) return [];
  const list = names.map((name) => `\`${name}\``).join(", ");
  return [
    `a missing or symlinked protected path (${list}) can be created or replaced while a command ` +
    "runs; it is moved to the executor's quarantine when the command ends (a background " +
    "command: when it settles, and at each read)",
    ...unwalked.map(({ root, bound }) =>
      bound === "unlisted"
        ? `nested protected paths below ${root} are neither bound read-only nor checked: it cannot be listed`
        : `nested protected paths below ${root} past the walk's ${
          bound === "depth"
            ? `${PROTECTED_WALK_DEPTH} directories deep`
            : `${PROTECTED_WALK_ENTRIES} entries`
        } are neither bound read-only nor checked`
    ),
    ...(watchBound === undefined ? [] : [
      `the protected-path walk's folder watch met its bound (${watchBound}): the folders past ` +
      "it are still checked, each by an lstat at every launch and sweep, so each call costs more",
    ]),
  ];
}
