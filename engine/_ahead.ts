/**
 * Processes a confiner starts ahead of a call (see `ConfinerHost.startAhead`):
 * spawned in a session of their own (the setsid binary, or the runtime's own
 * where that costs no more), with stdin piped, known to the watchdog, and unref'd:
 * one that waits does not keep the host alive, and the watchdog ends it with
 * the host.
 *
 * @module
 */
import type { SpawnedChild } from "../runtime/mod.ts";
import type { ResolvedLocalBashExecutorConfig } from "./_config.ts";
import type { ProcessControl } from "./_control.ts";
import type { Launch } from "./_launch.ts";
import { disposedError } from "./_lifecycle.ts";
import { inOwnSession } from "./_session.ts";
import type { Watchdog } from "./_watchdog.ts";

/** What the engine lends the processes started ahead (read when used: it sets them up after). */
export interface AheadParts {
  config: () => ResolvedLocalBashExecutorConfig;
  watchdog: () => Watchdog | null;
  control: () => ProcessControl;
  disposed: () => boolean;
  /** Throws when the programs of a launch must not run outside any sandbox now (see `WatchdogOptions.vet`). */
  vet: (programs: readonly string[]) => void;
}

/** A process started ahead, and `forkCount()` just after it was spawned. */
export interface Ahead {
  child: SpawnedChild;
  forksAtSpawn: number | null;
}

/**
 * Spawns `launch` ahead of a call, after vetting it and `runs`, what it runs
 * unconfined besides (see `ConfinerHost.startAhead`); rejects with
 * `BashSpawnError` once the executor is disposed.
 */
export async function startAhead(
  parts: AheadParts,
  launch: Launch,
  runs: readonly string[] = [],
): Promise<Ahead> {
  const watchdog = parts.watchdog();
  await watchdog?.ready();
  if (parts.disposed()) throw disposedError();
  const { runtime, ...config } = parts.config();
  // Where the runtime's `detached` costs no more (Node forks for every spawn), the setsid
  // binary would add an exec to every process started ahead (measured under Node 22, for a
  // warm bwrap call: 3.9 ms of CPU). One that cannot start is dropped, and the call starts cold
  // through the setsid binary, which reports a runner gone as the call's failure.
  const setsidPath = runtime.autoSession === "detached" ? null : config.setsidPath;
  // Checked at the spawn, not when planned: a call since may have been granted the program's folder.
  parts.vet([...(setsidPath === null ? [] : [setsidPath]), launch.program, ...runs]);
  const child = await runtime.spawn({
    ...inOwnSession(setsidPath, launch.program, launch.args),
    cwd: launch.cwd,
    env: launch.env,
    stdin: "piped",
  });
  const forksAtSpawn = parts.control().forkCount();
  watchdog?.watch(child.pid);
  child.unref();
  return { child, forksAtSpawn };
}

/** Kills a process started ahead that no call took (its session), and tells the watchdog once it is gone. */
export async function endAhead(parts: AheadParts, child: SpawnedChild): Promise<void> {
  child.ref();
  await parts.control().signal("SIGKILL", [child.pid, -child.pid]).catch(() => {});
  await Promise.all([
    child.exited,
    child.stdout.cancel().catch(() => {}),
    child.stderr.cancel().catch(() => {}),
    child.stdin?.abort().catch(() => {}),
  ]);
  parts.watchdog()?.release(child.pid);
}
