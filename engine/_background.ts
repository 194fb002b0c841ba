import type { BashExecSpec } from "../seam/mod.ts";
import { limitHit } from "./_limits.ts";
import { describe, type Launched } from "./_launched.ts";
import { LocalBashProcess } from "./_process.ts";

/** The background process of a launched command: its handle, with its sandbox and limit facts. */
export function backgroundProcess(spec: BashExecSpec, launched: Launched): LocalBashProcess {
  const { running, plan, limits, applied, cgroup } = launched;
  return new LocalBashProcess(spec.command, running, spec.keepStdinOpen === true, () => {
    const stderrText = running.stderr.collect().text;
    return {
      sandbox: describe(plan, running, stderrText, applied),
      limitHit: cgroup?.hit ??
        limitHit(limits, running.exit ?? { code: null, signal: null }, stderrText),
    };
  }, plan.beforeRead);
}
