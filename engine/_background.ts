import type { BashExecSpec } from "../seam/mod.ts";
import { limitHit } from "./_limits.ts";
import { describe, type Launched } from "./_launched.ts";
import { LocalBashProcess } from "./_process.ts";
import type { TerminalControl } from "./_terminal.ts";

/**
 * The background process of a launched command: its handle, with its sandbox
 * and limit facts, and its `terminal` when it runs in one.
 */
export function backgroundProcess(
  spec: BashExecSpec,
  launched: Launched,
  terminal?: TerminalControl,
): LocalBashProcess {
  const { running, plan, limits, applied, cgroup } = launched;
  const keepStdinOpen = spec.keepStdinOpen === true || terminal !== undefined;
  return new LocalBashProcess(
    spec.command,
    running,
    keepStdinOpen,
    () => {
      const stderrText = running.stderr.collect().text;
      return {
        sandbox: describe(plan, running, stderrText, applied),
        limitHit: cgroup?.hit ??
          limitHit(limits, running.exit ?? { code: null, signal: null }, stderrText),
      };
    },
    plan.beforeRead,
    terminal,
  );
}
