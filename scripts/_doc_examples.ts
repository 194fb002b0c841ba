/**
 * The doc examples as one test file: `deno test --doc` runs each example as
 * a module of its own in a fresh worker, about half a second of CPU each
 * before the example's own work (measured: 20 trivial examples, 9.7 CPU-s
 * as test modules against 0.6 CPU-s imported by one test file), and the
 * suite has about 250. So the suite runs them this way:
 * 1. every ```ts block (not `ts ignore`) of the JSDoc of the source files,
 *    and of the markdown files, is written to a module of its own in
 *    `.build/doc-examples/` (git-ignored), as it is but for its relative
 *    imports, which are made absolute (they name files beside the source);
 * 2. one test file there registers a `Deno.test` per example, named after
 *    its file and lines as `deno test --doc` names it, which imports it:
 *    the example's top level runs under the test's sanitizers, and the
 *    library is loaded once for all of them.
 *
 * The type-check leg still checks each example as `deno test --doc` makes
 * it; only the run is shared.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { ROOT } from "./_tsc.ts";

/** One example: where it comes from and its code. */
export interface DocExample {
  /** Its name as `deno test --doc` gives it: `path#first-last` (1-based lines of the fence). */
  name: string;
  /** Its code, as written in the fence (JSDoc's ` * ` taken off). */
  code: string;
}

/** The fenced ```ts blocks of `lines` (a fence marked `ignore` is left out), with their lines. */
function fences(lines: readonly string[], path: string): DocExample[] {
  const found: DocExample[] = [];
  let open: { first: number; ignore: boolean; code: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^```(\S*)(.*)$/.exec(line.trim());
    if (open === undefined) {
      if (fence !== null && fence[1] === "ts") {
        open = { first: index + 1, ignore: /\bignore\b/.test(fence[2] ?? ""), code: [] };
      }
      return;
    }
    if (fence !== null && fence[1] === "") {
      if (!open.ignore) {
        found.push({ name: `${path}#${open.first}-${index + 1}`, code: open.code.join("\n") });
      }
      open = undefined;
      return;
    }
    open.code.push(line);
  });
  return found;
}

/** The examples of one file: its JSDoc comments' fences (`.ts`) or its fences (`.md`). */
export function examplesOf(path: string, text: string): DocExample[] {
  if (path.endsWith(".md")) return fences(text.split("\n"), path);
  // In a JSDoc comment, each line is " * text": the fence lines keep their line numbers.
  const lines = text.split("\n");
  const inComment = lines.map(() => false);
  let open = false;
  lines.forEach((line, index) => {
    if (!open && /^\s*\/\*\*/.test(line)) open = true;
    inComment[index] = open;
    if (open && line.includes("*/")) open = false;
  });
  const stripped = lines.map((line, index) =>
    inComment[index] ? line.replace(/^\s*\/?\*+\/?\s?/, "") : ""
  );
  return fences(stripped, path);
}

/** The source and markdown files below `paths` (folders or files, relative to the root). */
function filesOf(paths: readonly string[]): string[] {
  const files: string[] = [];
  const visit = (path: string) => {
    const full = join(ROOT, path);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) {
        if (!entry.startsWith(".")) visit(join(path, entry));
      }
    } else if (/\.(ts|md)$/.test(path) && !/(^|_|\.)test\.ts$/.test(path)) files.push(path);
  };
  paths.forEach(visit);
  return files;
}

/** `code` with each relative import (`from "./x"`, `import("../x")`) made absolute from `dir`. */
export function absoluteImports(code: string, dir: string): string {
  return code.replace(
    /(\bfrom\s+|\bimport\s*\(\s*)(["'])(\.\.?\/[^"']+)\2/g,
    (_, before: string, quote: string, path: string) =>
      `${before}${quote}${join(dir, path)}${quote}`,
  );
}

/** Where the examples and their test file are written. */
export const EXAMPLES_DIR: string = join(ROOT, ".build", "doc-examples");

/**
 * Writes the examples of `paths` to {@linkcode EXAMPLES_DIR}, one module
 * each, and the test file that runs them; returns that file's path
 * (relative to the root) and how many examples it runs.
 */
export function writeExamples(paths: readonly string[]): { file: string; count: number } {
  rmSync(EXAMPLES_DIR, { recursive: true, force: true });
  mkdirSync(EXAMPLES_DIR, { recursive: true });
  const examples = filesOf(paths).flatMap((path) =>
    examplesOf(path, readFileSync(join(ROOT, path), "utf8"))
  );
  const tests = examples.map((example, index) => {
    const module = `example_${String(index).padStart(3, "0")}.ts`;
    const from = dirname(join(ROOT, example.name.slice(0, example.name.indexOf("#"))));
    writeFileSync(join(EXAMPLES_DIR, module), `${absoluteImports(example.code, from)}\n`);
    return `Deno.test(${JSON.stringify(example.name)}, async () => {\n` +
      `  await import(${JSON.stringify(`./${module}`)});\n});\n`;
  });
  const file = join(EXAMPLES_DIR, "examples_test.ts");
  writeFileSync(
    file,
    `// Written by scripts/_doc_examples.ts: each doc example, imported by a test of its own.\n` +
      tests.join(""),
  );
  return { file: relative(ROOT, file), count: examples.length };
}
