import type { TaskEntry } from "./_entry.ts";
import type { TaskOwner } from "./owner.ts";

/**
 * The settled tasks whose final state their owner saw, per owner in the
 * order seen. These are the only tasks the registry may let go: the oldest
 * past `maxPerOwner` of one owner, and any seen more than `ttlMs` ago.
 */
export class SeenTasks<Output> {
  readonly #byOwner = new Map<TaskOwner, Set<TaskEntry<Output>>>();
  readonly #maxPerOwner: number;
  readonly #ttlMs: number;

  constructor(maxPerOwner: number, ttlMs: number) {
    this.#maxPerOwner = maxPerOwner;
    this.#ttlMs = ttlMs;
  }

  /**
   * Records that the owner saw `entry` at `now` (only the first time counts)
   * and returns the owner's oldest seen tasks past the cap, to let go.
   */
  add(entry: TaskEntry<Output>, now: number): TaskEntry<Output>[] {
    if (entry.seenAt !== undefined) return [];
    entry.seenAt = now;
    let seen = this.#byOwner.get(entry.owner);
    if (seen === undefined) this.#byOwner.set(entry.owner, seen = new Set());
    seen.add(entry);
    if (seen.size <= this.#maxPerOwner) return [];
    return [...seen].slice(0, seen.size - this.#maxPerOwner);
  }

  /** The seen tasks that are past the time limit at `now`, to let go. */
  expired(now: number): TaskEntry<Output>[] {
    const cutoff = now - this.#ttlMs;
    const expired: TaskEntry<Output>[] = [];
    for (const seen of this.#byOwner.values()) {
      for (const entry of seen) {
        if ((entry.seenAt ?? 0) > cutoff) break;
        expired.push(entry);
      }
    }
    return expired;
  }

  /** Forgets `entry`, once the registry let it go or dropped it. */
  delete(entry: TaskEntry<Output>): void {
    const seen = this.#byOwner.get(entry.owner);
    seen?.delete(entry);
    if (seen?.size === 0) this.#byOwner.delete(entry.owner);
  }
}
