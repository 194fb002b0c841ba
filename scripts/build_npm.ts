/**
 * `deno task build:npm`: emits `npm/`, the Node package: ESM JavaScript and
 * `.d.ts` for every export (compiled by the pinned tsc), `package.json`,
 * README.md, its pages in docs/ and LICENSE.
 *
 * @module
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  COMPILER_OPTIONS,
  readDenoJson,
  rewriteSpecifiers,
  ROOT,
  tsc,
  walk,
  writeTsconfig,
} from "./_tsc.ts";

/** Where the package is written. */
export const NPM_DIR: string = join(ROOT, "npm");

/** Where the CLI package (`@shellseam/cli`) is written. */
export const NPM_CLI_DIR: string = join(ROOT, "npm-cli");

/** The CLI package's folder in the workspace. */
const CLI_ROOT = join(ROOT, "cli");

const js = (path: string): string => "./" + path.replace(/^\.\//, "").replace(/\.ts$/, ".js");
const dts = (path: string): string => js(path).replace(/\.js$/, ".d.ts");

/**
 * The entry points on npm only, each with an adapter that imports a framework
 * (LangChain) or an emulator (`@xterm/headless`): it is an optional peer
 * dependency of the package (the application brings its own copy), and JSR
 * has no peer dependencies, so they are not in deno.json's exports. Their sources live in {@linkcode NPM_ONLY_DIR}.
 */
export const NPM_ONLY_EXPORTS: Readonly<Record<string, string>> = {
  "./langchain": "./npm_only/langchain.ts",
  "./xterm": "./npm_only/xterm.ts",
};

/** The folder of the npm-only sources, left out of the JSR package (deno.json `publish.exclude`). */
export const NPM_ONLY_DIR = "npm_only";

/** The Node versions both packages support: 22 and 24 (20 is past its end of life). */
export const NODE_ENGINES = ">=22";

/** One subpath's entry in `exports`: its types, and the ESM build for import and require. */
export interface ExportConditions {
  types: string;
  import: string;
  default: string;
}

/**
 * The `exports` map of deno.json `exports`: each subpath's `.d.ts` and `.js`.
 * `default` makes `require()` of the ESM build work where Node allows it
 * (22.12+ and 24: no top-level `await` in the graph).
 */
function exportsOf(sources: Record<string, string>): Record<string, ExportConditions> {
  const exports: Record<string, ExportConditions> = {};
  for (const [subpath, source] of Object.entries(sources)) {
    exports[subpath] = { types: dts(source), import: js(source), default: js(source) };
  }
  return exports;
}

/** The root entry's `.d.ts`, as the top-level `types` of a package. */
function rootTypes(sources: Record<string, string>, what: string): string {
  const root = sources["."];
  if (root === undefined) throw new Error(`${what} must export "."`);
  return dts(root);
}

/**
 * Builds the package from scratch into `outDir` (default `npm/`), emptied
 * first, and returns its path.
 */
export async function buildNpm(outDir: string = NPM_DIR): Promise<string> {
  const deno = readDenoJson();
  if (!existsSync(join(ROOT, "LICENSE"))) {
    throw new Error("LICENSE is missing at the repository root; add it before building");
  }
  // A file an earlier build left (a module since removed) would be packed too.
  rmSync(outDir, { recursive: true, force: true });
  const exports = { ...deno.exports, ...NPM_ONLY_EXPORTS };
  await compile(ROOT, Object.values(exports), outDir);
  // What the npm-only entry points import are their peer dependencies (each range as the
  // source's npm: specifier has it); the rest of the package must need none of them.
  const emitted = walk(outDir);
  const npmOnly = (file: string) => file.startsWith(NPM_ONLY_DIR + "/");
  const peers = rewriteSpecifiers(outDir, deno, {}, emitted.filter(npmOnly));
  const dependencies = rewriteSpecifiers(
    outDir,
    deno,
    {},
    emitted.filter((file) => !npmOnly(file)),
  );

  const manifest = {
    name: deno.name,
    version: deno.version,
    description: "The bash capability of an AI agent harness: executor seam, local and sandboxed " +
      "executors, background tasks and model-facing tools",
    keywords: ["bash", "shell", "ai", "agent", "llm", "tools", "sandbox", "mcp", "executor"],
    license: deno.license ?? "MIT",
    type: "module",
    types: rootTypes(deno.exports, "deno.json"),
    exports: exportsOf(exports),
    // Importing a module only defines things: nothing runs until called.
    sideEffects: false,
    engines: { node: NODE_ENGINES },
    ...(Object.keys(dependencies).length ? { dependencies } : {}),
    ...(Object.keys(peers).length
      ? {
        peerDependencies: peers,
        // Optional: `npm i @shellseam/bash` installs none of them.
        peerDependenciesMeta: Object.fromEntries(
          Object.keys(peers).map((name) => [name, { optional: true }]),
        ),
      }
      : {}),
  };
  writeFileSync(join(outDir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  for (const file of ["README.md", "LICENSE"]) {
    if (existsSync(join(ROOT, file))) copyFileSync(join(ROOT, file), join(outDir, file));
  }
  // The README links its topics in docs/: the pages travel with it.
  mkdirSync(join(outDir, "docs"), { recursive: true });
  for (const page of readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md"))) {
    copyFileSync(join(ROOT, "docs", page), join(outDir, "docs", page));
  }
  return outDir;
}

/**
 * Builds the CLI package (`cli/`, `@shellseam/cli`) into `outDir` (default
 * `npm-cli/`, emptied first): its exports, the `shellseam` bin, and dependencies on the
 * library at the same version and on the MCP SDK. Returns its path.
 */
export async function buildCliNpm(outDir: string = NPM_CLI_DIR): Promise<string> {
  const library = readDenoJson();
  const cli = readDenoJson(CLI_ROOT);
  // As for the library: nothing an earlier build left is packed.
  rmSync(outDir, { recursive: true, force: true });
  await compile(CLI_ROOT, Object.values(cli.exports), outDir);
  const dependencies = rewriteSpecifiers(outDir, cli, { [library.name]: library.version });
  const main = cli.exports["."];
  if (main === undefined) throw new Error('cli/deno.json must export "." (the command line)');
  setNodeShebang(join(outDir, js(main)));
  const manifest = {
    name: cli.name,
    version: cli.version,
    description: "shellseam's command line: run a command in the sandbox, check the sandbox, " +
      "and serve the bash tools to any MCP client over stdio",
    keywords: ["bash", "shell", "ai", "agent", "sandbox", "mcp", "mcp-server", "cli"],
    license: cli.license ?? "MIT",
    type: "module",
    types: rootTypes(cli.exports, "cli/deno.json"),
    exports: exportsOf(cli.exports),
    bin: { shellseam: js(main) },
    // No `sideEffects: false`: main.js runs the command line when it is the program.
    engines: { node: NODE_ENGINES },
    dependencies,
  };
  writeFileSync(join(outDir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  copyFileSync(join(CLI_ROOT, "README.md"), join(outDir, "README.md"));
  copyFileSync(join(ROOT, "LICENSE"), join(outDir, "LICENSE"));
  return outDir;
}

/** Emits `entries` (relative to `rootDir`) and what they import into `outDir`. */
async function compile(rootDir: string, entries: string[], outDir: string): Promise<void> {
  const configDir = mkdtempSync(join(tmpdir(), "shellseam-tsconfig-"));
  try {
    const tsconfig = join(configDir, "tsconfig.json");
    writeTsconfig(
      tsconfig,
      { ...COMPILER_OPTIONS, rootDir, outDir },
      entries.map((entry) => join(rootDir, entry)),
    );
    await tsc(["-p", tsconfig]);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

function setNodeShebang(path: string): void {
  const text = readFileSync(path, "utf8").replace(/^#!.*\n/, "");
  writeFileSync(path, "#!/usr/bin/env node\n" + text, { mode: 0o755 });
}

if (import.meta.main) {
  for (const dir of [await buildNpm(), await buildCliNpm()]) {
    console.log(`Built ${relative(ROOT, dir)}/ (${walk(dir).length} files)`);
  }
}
