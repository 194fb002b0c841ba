import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type TaskOwner, taskOwner } from "../../tasks/mod.ts";
import { TaskEntry } from "../../tasks/_entry.ts";
import { SeenTasks } from "../../tasks/_retention.ts";

const alice = taskOwner("alice");
const bob = taskOwner("bob");

/** A settled entry of `owner` with the id `id`. */
function settled(id: string, owner: TaskOwner = alice): TaskEntry<never> {
  const hooks = { cancel: () => Promise.resolve(), done: new Promise<never>(() => {}) };
  const entry = new TaskEntry<never>(id, { kind: "bash", label: id, owner, hooks }, 0);
  entry.settle({ status: "completed", exitCode: 0 }, 1);
  return entry;
}

const ids = (entries: TaskEntry<never>[]): string[] => entries.map((entry) => entry.id);

describe("SeenTasks", () => {
  it("hands back an owner's oldest seen tasks past the cap, and only that owner's", () => {
    const seen = new SeenTasks<never>(2, 60_000);
    const [a, b, c] = [settled("bash-1"), settled("bash-2"), settled("bash-3")];
    assert.deepEqual(ids(seen.add(a!, 10)), []);
    assert.deepEqual(ids(seen.add(settled("bash-9", bob), 11)), []);
    assert.deepEqual(ids(seen.add(b!, 12)), []);
    assert.deepEqual(ids(seen.add(c!, 13)), ["bash-1"]);
    seen.delete(a!);
    assert.deepEqual(ids(seen.add(settled("bash-4"), 14)), ["bash-2"]);
  });

  it("counts only the first time a task is seen", () => {
    const seen = new SeenTasks<never>(1, 60_000);
    const entry = settled("bash-1");
    seen.add(entry, 10);
    assert.deepEqual(ids(seen.add(entry, 20)), []);
    assert.equal(entry.seenAt, 10);
  });

  it("hands back the tasks seen at least the time limit ago, oldest first per owner", () => {
    const seen = new SeenTasks<never>(100, 1_000);
    seen.add(settled("bash-1"), 0);
    seen.add(settled("bash-2", bob), 100);
    seen.add(settled("bash-3"), 500);
    seen.add(settled("bash-4"), 2_000);
    assert.deepEqual(ids(seen.expired(999)), []);
    assert.deepEqual(ids(seen.expired(1_000)), ["bash-1"]);
    assert.deepEqual(ids(seen.expired(1_500)), ["bash-1", "bash-3", "bash-2"]);
  });

  it("forgets a deleted task", () => {
    const seen = new SeenTasks<never>(100, 1_000);
    const entry = settled("bash-1");
    seen.add(entry, 0);
    seen.delete(entry);
    assert.deepEqual(ids(seen.expired(5_000)), []);
  });
});
