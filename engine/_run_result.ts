import type { BashExecSpec, BashRunResult } from "../seam/mod.ts";
import type { RunningCommand } from "./_command.ts";
import { limitHit } from "./_limits.ts";
import { describe, type Launched } from "./_launched.ts";

/**
 * The end of a foreground run, for every executor (the engine's and the SSH
 * executor's): awaits the command's settling and builds its result (rejects
 * with the spawn failure when it had one). `scrubbed` names the variables
 * removed from the environment.
 */
export async function finishRun(
  spec: BashExecSpec,
  launched: Launched,
  scrubbed: Iterable<string>,
): Promise<BashRunResult> {
  const { running, plan, limits, applied, cgroup } = launched;
  await running.settled;
  if (running.failure !== undefined) throw running.failure;
  const result = commandResult(spec, running);
  result.scrubbedEnv = [...scrubbed];
  const { stderr } = result;
  const exit = running.exit ?? { code: null, signal: null };
  const sandbox = describe(plan, running, stderr.text, applied);
  if (sandbox !== undefined) result.sandbox = sandbox;
  if (applied !== undefined) result.limits = applied;
  const hit = cgroup?.hit ?? limitHit(limits, exit, stderr.text);
  if (hit !== undefined) result.limitHit = hit;
  return result;
}

/**
 * The facts every executor's result of a settled command shares: exit,
 * why it was stopped, both streams, the strays, and whether disposal or an
 * `onOutput` callback's error ended it; `scrubbedEnv` is left empty.
 */
function commandResult(spec: BashExecSpec, running: RunningCommand): BashRunResult {
  const exit = running.exit ?? { code: null, signal: null };
  const result: BashRunResult = {
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: running.cause === "timeout",
    idledOut: running.cause === "idle",
    aborted: running.cause === "abort",
    timeoutMs: spec.timeoutMs,
    durationMs: running.durationMs,
    stdout: running.stdout.collect(),
    stderr: running.stderr.collect(),
    strays: running.strays,
    scrubbedEnv: [],
  };
  if (running.cause === "dispose") result.disposed = true;
  if (running.onOutputError !== undefined) result.onOutputError = running.onOutputError;
  return result;
}
