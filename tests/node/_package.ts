import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The package's name, as deno.json and package.json give it. */
export const NAME = "@shellseam/bash";

/** One import or export of an emitted file. */
export interface ModuleImport {
  /** Path of the importing file, relative to the package root. */
  file: string;
  /** The specifier as written. */
  specifier: string;
}

// Import and export statements (at a line start, so text in strings is left
// alone), and import() calls.
const SPECIFIERS = [
  /^\s*(?:import|export)\b[^"';]*?\bfrom\s*(["'])([^"']+)\1/gm,
  /^\s*import\s*(["'])([^"']+)\1/gm,
  /\bimport\s*\(\s*(["'])([^"']+)\1/g,
];

/**
 * Every module specifier in the `.js` and `.d.ts` files under `root`, doc
 * comments (whose examples import the package by its own name) left out.
 */
export function moduleImports(root: string): ModuleImport[] {
  const found: ModuleImport[] = [];
  const files = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(js|d\.ts)$/.test(file) && !file.split("/").includes("node_modules"));
  for (const file of files) {
    const code = readFileSync(join(root, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    for (const pattern of SPECIFIERS) {
      for (const match of code.matchAll(pattern)) found.push({ file, specifier: match[2]! });
    }
  }
  return found;
}

/**
 * What is wrong with the imports of the package at `root`, one line each:
 * a relative import that does not name an emitted `.js` file (a `.ts` left
 * behind, a file not packaged), or a package name missing from
 * `dependencies`. Also a dependency no file imports.
 */
export function importProblems(
  root: string,
  dependencies: Record<string, string>,
  self: string = NAME,
): string[] {
  const problems: string[] = [];
  const used = new Set<string>();
  for (const { file, specifier } of moduleImports(root)) {
    if (specifier.startsWith(".")) {
      const target = join(dirname(join(root, file)), specifier);
      if (!specifier.endsWith(".js") || !existsSync(target)) {
        problems.push(`${file} imports "${specifier}", which is not an emitted .js file`);
      }
    } else if (
      !specifier.startsWith("node:") && !(specifier === self || specifier.startsWith(self + "/"))
    ) {
      const name = /^(?:@[^/]+\/)?[^/]+/.exec(specifier)?.[0] ?? specifier;
      used.add(name);
      if (!(name in dependencies)) {
        problems.push(`${file} imports "${specifier}", but "${name}" is not in dependencies`);
      }
    }
  }
  for (const name of Object.keys(dependencies)) {
    if (!used.has(name)) problems.push(`dependency "${name}" is imported by no file`);
  }
  return problems;
}
