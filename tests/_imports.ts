import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Why these tests cannot run here: they read the TypeScript sources of a checkout (the Node leg has none). */
export const checkoutSkip: string | false = "Deno" in globalThis
  ? false
  : "reads the repository's TypeScript sources, which only a Deno checkout has";

/** The repository's root folder. */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The folders of the library's and the CLI's sources (the root's mod.ts aside). */
export const SOURCE_FOLDERS: readonly string[] = [
  "seam",
  "runtime",
  "engine",
  "local",
  "tasks",
  "tool",
  "sandbox",
  "git",
  "remote",
  "testing",
  "cli",
];

/** The `.ts` source files under `folder` (relative to the root), tests excluded, as root-relative paths. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith("_test.ts"))
    .map((name) => join(folder, name));
}

/** The root-relative files that `file` imports or re-exports by a relative specifier. */
export function relativeImports(file: string): string[] {
  // Comment lines (JSDoc examples) import nothing.
  const text = readFileSync(join(ROOT, file), "utf8").split("\n")
    .filter((line) => !/^\s*(\*|\/\/)/.test(line)).join("\n");
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.\.?\/[^"]+)"/g)) {
    found.add(relative(ROOT, resolve(ROOT, dirname(file), match[1] ?? "")));
  }
  return [...found];
}
