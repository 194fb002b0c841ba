import type { TaskOwner } from "./owner.ts";
import type { TaskSnapshot } from "./task.ts";

/** What `onTaskDone` calls when a task settles. */
export type DoneListener = (snapshot: TaskSnapshot, owner: TaskOwner) => void;

/**
 * The `onTaskDone` listeners of a registry. Each registration is its own
 * object, so a listener added twice runs twice and each disposer removes one.
 */
export class DoneListeners {
  readonly #registrations = new Set<{ listener: DoneListener }>();

  /** Adds `listener` and returns a disposer that removes this registration. */
  add(listener: DoneListener): () => void {
    const registration = { listener };
    this.#registrations.add(registration);
    return () => {
      this.#registrations.delete(registration);
    };
  }

  /**
   * Calls every listener, in the order added, with a settled task. A listener
   * that throws, or returns a promise that rejects, is passed to `report`,
   * and the later listeners still run.
   */
  notify(snapshot: TaskSnapshot, owner: TaskOwner, report: (error: unknown) => void): void {
    for (const { listener } of [...this.#registrations]) {
      try {
        // An async listener's rejection is contained like a throw, not left unhandled.
        const returned: unknown = listener(snapshot, owner);
        if (isThenable(returned)) Promise.resolve(returned).catch(report);
      } catch (error) {
        report(error);
      }
    }
  }
}

/** True for a promise or any object with a `then` method. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}
