import type {
  AppliedResourceLimits,
  BashSandboxInfo,
  ResourceLimitHit,
  ResourceLimits,
} from "../seam/mod.ts";
import type { RunningCommand } from "./_command.ts";
import type { LaunchOutcome, LaunchPlan } from "./_launch.ts";

/** A spawned command with what it was launched under. */
export interface Launched {
  running: RunningCommand;
  plan: LaunchPlan;
  /** The resource limits in effect (merged; unset fields are no limit). */
  limits: ResourceLimits;
  /** Their facts, when any were set. */
  applied: AppliedResourceLimits | undefined;
  /** The limit the command's cgroup counted (set once it settled), or null without a cgroup. */
  cgroup: { hit?: ResourceLimitHit } | null;
}

/** The plan's sandbox facts, with what the resource limits could not enforce among the gaps. */
export function describe(
  plan: LaunchPlan,
  running: RunningCommand,
  stderrText: string,
  applied: AppliedResourceLimits | undefined,
): BashSandboxInfo | undefined {
  if (plan.describe === undefined) return undefined;
  const exit = running.exit ?? { code: null, signal: null };
  const outcome: LaunchOutcome = {
    exitCode: exit.code,
    signal: exit.signal,
    stderrText,
    killedByExecutor: running.cause !== null,
    ...(running.started === undefined ? {} : { started: running.started }),
  };
  const info = plan.describe(outcome);
  const more = [...(running.strays.gaps ?? []), ...(applied?.gaps ?? [])];
  if (info.enforcement !== undefined && more.length > 0) {
    info.enforcement = { ...info.enforcement, gaps: [...info.enforcement.gaps, ...more] };
  }
  return info;
}
