// The library's layout as a decision: each folder imports only from the
// folders below it (no upward import, so no cycle between folders) and only
// through their mod.ts (never another folder's `_` file, nor a `_` file of a
// folder inside sandbox/ from outside it), no file imports itself back
// through others, and each entry point exports the names
// pinned in tests/entry_points.json, so that a change to a public surface is
// made on purpose.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { checkoutSkip, relativeImports, ROOT, sourceFiles } from "./_imports.ts";

/**
 * Each source folder and the folders it may import from: the layers, lowest
 * first. `seam/` is the contract everything shares; `runtime/` is the only
 * runtime-specific code; `engine/` is the command engine every executor is
 * built on; `local/` is the engine with a confiner that confines nothing;
 * `sandbox/` is the engine with a confiner of its own, beside `local/`; `git/`
 * commits on the host, holding what it checked against the sandbox's
 * running calls; `remote/` runs the engine's pieces over SSH, confined as
 * the sandbox confines; `tasks/` and `testing/` know only the contract;
 * `tool/` is what a model sees.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  seam: [],
  runtime: ["seam"],
  engine: ["seam", "runtime"],
  local: ["seam", "runtime", "engine"],
  tasks: ["seam"],
  testing: ["seam"],
  sandbox: ["seam", "runtime", "engine"],
  git: ["seam", "runtime", "engine", "sandbox"],
  remote: ["seam", "runtime", "engine", "sandbox"],
  tool: ["seam", "tasks", "sandbox", "git"],
  npm_only: ["seam", "tool"],
};

/**
 * The imports in `graph` of a `_` file from outside its folder (a folder,
 * nested ones included, is reached through its `mod.ts`; a file may import
 * the `_` files of its own folder and of the folders around it). There is no
 * exception: what two folders share lives in the one below them, behind
 * its `mod.ts` (or in a file named for its concept, as `seam/checks.ts`).
 */
function internalCrossings(graph: Map<string, string[]>): string[] {
  const crossings: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (!basename(target).startsWith("_") || file.startsWith(`${dirname(target)}/`)) continue;
      crossings.push(`${file} -> ${target}`);
    }
  }
  return crossings;
}

/** Every source file of the library's folders, with the files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of Object.keys(MAY_IMPORT)) {
    for (const file of sourceFiles(folder)) graph.set(file, relativeImports(file));
  }
  return graph;
}

/** The most lines a source file holds: past it, a file holds more than one concern. */
const MAX_FILE_LINES = 600;

/**
 * The files allowed past {@linkcode MAX_FILE_LINES}: the Landlock launchers
 * (TypeScript run by Deno, and Perl), each one program whose header numbers
 * its sequence and whose steps are its inner functions or subs.
 */
const LONG_FILES: readonly string[] = [
  "sandbox/backends/landlock/_launcher.ts",
  "sandbox/backends/landlock/_perl_launcher.ts",
];

/** The cycles among `graph`'s files, each as the path that closes it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): void => {
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === "open") found.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target) && graph.has(target)) visit(target, [...path, target]);
    }
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  return found;
}

/**
 * Where `files` (root-relative paths, each with its text) mention a standby:
 * a file named so, or a line that imports one or names one, comments
 * included. The standby is the sandbox's (behind its confiner): the engine
 * only lends a process started ahead, cgroups like a call's, and takes the
 * call's process from the plan.
 */
function standbyMentions(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (/standby/i.test(basename(file))) found.push(file);
    for (const [index, line] of text.split("\n").entries()) {
      if (/standby/i.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
    }
  }
  return found;
}

