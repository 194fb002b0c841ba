import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkoutSkip, relativeImports, sourceFiles } from "../_imports.ts";

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

describe("tool/ imports", { skip: checkoutSkip }, () => {
  it("have no cycle", () => {
    assert.equal(findCycle(sourceFiles("tool"))?.join(" -> ") ?? null, null);
  });
});
