import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isBeneath, resolutionLocations } from "../../engine/_paths.ts";
import { tempWorkspace } from "../sandbox/_fixtures.ts";

describe("resolutionLocations", () => {
  it("lists each component of a plain path", () => {
    using workspace = tempWorkspace();
    writeFileSync(join(workspace.root, "deno"), "");
    const path = join(workspace.root, "deno");
    const locations = resolutionLocations(path);
    assert.equal(locations.at(-1), path);
    assert.deepEqual(locations.slice(-2), [workspace.root, path]);
    assert.deepEqual(resolutionLocations("/"), []);
  });

  it("lists a symlink where it lies, then where its relative and absolute targets lead", () => {
    using workspace = tempWorkspace();
    const bin = join(workspace.base, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "deno"), "");
    // ws/tools -> ../bin (relative), ws/abs -> <base>/bin/deno (absolute)
    symlinkSync("../bin", join(workspace.root, "tools"));
    symlinkSync(join(bin, "deno"), join(workspace.root, "abs"));
    const relative = resolutionLocations(join(workspace.root, "tools", "deno"));
    assert.ok(relative.includes(join(workspace.root, "tools")), "the link itself");
    assert.equal(relative.at(-1), join(bin, "deno"));
    const absolute = resolutionLocations(join(workspace.root, "abs"));
    assert.ok(absolute.includes(join(workspace.root, "abs")));
    assert.equal(absolute.at(-1), join(bin, "deno"));
    // Outside the workspace, but reached through a link inside it.
    assert.ok(relative.some((location) => isBeneath(location, workspace.root)));
  });

  it("ends on a symlink loop instead of spinning", () => {
    using workspace = tempWorkspace();
    symlinkSync("b", join(workspace.root, "a"));
    symlinkSync("a", join(workspace.root, "b"));
    const locations = resolutionLocations(join(workspace.root, "a"));
    assert.ok(locations.length < 100);
    assert.ok(locations.includes(join(workspace.root, "b")));
  });
});
