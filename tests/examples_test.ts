import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkoutSkip, ROOT, SOURCE_FOLDERS, sourceFiles } from "./_imports.ts";

/** The `ts` code blocks of `file` that `deno test --doc` runs (not marked `ignore`), with their line. */
function examples(file: string): { line: number; code: string }[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/```ts([^\n]*)\n([\s\S]*?)```/g)]
    .filter((match) => !(match[1] ?? "").includes("ignore"))
    .map((match) => ({
      line: text.slice(0, match.index).split("\n").length,
      code: match[2] ?? "",
    }));
}

describe("JSDoc examples", { skip: checkoutSkip }, () => {
  it("each assert something, so a wrong answer fails deno test --doc", () => {
    const files = [...SOURCE_FOLDERS.flatMap(sourceFiles), "mod.ts"];
    const found = files.flatMap((file) => examples(file).map((example) => ({ file, ...example })));
    assert.ok(found.length > 100, `only ${found.length} examples were found`);
    const silent = found.filter(({ code }) => !/\bassert\b/.test(code))
      .map(({ file, line }) => `${file}:${line}`);
    assert.deepEqual(silent, []);
  });
});