describe("the library's layout", { skip: checkoutSkip }, () => {
  it("has each folder import only from the folders below it", () => {
    const upward: string[] = [];
    for (const [file, targets] of importGraph()) {
      const folder = file.split("/")[0] ?? "";
      for (const target of targets) {
        const to = target.split("/")[0] ?? "";
        if (to !== folder && !(MAY_IMPORT[folder] ?? []).includes(to)) {
          upward.push(`${file} -> ${target}`);
        }
      }
    }
    assert.deepEqual(upward, [], "imports against the layers (see MAY_IMPORT)");
  });

  it("has no folder, nested ones included, reached through a `_` file", () => {
    assert.deepEqual(internalCrossings(importGraph()), [], "imports of another folder's internals");
  });

  it("has no file that imports itself back through others", () => {
    assert.deepEqual(cycles(importGraph()).map((cycle) => cycle.join(" -> ")), []);
  });

  it("has an engine that imports, names and knows no standby (the sandbox's, behind its confiner)", () => {
    const engine = new Map(
      sourceFiles("engine").map((file) => [file, readFileSync(join(ROOT, file), "utf8")]),
    );
    assert.ok(engine.has("engine/_command_engine.ts"), "the engine's files are read");
    assert.deepEqual(standbyMentions(engine), []);
  });

  it("has no source file over 600 lines, but the Landlock launchers (a numbered sequence of steps)", () => {
    const long = [...importGraph().keys()]
      .map((file) => [file, readFileSync(join(ROOT, file), "utf8").split("\n").length - 1] as const)
      .filter(([file, lines]) => lines > MAX_FILE_LINES && !LONG_FILES.includes(file))
      .map(([file, lines]) => `${file}: ${lines} lines`);
    assert.deepEqual(long, [], "split these by concern");
  });

  it("finds a cycle and a reach into another folder's internals where there is one", () => {
    const graph = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]]]);
    assert.deepEqual(cycles(graph), [["a.ts", "b.ts", "c.ts", "a.ts"]]);
    assert.deepEqual(cycles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]])), []);
    const reaching = new Map([
      ["local/executor.ts", ["engine/_command_engine.ts", "engine/mod.ts", "local/_own.ts"]],
      ["engine/_config.ts", ["seam/checks.ts"]],
      ["sandbox/executor.ts", ["sandbox/backends/bwrap/_args.ts", "sandbox/backends/mod.ts"]],
      ["sandbox/backends/bwrap/_bwrap.ts", [
        "sandbox/backends/bwrap/_args.ts",
        "sandbox/_paths.ts",
      ]],
      ["tool/create.ts", ["tool/rules/_rule_set.ts", "tool/rules/mod.ts", "tool/_bash.ts"]],
      // Once allowed, now reported like any other.
      ["git/commit.ts", ["sandbox/_paths.ts", "engine/mod.ts"]],
      ["remote/_view.ts", ["sandbox/_reusable.ts"]],
    ]);
    assert.deepEqual(
      standbyMentions(
        new Map([
          ["engine/_x.ts", 'import { Standbys } from "../sandbox/mod.ts";\nconst x = 1;'],
          ["engine/_standby.ts", "export {};"],
          ["engine/_y.ts", "// Spawns ahead of a call.\n"],
        ]),
      ),
      [
        'engine/_x.ts:1: import { Standbys } from "../sandbox/mod.ts";',
        "engine/_standby.ts",
      ],
    );
    assert.deepEqual(internalCrossings(reaching), [
      "local/executor.ts -> engine/_command_engine.ts",
      "sandbox/executor.ts -> sandbox/backends/bwrap/_args.ts",
      "tool/create.ts -> tool/rules/_rule_set.ts",
      "git/commit.ts -> sandbox/_paths.ts",
      "remote/_view.ts -> sandbox/_reusable.ts",
    ]);
  });
});

/** The entry points: the library's (deno.json) and the CLI's (cli/deno.json), by export name. */
function entryPoints(): Record<string, string> {
  const points: Record<string, string> = {};
  for (
    const [config, prefix] of [["deno.json", "@shellseam/bash"], [
      "cli/deno.json",
      "@shellseam/cli",
    ]]
  ) {
    const { exports } = JSON.parse(readFileSync(join(ROOT, config ?? ""), "utf8")) as {
      exports: Record<string, string>;
    };
    const folder = config === "cli/deno.json" ? "cli" : ".";
    for (const [key, file] of Object.entries(exports)) {
      points[`${prefix}${key.slice(1)}`] = join(folder, file);
    }
  }
  return points;
}

/**
 * The file `deno doc` cannot read (it cannot resolve the MCP SDK's wildcard
 * exports, denoland/deno#33033): its names are those of its own top-level
 * `export` declarations (it re-exports nothing).
 */
const UNDOCUMENTABLE = "cli/mcp.ts";

/** The names `file` exports, types included, as `deno doc` lists them (see `UNDOCUMENTABLE`). */
function exportedNames(file: string): string[] {
  if (file === UNDOCUMENTABLE) {
    const declared = /^export (?:async )?(?:const|let|function|class|interface|type|enum) (\w+)/gm;
    const text = readFileSync(join(ROOT, file), "utf8");
    assert.doesNotMatch(text, /^export (?:\*|\{|type \{)/m, `${file} re-exports: list those too`);
    return [...text.matchAll(declared)].map((match) => match[1] ?? "").sort();
  }
  const doc = spawnSync(process.execPath, ["doc", "--json", file], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(doc.status, 0, `deno doc --json ${file} failed: ${doc.stderr}`);
  const { nodes } = JSON.parse(doc.stdout) as {
    nodes: Record<string, { symbols: { name: string }[] }>;
  };
  return Object.values(nodes).flatMap((node) => node.symbols.map((symbol) => symbol.name)).sort();
}

describe("the entry points", { skip: checkoutSkip }, () => {
  it("export exactly the names pinned in tests/entry_points.json", () => {
    const pinned = JSON.parse(
      readFileSync(join(ROOT, "tests", "entry_points.json"), "utf8"),
    ) as Record<
      string,
      string[]
    >;
    const points = entryPoints();
    assert.deepEqual(Object.keys(points).sort(), Object.keys(pinned).sort(), "the entry points");
    for (const [name, file] of Object.entries(points)) {
      const names = exportedNames(file);
      const was = pinned[name] ?? [];
      const added = names.filter((exported) => !was.includes(exported));
      const removed = was.filter((exported) => !names.includes(exported));
      assert.deepEqual(
        { added, removed },
        { added: [], removed: [] },
        `"${name}" (${file}) exports other names than tests/entry_points.json pins; if that is ` +
          `meant, pin its list there: ${JSON.stringify(names)}`,
      );
    }
  });

  it("keep the root to what a newcomer starts with: at most 30 names", () => {
    const root = exportedNames("mod.ts");
    assert.ok(root.length <= 30, `the root exports ${root.length} names: ${root.join(", ")}`);
  });
});
