// A RunningCommand over `bash -c script` on this host, for the engine's tests.
import { type CommandOptions, RunningCommand } from "../../engine/_command.ts";
import { ProcessControl } from "../../engine/_control.ts";
import { OutputCollector } from "../../engine/_output.ts";
import { runtime } from "../../runtime/mod.ts";
import { marker } from "../local/_helpers.ts";

/** A plain collector, as the executor makes one. */
function collector(): OutputCollector {
  return new OutputCollector({
    maxBytes: 64_000,
    headBytes: 8_000,
    maxSpillBytes: 0,
    spillDir: () => "/nonexistent",
  });
}

/** `bash -c script` watched by a RunningCommand with the given clocks and callbacks. */
export async function command(
  script: string,
  extra: Partial<CommandOptions> = {},
): Promise<RunningCommand> {
  const child = await runtime.spawn({
    program: "/bin/bash",
    args: ["-c", script],
    cwd: "/",
    env: {},
    stdin: extra.stdin === undefined ? "null" : "piped",
    session: "detached",
  });
  return new RunningCommand({
    control: new ProcessControl(runtime, null),
    marker: `none.${marker()}`,
    child,
    stdout: collector(),
    stderr: collector(),
    killGraceMs: 1000,
    drainGraceMs: 100,
    stdin: undefined,
    keepStdinOpen: false,
    ...extra,
  });
}
