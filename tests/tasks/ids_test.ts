import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DisposedTaskError,
  ExpiredTaskError,
  taskOwner,
  TaskOwnershipError,
  UnknownTaskError,
} from "../../tasks/mod.ts";
import { TaskIds } from "../../tasks/_ids.ts";

const alice = taskOwner("alice");
const bob = taskOwner("bob");

/** The class of the error `ids` gives for `id` asked by `owner`, by name. */
function gone(ids: TaskIds, id: unknown, owner = alice): string {
  return ids.goneError(id, owner).constructor.name;
}

describe("TaskIds", () => {
  it("issues <kind>-N with a counter per kind", () => {
    const ids = new TaskIds();
    const issued = [ids.issue("bash"), ids.issue("bash"), ids.issue("agent"), ids.issue("bash")];
    assert.deepEqual(issued, ["bash-1", "bash-2", "agent-1", "bash-3"]);
  });

  it("calls an issued id expired, and one it never issued (or not in its form) unknown", () => {
    const ids = new TaskIds();
    ids.issue("bash");
    ids.issue("bash");
    assert.equal(gone(ids, "bash-2"), ExpiredTaskError.name);
    for (const id of ["bash-3", "bash-0", "bash-01", "agent-1", "bash", "", 7, undefined]) {
      assert.equal(gone(ids, id), UnknownTaskError.name, `id ${String(id)}`);
    }
  });

  it("says a disposed id was disposed, to its owner only, with the disposal's details", () => {
    const ids = new TaskIds();
    const id = ids.issue("bash");
    ids.recordDisposed(id, { owner: alice, by: "registry", cancelFailed: true });
    const error = ids.goneError(id, alice);
    assert.ok(error instanceof DisposedTaskError);
    assert.equal(error.by, "registry");
    assert.equal(error.cancelFailed, true);
    assert.ok(ids.goneError(id, bob) instanceof TaskOwnershipError);
  });

  it("remembers the last 10000 disposed ids; an older one answers expired", () => {
    const ids = new TaskIds();
    const issued: string[] = [];
    for (let i = 0; i < 10_001; i++) {
      const id = ids.issue("bash");
      issued.push(id);
      ids.recordDisposed(id, { owner: alice, by: "owner", cancelFailed: false });
    }
    assert.equal(gone(ids, issued[0]), ExpiredTaskError.name);
    assert.equal(gone(ids, issued[1]), DisposedTaskError.name);
    assert.equal(gone(ids, issued.at(-1)), DisposedTaskError.name);
  });
});
