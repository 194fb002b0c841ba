import { BashSpawnError } from "../../seam/mod.ts";
import { isBeneath } from "../../engine/mod.ts";

/** A confined call that may still be running, as a commit sees it: the roots it can write. */
export interface RunningCall {
  /** The writable roots of the call (canonical). */
  readonly roots: readonly string[];
}

/**
 * The guards of the calls in this process that may still be running: from
 * launch until their last sweep (a guard whose spawn failed is dropped when
 * it is collected). A commit in progress must not overlap their roots (see
 * {@linkcode CommitClaim}).
 */
const LIVE = new Set<WeakRef<RunningCall>>();

/**
 * Every root a confined command of this process could have written, since
 * its executor was made (canonical): a program the host runs for a commit
 * (`git`) must lie in none of them (see {@linkcode grantedRoots}).
 */
const GRANTED = new Set<string>();

/** The claims of the commits in progress in this process (see {@linkcode CommitClaim}). */
const CLAIMS = new Set<CommitClaim>();

/** True when one of `a` and `b` (canonical) lies in the other. */
function overlap(a: string, b: string): boolean {
  return isBeneath(a, b) || isBeneath(b, a);
}

/**
 * What a commit on the host relies on while it runs (a repository's working
 * tree and git folders, the config files it includes, the `git` program):
 * its checks are a snapshot, so no confined call that could write one of
 * them may run meanwhile. A claim is refused while a call of this process
 * whose writable roots overlap a path still runs (from launch until its
 * last sweep), and while it is held, such a call is refused at launch
 * (`ProtectedPaths.watch`). Calls of other processes are not seen.
 */
export class CommitClaim implements Disposable {
  readonly #paths: string[] = [];

  constructor() {
    CLAIMS.add(this);
  }

  /** The paths claimed so far. */
  get paths(): readonly string[] {
    return this.#paths;
  }

  /**
   * Claims `paths` (canonical), or returns why not: a confined call still
   * running can write one of them (then none is claimed).
   */
  claim(paths: readonly string[]): string | undefined {
    for (const ref of LIVE) {
      const guard = ref.deref();
      if (guard === undefined) {
        LIVE.delete(ref);
        continue;
      }
      for (const path of paths) {
        const root = guard.roots.find((root) => overlap(path, root));
        if (root !== undefined) {
          return `a confined command still running can write "${root}", so it could plant or change "${path}" while git runs (the checks are a snapshot): stop it (task_kill) or let it end, then retry`;
        }
      }
    }
    this.#paths.push(...paths);
    return undefined;
  }

  /** Gives the paths up: confined calls may write them again. */
  [Symbol.dispose](): void {
    CLAIMS.delete(this);
  }
}

/**
 * Counts `call` among the calls still running (see {@linkcode CommitClaim})
 * until {@linkcode markSettled}; throws `BashSpawnError` while a commit in
 * progress holds a path in `roots`, the call's writable roots (the call must
 * not start).
 */
export function markRunning(call: WeakRef<RunningCall>, roots: readonly string[]): void {
  for (const claim of CLAIMS) {
    for (const path of claim.paths) {
      const root = roots.find((root) => overlap(path, root));
      if (root === undefined) continue;
      throw new BashSpawnError(
        `A commit (gitCommit) is in progress on "${path}", which the writable root "${root}" holds, and its checks must hold until it ends, so the command was not run; retry it once the commit returned`,
      );
    }
  }
  LIVE.add(call);
}

/**
 * Counts `roots` (canonical) among those a confined command of this process
 * could have written: an executor's default policy's, each workspace-write
 * call's (see `GrantedRoots`).
 */
export function markGranted(roots: readonly string[]): void {
  for (const root of roots) GRANTED.add(root);
}

/** The roots a confined command of this process could have written so far (see {@linkcode markGranted}). */
export function grantedRoots(): string[] {
  return [...GRANTED];
}

/**
 * How many roots were granted so far (see {@linkcode markGranted}): the
 * count only grows, so it tells whether any root was granted since.
 */
export function grantedCount(): number {
  return GRANTED.size;
}

/** Stops counting `call` among the calls still running. */
export function markSettled(call: WeakRef<RunningCall>): void {
  LIVE.delete(call);
}
