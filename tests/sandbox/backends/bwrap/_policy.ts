// What the bwrap tests share: a launch, the executor's folders, a policy, and a run of a launch.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import type { Launch } from "../../../../engine/mod.ts";
import type { BwrapFolders } from "../../../../sandbox/backends/bwrap/_args.ts";
import type { LaunchStandby } from "../../../../sandbox/backends/mod.ts";

export const TMP = "/run/private/tmp";
export const FOLDERS: BwrapFolders = { privateDir: "/run/private", tmpDir: TMP };

/** A launch of `bash -c true` in `cwd`. */
export const launch = (cwd: string): Launch => ({
  program: "/usr/bin/bash",
  args: ["-c", "true"],
  cwd,
  env: { PATH: "/usr/bin", TMPDIR: "/var/tmp/x" },
});

export { confinedPolicy as policy } from "../_policy.ts";

/** Runs `launch` (a wrapped one, or a standby's with its input) to its end. */
export function runLaunch(launch: Launch): SpawnSyncReturns<string> {
  return spawnSync(launch.program, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    ...(launch.input === undefined ? {} : { input: launch.input }),
    encoding: "utf8",
  });
}

/** A launch two ways, each named: `cold` as it is, and `standby`'s prepared, with its input. */
export function coldAndStandby(cold: Launch, standby: LaunchStandby): [string, Launch][] {
  return [["cold", cold], ["standby", { ...standby.prepare([]), input: standby.input({}) }]];
}
