import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  type BashRunResult,
  BashSpawnError,
  type ResourceLimits,
  type SandboxEnforcement,
  type SandboxPolicy,
} from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import {
  appliedLimits,
  cgroupSupportFor,
  type ConfinerHost,
  existingRealpath,
  isOwnDirectory,
} from "../engine/mod.ts";
import type { SandboxBackend, SandboxBackendName } from "./backends/mod.ts";
import { BACKEND_KINDS, platformRefusal } from "./_backend_kinds.ts";
import { platformOf } from "../runtime/mod.ts";
import { type Confinement, enforcementOf } from "./_confinement.ts";
import { type Exposure, exposureOf, toolFoldersOf, type Unconfined } from "./_exposure.ts";

/** The probe's launches at most, as a call's (the engine's `MAX_LAUNCHES`). */
const PROBE_LAUNCHES = 3;

/**
 * What probing one backend found on this machine.
 *
 * @example
 * ```ts
 * import type { SandboxBackendStatus } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const status: SandboxBackendStatus = {
 *   backend: "bwrap",
 *   works: false,
 *   reason: '"bwrap" was not found on PATH; install bubblewrap',
 * };
 * assert.equal(status.works, false);
 * ```
 */
export interface SandboxBackendStatus {
  /** Which backend. */
  backend: SandboxBackendName;
  /** True when a trivial command ran confined by it. */
  works: boolean;
  /** Why it does not work. */
  reason?: string;
  /**
   * What to do when it does not work and the reason is not a missing
   * program (a runner that lies where a confined command could replace it):
   * what an error with no other backend to offer says.
   */
  remedy?: string;
  /** The kernel's Landlock ABI, as the Landlock launcher found it. */
  landlockAbi?: number;
  /**
   * What a command confined by it tried and whether each was refused (the
   * Seatbelt backend proves itself so before its first command; one not
   * refused makes it fail closed, and `reason` names it).
   */
  selfProbe?: { probe: string; refused: boolean }[];
  /**
   * What it would enforce for the executor's default policy (for
   * `workspace-write` when the default mode is `danger-full-access`).
   */
  enforcement?: SandboxEnforcement;
}

/** A backend's probe: what it found, and the backend when it works. */
export interface Probe {
  /** What the probe found. */
  status: SandboxBackendStatus;
  /** The backend, when it works here. */
  backend?: SandboxBackend;
}

/** What {@linkcode BackendProbes} needs to know. */
export interface BackendProbeOptions {
  /** Where `bwrap`, `perl`, `deno` and `unshare` are looked up. */
  searchPath: string | undefined;
  /** How long one probe may take. */
  probeTimeoutMs: number;
  /** The executor's default policy, whose enforcement a status reports. */
  defaultPolicy: Readonly<SandboxPolicy>;
  /** A confined call's default limits, whose gaps a status reports. */
  confinedLimits: ResourceLimits;
  /**
   * Every root a confined command could have written by now (see
   * `GrantedRoots`), where nothing a probe runs may lie.
   */
  writableRoots: () => readonly string[];
}

/**
 * Each backend prepared and probed once per executor (a trivial command
 * confined by it), with the private folders the backends use (the
 * commands' TMPDIR, the Landlock launcher's folder), which it makes again
 * when an unconfined command removed them. Nothing a preparation or a
 * probe runs unconfined may lie where a confined command could have
 * replaced it (see `sandbox/_exposure.ts`): such a backend is passed over.
 */
export class BackendProbes {
  readonly #options: BackendProbeOptions;
  readonly #host: ConfinerHost;
  readonly #confinement: Confinement;
  readonly #probes = new Map<SandboxBackendName, Promise<Probe>>();
  /** Each backend prepared (not yet probed), or what its probe reports when it cannot be. */
  readonly #prepared = new Map<SandboxBackendName, Promise<SandboxBackend | Probe>>();
  /** The backends whose probe has ended. */
  readonly #probed = new Set<SandboxBackendName>();
  /** The backends' folders in the private folder, once made (canonical). */
  readonly #folders = new Set<string>();

  /** Holds `options`; runs the probes through `host`. */
  constructor(options: BackendProbeOptions, host: ConfinerHost, confinement: Confinement) {
    this.#options = options;
    this.#host = host;
    this.#confinement = confinement;
  }

