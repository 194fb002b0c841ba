// A protected-path walk told again: while the folder watch vouches that no
// folder it read changed, a walk of the same root tells what the last one
// told without walking the tree; a plant anywhere, or other folders skipped
// in the root, makes it walk again.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PROTECTED_PATHS } from "../../../sandbox/mod.ts";
import {
  FolderListings,
  FolderWatch,
  ProtectedPaths,
  type ProtectionPlan,
  WalkMemory,
} from "../../../sandbox/protected/mod.ts";
import type { Listing } from "../../../sandbox/protected/_listings.ts";
import { tempWorkspace, type Workspace } from "../_fixtures.ts";
import { settled, skip, tree } from "./_watch_fixtures.ts";

/** Listings that count how often a walk asked for a folder below `packages/pN/src`. */
class CountingListings extends FolderListings {
  deep = 0;
  override listing(dir: string): Listing | undefined {
    if (/\/src(\/|$)/.test(dir)) this.deep++;
    return super.listing(dir);
  }
}

/**
 * A workspace holding `tree(root, packages)`, settled, with a watched walk
 * memory over it whose listings count; its mount table is `table` (by
 * default the table as it is now, see `watched`). Disposing closes the
 * memory and removes the workspace.
 */
async function countedTree(
  packages: number,
  table = readFileSync("/proc/self/mountinfo", "utf8"),
): Promise<
  & { workspace: Workspace; deep: string[]; memory: WalkMemory; listings: CountingListings }
  & Disposable
> {
  const workspace = tempWorkspace();
  const deep = tree(workspace.root, packages);
  await settled();
  const listings = new CountingListings(
    undefined,
    new FolderWatch(undefined, undefined, () => table),
  );
  const memory = new WalkMemory(listings);
  return {
    workspace,
    deep,
    memory,
    listings,
    [Symbol.dispose]: () => {
      memory.close();
      workspace[Symbol.dispose]();
    },
  };
}

/** One call's protected paths in `workspace`, the walks never entering `skipped`. */
function call(workspace: Workspace, memory: WalkMemory, skipped: string[] = []): ProtectedPaths {
  return new ProtectedPaths(
    [workspace.root],
    [...DEFAULT_PROTECTED_PATHS],
    () => join(workspace.base, "quarantine"),
    skipped,
    memory,
  );
}

/** The folders asked for below `src` while `run` ran, with what it returned. */
function deepDuring<T>(listings: CountingListings, run: () => T): { value: T; deep: number } {
  const before = listings.deep;
  const value = run();
  return { value, deep: listings.deep - before };
}

describe("a walk told again", { skip }, () => {
  it("walks an unchanged tree no more: the launch and sweep tell the last walk", async () => {
    using setup = await countedTree(4);
    const { workspace, memory, listings } = setup;
    const first = deepDuring(listings, () => call(workspace, memory));
    // src, src/a and src/a/b of each package.
    assert.equal(first.deep, 3 * 4);
    assert.deepEqual(first.value.settle(), []);
    const next = deepDuring(listings, () => call(workspace, memory));
    assert.equal(next.deep, 0, "the next launch walked the tree again");
    assert.deepEqual(next.value.plan, first.value.plan);
    assert.equal(deepDuring(listings, () => next.value.settle()).deep, 0);
  });

  it("walks again after a plant deep in the tree: the sweep finds it, the next launch binds it", async () => {
    using setup = await countedTree(4);
    const { workspace, deep, memory, listings } = setup;
    call(workspace, memory).settle();
    const paths = deepDuring(listings, () => call(workspace, memory));
    assert.equal(paths.deep, 0, "the launch was told again");
    const planted = join(deep[3]!, ".git");
    mkdirSync(planted);
    const sweep = deepDuring(listings, () => paths.value.settle());
    assert.deepEqual(sweep.value.map((v) => v.path), [planted]);
    assert.ok(sweep.deep > 0, "the sweep walked again");
    // Planted again between calls (an unconfined process): bound at the next launch.
    mkdirSync(planted);
    const next = call(workspace, memory);
    assert.ok(next.plan.readOnly.includes(planted), "the plant was not bound");
  });

  it("walks every time a root no watch can vouch for (a network file system)", async () => {
    using setup = await countedTree(3, "22 1 0:26 / / rw shared:1 - nfs4 server:/x rw");
    const { workspace, deep, memory, listings } = setup;
    call(workspace, memory).settle();
    const planted = join(deep[2]!, ".git");
    mkdirSync(planted);
    const next = deepDuring(listings, () => call(workspace, memory));
    assert.ok(next.deep >= 3 * 3, `the launch did not walk the tree (${next.deep})`);
    assert.ok(next.value.plan.readOnly.includes(planted), "the plant was not bound");
  });

  it("walks again when other folders in the root are skipped, not for folders beside it", async () => {
    using setup = await countedTree(2);
    const { workspace, memory, listings } = setup;
    const inside = join(workspace.root, "packages", "p0");
    const bound = (plan: ProtectionPlan) => plan.readOnly.includes(join(inside, ".git"));
    call(workspace, memory, [join(workspace.base, "private-1")]).settle();
    const beside = deepDuring(
      listings,
      () => call(workspace, memory, [join(workspace.base, "private-2")]),
    );
    assert.equal(beside.deep, 0, "a folder skipped outside the root made it walk again");
    assert.ok(bound(beside.value.plan));
    const skipping = call(workspace, memory, [inside]);
    assert.equal(bound(skipping.plan), false, "the walk entered a skipped folder");
    assert.ok(bound(call(workspace, memory).plan));
  });
});
