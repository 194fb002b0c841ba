// The Node build (scripts/). Deno-only: the build runs under Deno, and
// scripts/ is not part of the package the Node leg tests, so its modules are
// imported inside the tests.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importProblems, moduleImports } from "./_package.ts";

const skip = "Deno" in globalThis ? false : "Deno-only: the build runs under Deno";

const DENO_JSON = {
  name: "@shellseam/bash",
  version: "0.1.0",
  exports: { ".": "./mod.ts" },
  imports: {
    "typescript": "npm:typescript@7.0.2",
    "zod": "npm:zod@3.23.8",
    "@scope/pkg": "npm:@scope/pkg@2.0.0",
  },
};

async function rewrite(files: Record<string, string>, imports = DENO_JSON.imports) {
  const { rewriteSpecifiers } = await import("../../scripts/_tsc.ts");
  const dir = mkdtempSync(join(tmpdir(), "shellseam-build-test-"));
  try {
    mkdirSync(join(dir, "sub"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const dependencies = rewriteSpecifiers(dir, { ...DENO_JSON, imports });
    const out: Record<string, string> = {};
    for (const name of Object.keys(files)) out[name] = readFileSync(join(dir, name), "utf8");
    return { dependencies, out };
  } finally {
    rmSync(dir, { recursive: true });
  }
}

/** Files a build of an older tree would have left in `out`: a removed module and its types. */
const STALE_FILES = ["removed.js", "removed.d.ts", "tool/_removed.js"];

function leaveStaleFiles(out: string): void {
  mkdirSync(join(out, "tool"), { recursive: true });
  for (const file of STALE_FILES) writeFileSync(join(out, file), "export const stale = 1;\n");
}

function staleFilesIn(out: string): string[] {
  return STALE_FILES.filter((file) => existsSync(join(out, file)));
}

describe("rewriteSpecifiers", () => {
  it("turns npm: and import-mapped names into plain packages with pinned dependencies", {
    skip,
  }, async () => {
    const { dependencies, out } = await rewrite({
      "a.js": [
        'import { z } from "zod";',
        'import { v4 } from "zod/v4";',
        'export { p } from "npm:@scope/pkg@2.0.0/sub";',
        'import "npm:left-pad@1.3.0";',
        'const m = await import("npm:chalk@5.3.0");',
        `const said = "call import('somewhere') later";`,
        'import process from "node:process";',
        'import { x } from "./x.js";',
      ].join("\n"),
    });
    assert.equal(
      out["a.js"],
      [
        'import { z } from "zod";',
        'import { v4 } from "zod/v4";',
        'export { p } from "@scope/pkg/sub";',
        'import "left-pad";',
        'const m = await import("chalk");',
        `const said = "call import('somewhere') later";`,
        'import process from "node:process";',
        'import { x } from "./x.js";',
      ].join("\n"),
    );
    assert.deepEqual(dependencies, {
      "zod": "3.23.8",
      "@scope/pkg": "2.0.0",
      "left-pad": "1.3.0",
      "chalk": "5.3.0",
    });
  });

  it("rewrites relative .ts imports in declarations and leaves .d.ts, self-imports and docs", {
    skip,
  }, async () => {
    const dts = [
      "/**",
      " * ```ts",
      ' * import { x } from "not-a-dependency";',
      ' * import { y } from "@shellseam/bash/local";',
      " * ```",
      " */",
      'import type { A } from "./a.ts";',
      'export * from "../b.ts";',
      'import type { C } from "./c.d.ts";',
      'export type D = import("./d.ts").D;',
      'export declare const s: "from \\"text\\"";',
    ].join("\n");
    const { dependencies, out } = await rewrite({ "sub/m.d.ts": dts });
    assert.equal(
      out["sub/m.d.ts"],
      dts.replace('"./a.ts"', '"./a.js"').replace('"../b.ts"', '"../b.js"')
        .replace('"./d.ts"', '"./d.js"'),
    );
    assert.deepEqual(dependencies, {});
  });

  it("refuses a name deno.json does not map, and an npm: specifier without a version", {
    skip,
  }, async () => {
    await assert.rejects(
      rewrite({ "a.js": 'import x from "left-pad";' }),
      /Cannot map import "left-pad" to an npm package/,
    );
    await assert.rejects(
      rewrite({ "a.js": 'import x from "npm:left-pad";' }),
      /Pin a version for "npm:left-pad"/,
    );
  });
});

describe("buildNpm", { skip }, () => {
  const root = new URL("../../", import.meta.url).pathname;
  let dir = "";
  let out = "";
  before(async () => {
    const { buildNpm } = await import("../../scripts/build_npm.ts");
    dir = mkdtempSync(join(tmpdir(), "shellseam-build-test-"));
    leaveStaleFiles(join(dir, "npm"));
    out = await buildNpm(join(dir, "npm"));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true });
  });
  const read = (base: string, file: string) => readFileSync(join(base, file), "utf8");

  it("writes package.json from deno.json, with each subpath's types, import and default", async () => {
    const { NPM_ONLY_EXPORTS } = await import("../../scripts/build_npm.ts");
    const deno = JSON.parse(read(root, "deno.json"));
    const manifest = JSON.parse(read(out, "package.json"));
    const exports: Record<string, { types: string; import: string; default: string }> = {};
    // The npm-only subpaths follow deno.json's.
    assert.deepEqual(Object.keys(NPM_ONLY_EXPORTS), ["./langchain", "./xterm"]);
    for (
      const [subpath, source] of Object.entries<string>({ ...deno.exports, ...NPM_ONLY_EXPORTS })
    ) {
      exports[subpath] = {
        types: source.replace(/\.ts$/, ".d.ts"),
        import: source.replace(/\.ts$/, ".js"),
        default: source.replace(/\.ts$/, ".js"),
      };
    }
    const { description: _, keywords, ...rest } = manifest;
    assert.deepEqual(rest, {
      name: "@shellseam/bash",
      version: deno.version,
      license: deno.license,
      type: "module",
      types: "./mod.d.ts",
      exports,
      sideEffects: false,
      engines: { node: ">=22" },
      // The ranges the adapters' npm: specifiers name; optional, so nothing more is installed.
      peerDependencies: { "@langchain/core": "^1.0.0", "@xterm/headless": "^6.0.0" },
      peerDependenciesMeta: {
        "@langchain/core": { optional: true },
        "@xterm/headless": { optional: true },
      },
    });
    assert.ok(keywords.includes("bash") && keywords.includes("agent"), String(keywords));
    for (const { types, import: js } of Object.values(exports)) {
      assert.ok(existsSync(join(out, types)), `${types} was not emitted`);
      assert.ok(existsSync(join(out, js)), `${js} was not emitted`);
    }
  });

  it("emits only relative .js imports, node: built-ins and dependencies it declares", () => {
    const manifest = JSON.parse(read(out, "package.json"));
    const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
    assert.deepEqual(importProblems(out, declared), []);
  });

  it("imports a peer dependency only from the npm-only entry points", () => {
    const manifest = JSON.parse(read(out, "package.json"));
    const peers = Object.keys(manifest.peerDependencies);
    const importers = moduleImports(out)
      .filter(({ specifier }) =>
        peers.some((peer) => specifier === peer || specifier.startsWith(peer + "/"))
      )
      .map(({ file }) => file);
    assert.deepEqual([...new Set(importers)].sort(), [
      "npm_only/langchain.d.ts",
      "npm_only/langchain.js",
      // The screen's declarations name none of xterm's types.
      "npm_only/xterm.js",
    ]);
  });

  it("copies README.md, the pages in docs/ and LICENSE", () => {
    const pages = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md"));
    assert.ok(pages.includes("README.md"), String(pages));
    assert.deepEqual(readdirSync(join(out, "docs")).sort(), pages.sort());
    const files = ["README.md", "LICENSE", ...pages.map((page) => join("docs", page))];
    for (const file of files) assert.equal(read(out, file), read(root, file));
  });

  it("lists no dev-only import (the SDKs the type tests use) as a dependency", () => {
    const lock = JSON.parse(read(root, "tests/deno.lock"));
    const manifest = JSON.parse(read(out, "package.json"));
    const devOnly = [
      "openai",
      "@anthropic-ai/sdk",
      "@modelcontextprotocol/sdk",
      "typescript",
      "@langchain/core",
      "@xterm/headless",
    ];
    for (const name of devOnly) {
      const pinned = Object.keys(lock.specifiers).some((key) => key.startsWith(`npm:${name}@`));
      assert.ok(pinned, `${name} is pinned in tests/deno.lock`);
      assert.equal(name in (manifest.dependencies ?? {}), false, `${name} is a dependency`);
    }
  });

  it("empties its folder first: no file of an earlier build is left to pack", () => {
    assert.deepEqual(staleFilesIn(out), []);
  });

  it("leaves the CLI out of the library", () => {
    assert.equal(existsSync(join(out, "cli")), false);
    assert.equal("bin" in JSON.parse(read(out, "package.json")), false);
  });
});

