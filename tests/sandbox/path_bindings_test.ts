// The names on the way to the paths a sandbox set up ahead relies on: each
// must still name the same entry, and could not have named another meanwhile.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PathBindings } from "../../sandbox/_path_bindings.ts";
import { pause } from "../local/_helpers.ts";
import { tempWorkspace } from "./_fixtures.ts";

/** Bindings taken once every time in `root` is settled (a change a second old, at most). */
async function settled(paths: string[]): Promise<PathBindings> {
  for (;;) {
    const taken = PathBindings.take(paths);
    assert.ok(taken !== undefined, "the paths can be looked at");
    if (taken instanceof PathBindings) return taken;
    await pause(Math.max(0, taken.settlesAt - Date.now()) + 1);
  }
}

describe("PathBindings", () => {
  it("is not taken until the times that vouch for each name are settled", async () => {
    using workspace = tempWorkspace();
    const repo = join(workspace.root, "sub", ".git");
    mkdirSync(repo, { recursive: true });
    const before = Date.now();
    const taken = PathBindings.take([repo]);
    const after = Date.now();
    assert.ok(taken !== undefined && !(taken instanceof PathBindings), "made just now");
    // Later than the take, within about a second of it (a clock read after it may be later still,
    // on a busy machine).
    assert.ok(taken.settlesAt > before && taken.settlesAt < after + 2_100);
    assert.ok((await settled([repo])).hold(), "nothing changed");
  });

  it("holds while entries come and go beside the names, in one of a name's two folders", async () => {
    using workspace = tempWorkspace();
    const repo = join(workspace.root, "sub", ".git");
    mkdirSync(repo, { recursive: true });
    const bindings = await settled([repo, join(workspace.root, "gone")]);
    // In the path's folder: the folder above it vouches for "sub", ".git" for itself.
    writeFileSync(join(workspace.root, "sub", "file"), "");
    assert.ok(bindings.hold());
    // In the folder above too: nothing vouches for "sub" (it and its folder changed).
    writeFileSync(join(workspace.root, "file"), "");
    assert.ok(!bindings.hold());
  });

  it("fails once something is where nothing was", async () => {
    using workspace = tempWorkspace();
    const bindings = await settled([join(workspace.root, "gone", "deeper")]);
    writeFileSync(join(workspace.root, "gone"), "");
    assert.ok(!bindings.hold());
  });

  it("fails once a folder on the way was renamed away and back", async () => {
    using workspace = tempWorkspace();
    const sub = join(workspace.root, "sub");
    mkdirSync(join(sub, ".git"), { recursive: true });
    const bindings = await settled([join(sub, ".git")]);
    renameSync(sub, join(workspace.root, "away"));
    renameSync(join(workspace.root, "away"), sub);
    assert.ok(!bindings.hold());
  });

  it("fails once the path itself was replaced by a rename, or removed and made again", async () => {
    using workspace = tempWorkspace();
    const envrc = join(workspace.root, ".envrc");
    const git = join(workspace.root, ".git");
    writeFileSync(envrc, "one");
    mkdirSync(git);
    const replaced = await settled([envrc]);
    const remade = await settled([git]);
    writeFileSync(`${envrc}.new`, "two");
    renameSync(`${envrc}.new`, envrc);
    assert.ok(!replaced.hold());
    rmSync(git, { recursive: true });
    mkdirSync(git);
    assert.ok(!remade.hold());
  });
});
