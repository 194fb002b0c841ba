// The doc examples as the suite runs them (scripts/_doc_examples.ts): found
// as `deno test --doc` finds them, named as it names them, and written with
// their relative imports made absolute.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { absoluteImports, examplesOf } from "../../scripts/_doc_examples.ts";

describe("the doc examples the suite runs", () => {
  it("are the ts fences of a source file's JSDoc, named by file and lines", () => {
    const source = [
      "/**",
      " * Adds.",
      " *",
      " * @example",
      " * ```ts",
      ' * import { add } from "./add.ts";',
      " * add(1, 2);",
      " * ```",
      " *",
      " * ```ts ignore",
      " * not run",
      " * ```",
      " */",
      "export function add(a: number, b: number): number {",
      "  // ```ts",
      "  return a + b;",
      "}",
    ].join("\n");
    assert.deepEqual(examplesOf("lib/add.ts", source), [
      { name: "lib/add.ts#5-8", code: 'import { add } from "./add.ts";\nadd(1, 2);' },
    ]);
  });

  it("are the ts fences of a markdown file, but those marked ignore and other languages", () => {
    const page = [
      "# Page",
      "```ts",
      "run();",
      "```",
      "```sh",
      "echo",
      "```",
      "```ts ignore",
      "x",
      "```",
    ]
      .join("\n");
    assert.deepEqual(examplesOf("docs/page.md", page), [
      { name: "docs/page.md#2-4", code: "run();" },
    ]);
  });

  it("import what lies beside their source by an absolute path", () => {
    assert.equal(
      absoluteImports(
        'import { a } from "./a.ts";\nimport type { B } from "../b/mod.ts";\nawait import("./c.ts");\nimport x from "node:fs";',
        "/repo/tool/render",
      ),
      'import { a } from "/repo/tool/render/a.ts";\nimport type { B } from "/repo/tool/b/mod.ts";\nawait import("/repo/tool/render/c.ts");\nimport x from "node:fs";',
    );
  });
});
