import assert from "node:assert/strict";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { checkoutSkip, relativeImports, sourceFiles } from "../_imports.ts";

describe("local/internal.ts, the one door into local/", { skip: checkoutSkip }, () => {
  it("is the only way the other folders reach an internal file of local/", () => {
    const folders = [
      "seam",
      "sandbox",
      "git",
      "remote",
      "tasks",
      "tool",
      "cli",
      "testing",
      "bench",
    ];
    const crossings = folders.flatMap(sourceFiles).flatMap((file) =>
      relativeImports(file)
        .filter((target) => target.startsWith("local/") && basename(target).startsWith("_"))
        .map((target) => `${file} imports ${target}`)
    );
    assert.deepEqual(crossings, []);
  });

  it("leaves the seam free of every other folder", () => {
    const upward = sourceFiles("seam").flatMap((file) =>
      relativeImports(file)
        .filter((target) => !target.startsWith("seam/"))
        .map((target) => `${file} imports ${target}`)
    );
    assert.deepEqual(upward, []);
  });
});
