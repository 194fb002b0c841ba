import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExposureChecks } from "../../sandbox/_exposure.ts";
import { tempWorkspace } from "./_fixtures.ts";

describe("ExposureChecks", () => {
  it("asks again when a root was added: a program that lay outside every root may lie in the new one", () => {
    using workspace = tempWorkspace();
    const tools = join(workspace.base, "tools");
    mkdirSync(tools);
    const program = join(tools, "runner");
    writeFileSync(program, "");
    const checks = new ExposureChecks();
    const unconfined = { programs: [program], toolFolders: [], folders: [] };
    assert.equal(checks.exposure(unconfined, [workspace.root]), undefined);
    assert.equal(checks.exposure(unconfined, [workspace.root]), undefined);
    const exposure = checks.exposure(unconfined, [workspace.root, tools]);
    assert.match(
      exposure?.reason ?? "",
      new RegExp(`"${program}" lies in the writable root "${tools}"`),
    );
  });

  it("keeps no exposure found: a program moved out of the roots is asked about again", () => {
    using workspace = tempWorkspace();
    const inRoot = join(workspace.root, "runner");
    const outside = join(workspace.base, "runner");
    writeFileSync(inRoot, "");
    writeFileSync(outside, "");
    const link = join(workspace.base, "link");
    symlinkSync(inRoot, link);
    const checks = new ExposureChecks();
    const unconfined = { programs: [link], toolFolders: [], folders: [] };
    assert.match(
      checks.exposure(unconfined, [workspace.root])?.reason ?? "",
      /lies in the writable root/,
    );
    rmSync(link);
    symlinkSync(outside, link);
    assert.equal(checks.exposure(unconfined, [workspace.root]), undefined);
  });

  it("tells apart questions of other programs, tool folders and folders", () => {
    using workspace = tempWorkspace();
    const planted = join(workspace.root, "bin");
    mkdirSync(planted);
    const checks = new ExposureChecks();
    const none = { programs: [], toolFolders: [], folders: [] };
    assert.equal(checks.exposure(none, [workspace.root]), undefined);
    assert.ok(checks.exposure({ ...none, programs: [join(planted, "x")] }, [workspace.root]));
    assert.ok(checks.exposure({ ...none, toolFolders: [planted] }, [workspace.root]));
    const folders = [{ name: "TMPDIR", path: planted }];
    assert.ok(checks.exposure({ ...none, folders }, [workspace.root]));
  });
});
