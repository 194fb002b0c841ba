import {
  DisposedTaskError,
  ExpiredTaskError,
  TaskOwnershipError,
  UnknownTaskError,
} from "./errors.ts";
import type { TaskOwner } from "./owner.ts";

/**
 * How many ids dropped by a disposal are remembered, so they answer
 * `DisposedTaskError`; past it the oldest answer `ExpiredTaskError`.
 */
const MAX_DISPOSED_IDS = 10_000;

/** Why a disposal dropped a task, kept so its id answers `DisposedTaskError`. */
export interface Disposed {
  owner: TaskOwner;
  by: "owner" | "registry";
  cancelFailed: boolean;
}

/**
 * The ids of a registry: it issues `<kind>-N` with a counter per kind, and
 * for an id it no longer keeps it tells why the id is gone.
 */
export class TaskIds {
  readonly #counters = new Map<string, number>();
  /** Ids dropped by a disposal, oldest first, at most `MAX_DISPOSED_IDS`. */
  readonly #disposed = new Map<string, Disposed>();

  /** The next id of `kind`. */
  issue(kind: string): string {
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    return `${kind}-${n}`;
  }

  /** Remembers that a disposal dropped `id`; the oldest remembered is forgotten past the cap. */
  recordDisposed(id: string, disposed: Disposed): void {
    this.#disposed.set(id, disposed);
    for (const oldest of this.#disposed.keys()) {
      if (this.#disposed.size <= MAX_DISPOSED_IDS) break;
      this.#disposed.delete(oldest);
    }
  }

  /** The error for an id the registry does not keep: why it went, if it was issued. */
  goneError(id: unknown, owner: TaskOwner): UnknownTaskError | TaskOwnershipError {
    const disposed = typeof id === "string" ? this.#disposed.get(id) : undefined;
    if (disposed !== undefined) {
      return disposed.owner === owner
        ? new DisposedTaskError(String(id), disposed.by, disposed.cancelFailed)
        : new TaskOwnershipError(String(id));
    }
    return this.#wasIssued(id) ? new ExpiredTaskError(id) : new UnknownTaskError(String(id));
  }

  /** True for an id this registry handed out: `<kind>-N` with N at most the kind's counter. */
  #wasIssued(id: unknown): id is string {
    const match = typeof id === "string" ? /^(.+)-([1-9][0-9]*)$/.exec(id) : null;
    if (match === null) return false;
    return Number(match[2]) <= (this.#counters.get(match[1] ?? "") ?? 0);
  }
}
