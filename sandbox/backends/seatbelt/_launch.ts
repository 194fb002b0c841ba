/**
 * How a launch runs under Seatbelt: `sandbox-exec` found on the search
 * path, and a launch rewritten to run through it with a profile.
 *
 * @module
 */
import { findOnPath, type Launch } from "../../../engine/mod.ts";
import type { ConfinedPolicy } from "../mod.ts";
import { type SeatbeltFolders, seatbeltProfile } from "./_profile.ts";

/**
 * `sandbox-exec` on `searchPath` (the process's PATH when undefined), or
 * why it cannot be used. It ships with
 * macOS in `/usr/bin`; elsewhere there is none, and the reason says so.
 */
export function findSandboxExec(searchPath: string | undefined): { path: string } | {
  reason: string;
} {
  const path = findOnPath("sandbox-exec", searchPath);
  if (path === null) {
    return {
      reason:
        '"sandbox-exec" was not found on PATH; Seatbelt needs macOS, where it is /usr/bin/sandbox-exec (put /usr/bin on PATH)',
    };
  }
  return { path };
}

/**
 * `launch` run by `sandbox-exec` under the profile of `policy`:
 * `sandbox-exec -p PROFILE -DNAME=VALUE... -- PROGRAM ARGS...`, in the same
 * folder, with the command's environment (which sandbox-exec passes on)
 * and the commands' TMPDIR. The profile and its parameters hold paths and a
 * port, never the environment. Throws `BashConfigError` for a policy the
 * profile cannot express (see `seatbeltProfile`).
 */
export function seatbeltLaunch(
  launch: Launch,
  sandboxExec: string,
  policy: ConfinedPolicy,
  folders: SeatbeltFolders,
  realpath: (path: string) => string,
  proxyPort?: number,
): Launch {
  const { profile, params } = seatbeltProfile(policy, folders, realpath, proxyPort);
  const defines = Object.entries(params).map(([name, value]) => `-D${name}=${value}`);
  return {
    ...launch,
    program: sandboxExec,
    args: ["-p", profile, ...defines, "--", launch.program, ...launch.args],
    env: { ...launch.env, TMPDIR: folders.tmpDir },
  };
}