describe("buildCliNpm", { skip }, () => {
  const root = new URL("../../", import.meta.url).pathname;
  let dir = "";
  let out = "";
  before(async () => {
    const { buildCliNpm } = await import("../../scripts/build_npm.ts");
    dir = mkdtempSync(join(tmpdir(), "shellseam-build-test-"));
    leaveStaleFiles(join(dir, "npm-cli"));
    out = await buildCliNpm(join(dir, "npm-cli"));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true });
  });
  const read = (base: string, file: string) => readFileSync(join(base, file), "utf8");

  it("writes @shellseam/cli with the shellseam bin, on the library at the same version", () => {
    const library = JSON.parse(read(root, "deno.json"));
    const cli = JSON.parse(read(root, "cli/deno.json"));
    const { description: _, keywords, ...manifest } = JSON.parse(read(out, "package.json"));
    assert.ok(keywords.includes("mcp") && keywords.includes("cli"), String(keywords));
    assert.deepEqual(manifest, {
      name: "@shellseam/cli",
      version: cli.version,
      license: cli.license,
      type: "module",
      types: "./main.d.ts",
      exports: {
        ".": { types: "./main.d.ts", import: "./main.js", default: "./main.js" },
        "./mcp": { types: "./mcp.d.ts", import: "./mcp.js", default: "./mcp.js" },
      },
      bin: { shellseam: "./main.js" },
      engines: { node: ">=22" },
      dependencies: {
        "@shellseam/bash": library.version,
        "@modelcontextprotocol/sdk": cli.imports["@modelcontextprotocol/sdk"].split("@").at(-1),
      },
    });
    assert.match(read(out, "main.js"), /^#!\/usr\/bin\/env node\n/);
  });

  it("emits only relative .js imports, node: built-ins and dependencies it declares", () => {
    const manifest = JSON.parse(read(out, "package.json"));
    assert.deepEqual(importProblems(out, manifest.dependencies, manifest.name), []);
  });

  it("empties its folder first: no file of an earlier build is left to pack", () => {
    assert.deepEqual(staleFilesIn(out), []);
  });
});