  /** The platform (as `process.platform` names it) the executor's runtime runs on. */
  get platform(): string {
    return platformOf(this.#host.config.runtime).os;
  }

  /** Backend `name`'s probe, run on the first call. */
  probe(name: SandboxBackendName): Promise<Probe> {
    return this.#settle(name, () => this.#run(name));
  }

  /**
   * Records that a launch of backend `name` said its command started (see
   * `LaunchPlan.announcesStart`) before its probe started: that launch
   * proved what the probe's launch would have, so its probe finds the
   * backend works without a launch of its own. A probe already started is
   * left to end.
   */
  proven(name: SandboxBackendName): void {
    void this.#settle(name, async () => {
      const prepared = await this.#prepare(name);
      return "status" in prepared ? prepared : await this.#works(prepared);
    }).catch(() => {
      // Nothing is lost: a probe asked for later gets the same error.
    });
  }

  /** Backend `name`'s probe by `run`, unless it has one. */
  #settle(name: SandboxBackendName, run: () => Promise<Probe>): Promise<Probe> {
    let probe = this.#probes.get(name);
    if (probe === undefined) {
      probe = run().finally(() => this.#probed.add(name));
      this.#probes.set(name, probe);
    }
    return probe;
  }

  /**
   * Backend `name` prepared, for a launch that starts before its probe
   * ends: when the backend allows it (see `SandboxBackend.launchesBeforeProbe`)
   * and its probe has not ended. Else undefined: the probe's verdict,
   * awaited, is what counts. The probe is not started here: a launch that
   * says its command started proves the backend (see {@linkcode proven}),
   * and one that does not asks for the probe.
   */
  async beforeProbe(name: SandboxBackendName): Promise<SandboxBackend | undefined> {
    const prepared = await this.#prepare(name);
    return "status" in prepared || prepared.launchesBeforeProbe !== true || this.#probed.has(name)
      ? undefined
      : prepared;
  }

  /**
   * Makes the backends' private folders (TMPDIR, the launcher's folder)
   * again when an unconfined command removed them (with the private folder
   * around them): only under the private folder's own name, never in a folder
   * that now belongs to someone else; then what `backend` wrote at its
   * preparation (see `SandboxBackend.restore`).
   */
  async restore(backend: SandboxBackend): Promise<void> {
    const missing = [...this.#folders].filter((path) => !existsSync(path));
    if (missing.length > 0) {
      const dir = await this.#host.privateDir();
      for (const path of missing) {
        if ((existingRealpath(dir) ?? dir) !== dirname(path)) {
          throw new BashSpawnError(
            `The private folder "${dirname(path)}" was removed and its name is taken, so the ` +
              "sandbox has no TMPDIR and nothing was run; create a new executor",
          );
        }
        try {
          mkdirSync(path, { mode: 0o700 });
        } catch (error) {
          // Made meanwhile (the private folder's own restoring, or another launch's).
          if ((error as { code?: string }).code !== "EEXIST" || !isOwnDirectory(path)) throw error;
        }
      }
    }
    backend.restore?.();
  }

  /** Backend `name` prepared once (see `BackendKind.prepare`), or the probe's findings when it cannot be. */
  #prepare(name: SandboxBackendName): Promise<SandboxBackend | Probe> {
    let prepared = this.#prepared.get(name);
    if (prepared === undefined) {
      prepared = this.#prepareNow(name);
      this.#prepared.set(name, prepared);
    }
    return prepared;
  }

  async #prepareNow(name: SandboxBackendName): Promise<SandboxBackend | Probe> {
    const refusal = platformRefusal(name, this.platform);
    if (refusal !== undefined) return { status: { backend: name, works: false, reason: refusal } };
    const exposed = (program: string) => this.exposure({ programs: [program], folders: [] });
    const prepared = await BACKEND_KINDS[name].prepare({
      searchPath: this.#options.searchPath,
      probeTimeoutMs: this.#options.probeTimeoutMs,
      privateFolder: (folder, purpose) => this.#privateFolder(folder, purpose),
      exposed,
      runDirect: (request, wrap) =>
        this.#host.runDirect(request, (launch) => {
          const wrapped = wrap(launch);
          const exposure = exposed(wrapped.program);
          if (exposure !== undefined) throw new BashSpawnError(exposure.reason);
          return wrapped;
        }),
    });
    if (!("reason" in prepared)) return prepared;
    return { status: { backend: name, works: false, ...prepared } };
  }

  /**
   * Why what a probe runs unconfined (a backend's, or the network bridge's),
   * with the setsid binary and the host's tools in front, must not be run
   * (see `exposureOf`), or undefined.
   */
  exposure(
    { programs, folders }: Pick<Unconfined, "programs" | "folders">,
  ): Exposure | undefined {
    const { setsidPath, toolPath } = this.#host.config;
    return exposureOf({
      programs: [...(setsidPath === null ? [] : [setsidPath]), ...programs],
      toolFolders: toolFoldersOf(toolPath),
      folders,
    }, this.#options.writableRoots());
  }

  async #run(name: SandboxBackendName): Promise<Probe> {
    const prepared = await this.#prepare(name);
    if ("status" in prepared) return prepared;
    const backend = prepared;
    const { defaultPolicy, probeTimeoutMs } = this.#options;
    let reason: string | undefined;
    let exposure: Exposure | undefined;
    try {
      // No socket masks: a socket that goes while the probe starts would fail
      // it, and a failed probe rules the backend out for the executor's life.
      const policy = await this.#confinement.confine({
        ...defaultPolicy,
        mode: "read-only",
        network: "deny",
        allowUnixSockets: [],
      });
      // The direct path: the backend's probe launch of `bash -c true`, not a
      // plan; again while its setup met a path that changed under it (the
      // host's mount table, see `setupRaced`), as a call's launch would be.
      let result: BashRunResult;
      let launches = 0;
      do {
        launches++;
        result = await this.#host.runDirect(
          { command: "true", workdir: policy.workspaceRoot, timeoutMs: probeTimeoutMs },
          (launch) => {
            exposure = this.exposure({
              programs: backend.runners(launch),
              folders: backend.runnerFolders(),
            });
            if (exposure !== undefined) throw new BashSpawnError(exposure.reason);
            return backend.probeLaunch({ ...launch, args: ["-c", "true"] }, policy);
          },
        );
      } while (
        launches < PROBE_LAUNCHES && result.exitCode !== 0 &&
        backend.setupRaced?.(result.stderr.text, policy) === true
      );
      reason = result.timedOut
        ? `probe timed out after ${probeTimeoutMs} ms`
        : backend.probeFailure({
          exitCode: result.exitCode,
          stdout: result.stdout.text,
          stderr: result.stderr.text,
        });
    } catch (error) {
      reason = exposure?.reason ?? `probe could not start: ${messageOf(error)}`;
    }
    if (reason !== undefined) {
      return {
        status: {
          backend: name,
          works: false,
          reason,
          ...(exposure === undefined ? {} : { remedy: exposure.remedy }),
        },
      };
    }
    return await this.#works(backend);
  }

  /**
   * What the probe of a working `backend` reports: what it enforces for the
   * default policy, with what the default limits cannot enforce.
   */
  async #works(backend: SandboxBackend): Promise<Probe> {
    const { defaultPolicy } = this.#options;
    const status: SandboxBackendStatus = { backend: backend.name, works: true };
    const factsPolicy = defaultPolicy.mode === "danger-full-access"
      ? { ...defaultPolicy, mode: "workspace-write" as const }
      : defaultPolicy;
    // As a command reports it: with what the default limits cannot enforce.
    const enforcement = enforcementOf(
      backend,
      await this.#confinement.confine(factsPolicy),
      undefined,
    );
    const { confinedLimits } = this.#options;
    const limits = appliedLimits(
      confinedLimits,
      true,
      cgroupSupportFor(this.#host.config.useCgroups, confinedLimits),
    );
    status.enforcement = {
      ...enforcement,
      gaps: [...enforcement.gaps, ...(limits?.gaps ?? [])],
    };
    if (backend.landlockAbi) status.landlockAbi = backend.landlockAbi();
    if (backend.selfProbe) status.selfProbe = backend.selfProbe();
    return { status, backend };
  }

  /**
   * A folder `name` in the executor's private folder (made once, 0700), by
   * its canonical path, or why it cannot be made: the commands' TMPDIR (both
   * backends probe at once, so it may exist already) and the Landlock launcher's folder.
   */
  async #privateFolder(name: string, purpose: string): Promise<string | { reason: string }> {
    try {
      const path = join(await this.#host.privateDir(), name);
      mkdirSync(path, { mode: 0o700, recursive: true });
      const real = existingRealpath(path) ?? path;
      this.#folders.add(real);
      return real;
    } catch (error) {
      return { reason: `cannot make its private ${purpose}: ${messageOf(error)}` };
    }
  }
}
