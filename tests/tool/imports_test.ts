import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dirname } from "node:path";
import { checkoutSkip, relativeImports, SOURCE_FOLDERS, sourceFiles } from "../_imports.ts";

/** The first import cycle among `files` (as a path that starts and ends at one file), or null. */
function findCycle(files: string[]): string[] | null {
  const edges = new Map(files.map((file) => [
    file,
    relativeImports(file).filter((target) => files.includes(target)),
  ]));
  const done = new Set<string>();
  const visit = (file: string, path: string[]): string[] | null => {
    const seen = path.indexOf(file);
    if (seen !== -1) return [...path.slice(seen), file];
    if (done.has(file)) return null;
    for (const target of edges.get(file) ?? []) {
      const cycle = visit(target, [...path, file]);
      if (cycle !== null) return cycle;
    }
    done.add(file);
    return null;
  };
  for (const file of files) {
    const cycle = visit(file, []);
    if (cycle !== null) return cycle;
  }
  return null;
}

/**
 * The imports among `imports` (file -> the files it imports) that reach an
 * internal (`_`-prefixed) file of a folder under `tool/` from outside that
 * folder: each folder of tool/ (rules/, render/, schemas/) is reached
 * through its mod.ts.
 */
function intoToolInternals(imports: Map<string, string[]>): string[] {
  const reaching: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) {
      const folder = dirname(target);
      const internal = target.split("/").at(-1)?.startsWith("_") === true;
      if (folder.startsWith("tool/") && internal && dirname(file) !== folder) {
        reaching.push(`${file} -> ${target}`);
      }
    }
  }
  return reaching;
}

describe("tool/ imports", { skip: checkoutSkip }, () => {
  it("have no cycle", () => {
    assert.equal(findCycle(sourceFiles("tool"))?.join(" -> ") ?? null, null);
  });

  it("reach each folder of tool/ through its mod.ts, never its internal files", () => {
    const imports = new Map<string, string[]>();
    for (const file of [...SOURCE_FOLDERS, "npm_only"].flatMap(sourceFiles)) {
      imports.set(file, relativeImports(file));
    }
    imports.set("mod.ts", relativeImports("mod.ts"));
    assert.deepEqual(intoToolInternals(imports), []);
  });

  it("finds an import of a tool/ folder's internal file from outside it", () => {
    const imports = new Map([
      ["tool/create.ts", ["tool/rules/mod.ts", "tool/rules/_check.ts", "tool/_bash.ts"]],
      ["tool/rules/_check.ts", ["tool/rules/_shell.ts"]],
      ["cli/mcp.ts", ["tool/render/_run.ts"]],
    ]);
    assert.deepEqual(intoToolInternals(imports), [
      "tool/create.ts -> tool/rules/_check.ts",
      "cli/mcp.ts -> tool/render/_run.ts",
    ]);
  });
});
