/**
 * What the Node build shares: the project's deno.json, the pinned TypeScript
 * compiler and the lock file of the dev tools, and the rewrite of `npm:` specifiers in emitted files.
 *
 * @module
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The repository root. */
export const ROOT: string = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The parts of deno.json the build reads. */
export interface DenoJson {
  name: string;
  version: string;
  license?: string;
  exports: Record<string, string>;
  imports?: Record<string, string>;
}

/** Reads the deno.json of the package in `dir` (the repository root by default). */
export function readDenoJson(dir: string = ROOT): DenoJson {
  return JSON.parse(readFileSync(join(dir, "deno.json"), "utf8")) as DenoJson;
}

/** Compiler options both the package and the compiled tests are built with. */
export const COMPILER_OPTIONS: Record<string, unknown> = {
  target: "es2022",
  module: "esnext",
  moduleResolution: "bundler",
  rewriteRelativeImportExtensions: true,
  declaration: true,
  isolatedDeclarations: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  // `deno check` type-checks every source against Deno's and Node's types;
  // tsc only emits, so it needs neither @types/node nor a `Deno` declaration
  // (runtime/deno.ts is emitted like any other file).
  noCheck: true,
  types: [],
  // esnext as in Deno; without the disposable lib, tsc 7 emits a bogus
  // `[Symbol.asyncDispose]` property next to each such method.
  lib: ["esnext"],
  newLine: "lf",
};

/** The TypeScript compiler the Node build and its tests run (a dev-only tool). */
export const TYPESCRIPT = "npm:typescript@7.0.2";

/**
 * The lock file of everything the tests and the build use: the root
 * `deno.lock` holds only what the packages and the demo import, so a cold
 * `deno task demo` downloads nothing else (`deno task` installs every
 * package the root lock lists); the test tasks and the build pass this one.
 */
export const DEV_LOCK: string = join(ROOT, "tests", "deno.lock");

/**
 * Runs {@linkcode TYPESCRIPT}'s `tsc` with `args`, from the repository root,
 * under {@linkcode DEV_LOCK}. What it prints (its diagnostics) is held, and
 * is the message of the error it throws when it fails: a caller that runs
 * beside other work prints it where it belongs.
 */
export async function tsc(args: string[]): Promise<void> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `--lock=${DEV_LOCK}`, `${TYPESCRIPT}/tsc`, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    const printed = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    throw new Error(`tsc ${args.join(" ")} failed with exit code ${code}:\n${printed}`);
  }
}

/** Writes `compilerOptions` plus `files` as a tsconfig.json at `path`. */
export function writeTsconfig(
  path: string,
  compilerOptions: Record<string, unknown>,
  files: string[],
): void {
  writeFileSync(path, JSON.stringify({ compilerOptions, files }, null, 2) + "\n");
}

/** Every file under `dir` (recursively), as paths relative to it. */
export function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

// Module specifiers of import/export statements and side-effect imports, at
// a line start so doc comments and strings are left alone.
const STATEMENTS = [
  /^(\s*(?:import|export)\b[^"';]*?\bfrom\s*)(["'])([^"']+)\2/gm,
  /^(\s*import\s*)(["'])([^"']+)\2/gm,
];
// import() calls and types may stand anywhere on a line, so text that merely
// looks like one is possible: unknown names there are left as they are.
const IMPORT_CALL = /(\bimport\s*\(\s*)(["'])([^"']+)\2/g;

/**
 * Rewrites `npm:name@version/sub` and import-mapped bare names in the emitted
 * `.js` and `.d.ts` files under `dir` (or only `files`, relative to it) to
 * plain package names, and returns the npm dependencies they need (name ->
 * version). Relative `.ts` imports become `.js`; self-imports stay as they
 * are, and so do imports of the workspace's other packages (`siblings`: name
 * -> version), which become dependencies on their npm builds.
 */
export function rewriteSpecifiers(
  dir: string,
  { name: self, imports = {} }: DenoJson,
  siblings: Record<string, string> = {},
  files: readonly string[] = walk(dir),
): Record<string, string> {
  const dependencies: Record<string, string> = {};
  const within = (specifier: string, name: string): boolean =>
    specifier === name || specifier.startsWith(name + "/");
  const resolve = (specifier: string, strict: boolean): string => {
    // tsc rewrites `.ts` in JavaScript but leaves it in declarations.
    if (specifier.startsWith(".")) return specifier.replace(/(?<!\.d)\.ts$/, ".js");
    if (specifier.startsWith("node:")) return specifier;
    // Doc comments import the package by its own name.
    if (within(specifier, self)) return specifier;
    const sibling = Object.keys(siblings).find((name) => within(specifier, name));
    if (sibling !== undefined) {
      dependencies[sibling] = siblings[sibling]!;
      return specifier;
    }
    const mapped = imports[specifier] ?? mappedPrefix(specifier, imports) ?? specifier;
    const npm = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?(\/.*)?$/.exec(mapped);
    if (!npm && !strict) return specifier;
    if (!npm) {
      throw new Error(
        `Cannot map import "${specifier}" to an npm package; use "node:" built-ins or an "npm:" ` +
          "specifier pinned in deno.json imports",
      );
    }
    const [, name = "", version, sub = ""] = npm;
    if (!version) throw new Error(`Pin a version for "${mapped}" in deno.json imports`);
    dependencies[name] = version;
    return name + sub;
  };
  for (const file of files) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const rewrite = (pattern: RegExp, strict: boolean) => (current: string) =>
      current.replace(
        pattern,
        (_, head: string, quote: string, spec: string) =>
          head + quote + resolve(spec, strict) + quote,
      );
    const rewritten = [
      ...STATEMENTS.map((pattern) => rewrite(pattern, true)),
      rewrite(IMPORT_CALL, false),
    ]
      .reduce((current, step) => step(current), text);
    if (rewritten !== text) writeFileSync(path, rewritten);
  }
  return dependencies;
}

function mappedPrefix(specifier: string, imports: Record<string, string>): string | undefined {
  for (const [key, value] of Object.entries(imports)) {
    if (key.endsWith("/") && specifier.startsWith(key)) return value + specifier.slice(key.length);
    if (specifier.startsWith(key + "/") && value.startsWith("npm:")) {
      return value + specifier.slice(key.length);
    }
  }
  return undefined;
}
