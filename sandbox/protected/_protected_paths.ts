import type { SandboxViolation } from "../../seam/mod.ts";
import { markRunning, markSettled, type RunningCall } from "./_commit_claim.ts";
import { type ProtectionPlan, walkAtLaunch } from "./_launch_walk.ts";
import { Quarantine } from "./_quarantine.ts";
import { Sweep } from "./_sweep.ts";
import { WalkMemory } from "./_walk_memory.ts";

/**
 * The protected paths of one call: planned at launch, swept when the call
 * ends (and, for a background command, at each read).
 */
export class ProtectedPaths implements RunningCall {
  readonly #roots: readonly string[];
  readonly #sweep: Sweep;
  readonly #memory: WalkMemory;
  #live: WeakRef<ProtectedPaths> | undefined;
  /** What to bind read-only, and where the walk stopped. */
  readonly plan: ProtectionPlan;

  /**
   * Walks the writable `roots` (canonical, existing) for the protected
   * `names`; `quarantine` gives the directory (out of every writable root)
   * that receives what a command planted; the walks never enter `skipped`
   * (executors' private folders that lie in a root: no command writes there);
   * `memory` keeps what the walks read for the next call's (an executor's
   * calls share one).
   */
  constructor(
    roots: readonly string[],
    names: readonly string[],
    quarantine: () => string,
    skipped: readonly string[] = [],
    memory: WalkMemory = new WalkMemory(),
  ) {
    this.#roots = roots;
    this.#memory = memory;
    const launch = walkAtLaunch(roots, names, new Set(skipped), memory);
    this.plan = launch.plan;
    this.#sweep = new Sweep(launch, new Quarantine(quarantine));
  }

  /**
   * Counts this guard among the calls still running (see
   * {@linkcode CommitClaim}) until `settle()`; throws `BashSpawnError` while
   * a commit in progress holds a path in its roots (the call must not start).
   */
  watch(): void {
    this.#live ??= new WeakRef(this);
    markRunning(this.#live, this.#roots);
  }

  /** Sweeps one last time (the call has ended) and stops counting it as running. */
  settle(): SandboxViolation[] {
    const violations = this.sweep();
    if (this.#live !== undefined) markSettled(this.#live);
    return violations;
  }

  /** The writable roots this call protects. */
  get roots(): readonly string[] {
    return this.#roots;
  }

  /** How many violations this call's sweeps found so far. */
  get violationCount(): number {
    return this.#sweep.violationCount;
  }

  /**
   * Where the walks so far stopped at a bound: at launch, and in the sweeps
   * (a command may fill a root past the bound to hide what it planted).
   */
  get unwalked(): ProtectionPlan["unwalked"] {
    return this.#sweep.unwalked;
  }

  /**
   * The bound the executor's folder watch met, in words, when the walks look
   * at the folders past it one by one (see `FolderWatch.bound`).
   */
  get watchBound(): string | undefined {
    return this.#memory.listings.watchBound;
  }

  /**
   * Moves to the quarantine whatever appeared at, or replaced, a protected
   * location since launch (a symlink that was replaced is put back), and
   * returns every violation found so far by this call's sweeps.
   */
  sweep(): SandboxViolation[] {
    return this.#sweep.sweep();
  }
}
