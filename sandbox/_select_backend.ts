/**
 * How a call's backend is chosen: the first that works and whose runners
 * no writable root can replace, or, while the first possible one is still
 * probed, that one with the probe's verdict to await.
 *
 * @module
 */
import { BashSpawnError, SandboxUnavailableError } from "../seam/mod.ts";
import type { Launch } from "../engine/mod.ts";
import type { ConfinedPolicy, SandboxBackend, SandboxBackendName } from "./backends/mod.ts";
import type { BackendProbes } from "./_backend_probes.ts";
import { noBackendRemedy, platformRefusal } from "./_backend_kinds.ts";
import type { ExposureChecks } from "./_exposure.ts";

/** Where {@linkcode selectBackend} learns which backends work: their probes. */
type ProbeSource = Pick<BackendProbes, "probe" | "platform">;

/**
 * What {@linkcode selectBackend} runs outside the backend: the setsid binary
 * and the bridge before it, the host's own tools beside it.
 */
export interface Runners {
  /** The setsid binary in front of the launch, if any. */
  setsid: string | null;
  /**
   * The folders in which the host finds its own tools, which it runs
   * unconfined while commands run and after them (the executor's
   * `toolPath`: the watchdog's `grep` and `rm`, a terminal's `stty`).
   */
  toolFolders: readonly string[];
  /**
   * The bridge's programs in front of `backend`'s launch: none without a
   * network allow-list, nor for a backend that limits the network to the
   * proxy's port itself. Rejects (`SandboxUnavailableError`) when the
   * bridge, needed, cannot run here.
   */
  bridge: (backend: SandboxBackend) => Promise<readonly string[]>;
  /**
   * Every root a confined command could have written, where none of these
   * may lie: the call's own (a read-only call's too, which an earlier write
   * call may have written) and every one the executor granted before (see
   * `GrantedRoots`), canonical.
   */
  writableRoots: readonly string[];
  /** Where the exposure of what runs before the backend is asked (see `ExposureChecks`). */
  checks: ExposureChecks;
}

/** The backend a call is launched under (see {@linkcode chooseBackend}). */
export interface ChosenBackend {
  /** The backend. */
  backend: SandboxBackend;
  /**
   * Set when it was chosen before its probe ended (see `LaunchPlan.verdict`):
   * resolves at once for a launch that said its command started, since the
   * backend then confines it (and its probe, unless started, then runs no
   * launch: see `BackendProbes.proven`); otherwise, the probe started if it
   * was not, once the probe found the backend
   * works, or rejects with the `SandboxUnavailableError` that the choice
   * would have thrown after the probe, or with a `BashSpawnError` when the
   * probe refused the backend for another.
   */
  verdict?: (started: boolean | undefined) => Promise<void>;
  /**
   * Set with `verdict`, for a launch that ended before its command started
   * (see `LaunchPlan.announcesStart`): resolves true when the probe refused
   * the backend for another (the call is then planned again, under that
   * one), false when it found the backend works, or rejects with the
   * `SandboxUnavailableError` that the choice would have thrown after the probe.
   */
  again?: () => Promise<boolean>;
}

/**
 * The backend for a call, as {@linkcode selectBackend} picks it. When the
 * first of `names` that can run on this platform may launch before its
 * probe ends (see `SandboxBackend.launchesBeforeProbe`) and that probe has
 * not ended, the call does not wait for it: the backend comes with a
 * verdict, which the call's result awaits. A launch that said its command
 * started proves the backend itself, in place of the probe's launch; one
 * that did not is judged by the probe, as the same choice made again once
 * the probe ended. With other
 * backends after it, only a launch that says when its command starts
 * (`announces`) goes ahead: one that ended before its command started is
 * planned again under the backend that the probe's choice then picks.
 */
export async function chooseBackend(
  probes: BackendProbes,
  names: readonly SandboxBackendName[],
  policy: ConfinedPolicy,
  launch: Launch,
  runners: Runners,
  announces: (backend: SandboxBackend) => boolean,
): Promise<ChosenBackend> {
  const possible = names.filter((name) => platformRefusal(name, probes.platform) === undefined);
  const first = possible[0];
  const early = first === undefined ? undefined : await probes.beforeProbe(first);
  const afterProbe = () => selectBackend(probes, names, policy, launch, runners);
  if (early === undefined || (possible.length > 1 && !announces(early))) {
    return { backend: await afterProbe() };
  }
  const assumed: ProbeSource = {
    platform: probes.platform,
    probe: (name) =>
      name === first
        ? Promise.resolve({ status: { backend: name, works: true }, backend: early })
        : probes.probe(name),
  };
  // Passed over all the same (its runners are exposed), the choice does not
  // depend on its probe; an error, though, names what the probe found.
  const chosen = await selectBackend(assumed, names, policy, launch, runners).catch(afterProbe);
  if (chosen !== early) return { backend: chosen };
  /** Whether the probe's choice is the backend launched. */
  const confirmed = async () => {
    // Their probes run while the first one ends: a launch that failed may need one of them.
    for (const name of possible) probes.probe(name).catch(() => {});
    const after = await afterProbe();
    return after === early ? undefined : after;
  };
  return {
    backend: early,
    verdict: async (started) => {
      if (started === true) {
        // Its probe's launch would prove no more: it need not run.
        probes.proven(early.name);
        return;
      }
      const other = await confirmed();
      if (other === undefined) return;
      const { status } = await probes.probe(early.name);
      throw new BashSpawnError(
        `The command was launched under "${early.name}" while its probe still ran, and the ` +
          `probe then found that it cannot confine commands here (${status.reason}), so the ` +
          `launch was stopped (${
            started === false
              ? "its command never started"
              : "whether its command started is unknown"
          }); run the command again, and "${other.name}" confines it`,
      );
    },
    again: async () => (await confirmed()) !== undefined,
  };
}

/**
 * The first of `names` that works here and whose programs, run before the
 * confinement applies, no root a confined command could have written holds
 * (`Runners.writableRoots`: a command could otherwise swap one, and the next
 * launch would run it unconfined). Throws `SandboxUnavailableError` naming
 * why each was passed over.
 */
async function selectBackend(
  probes: ProbeSource,
  names: readonly SandboxBackendName[],
  policy: ConfinedPolicy,
  launch: Launch,
  { setsid, bridge, toolFolders, writableRoots, checks }: Runners,
): Promise<SandboxBackend> {
  const attempts: { backend: string; reason: string }[] = [];
  let remedy: string | undefined;
  for (const name of names) {
    const probe = await probes.probe(name);
    const { backend, status } = probe;
    if (backend === undefined) {
      attempts.push({ backend: name, reason: status.reason ?? "unknown" });
      remedy = status.remedy;
      continue;
    }
    const exposure = checks.exposure({
      programs: [
        ...(setsid === null ? [] : [setsid]),
        ...await bridge(backend),
        ...backend.runners(launch),
      ],
      toolFolders,
      folders: backend.runnerFolders(),
    }, writableRoots);
    if (exposure === undefined) return backend;
    attempts.push({ backend: name, reason: exposure.reason });
    remedy = exposure.remedy;
  }
  // A user who listed one backend is told what makes it usable.
  const what = names.length === 1 && remedy !== undefined
    ? remedy
    : noBackendRemedy(probes.platform);
  throw new SandboxUnavailableError(
    `No sandbox backend can confine this command here, so the "${policy.mode}" command was ` +
      `not run; ${what}, or run it as "danger-full-access"`,
    attempts,
  );
}
