/**
 * `deno task build:npm`: emits `npm/`, the Node package: ESM JavaScript and
 * `.d.ts` for every export (compiled by the pinned tsc), `package.json`,
 * README.md and LICENSE.
 *
 * @module
 */
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
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

/** The command-line entry, packaged as the `shellseam` bin when it exists. */
const CLI_ENTRY = "cli/main.ts";

const js = (path: string): string => "./" + path.replace(/^\.\//, "").replace(/\.ts$/, ".js");
const dts = (path: string): string => js(path).replace(/\.js$/, ".d.ts");

/** Builds the package from scratch into `outDir` (default `npm/`) and returns its path. */
export async function buildNpm(outDir: string = NPM_DIR): Promise<string> {
  const deno = readDenoJson();
  if (!existsSync(join(ROOT, "LICENSE"))) {
    throw new Error("LICENSE is missing at the repository root; add it before building");
  }
  rmSync(outDir, { recursive: true, force: true });
  const hasCli = existsSync(join(ROOT, CLI_ENTRY));
  const entries = [...Object.values(deno.exports), ...(hasCli ? [CLI_ENTRY] : [])];
  const configDir = mkdtempSync(join(tmpdir(), "shellseam-tsconfig-"));
  try {
    const tsconfig = join(configDir, "tsconfig.json");
    writeTsconfig(
      tsconfig,
      { ...COMPILER_OPTIONS, rootDir: ROOT, outDir },
      entries.map((entry) => join(ROOT, entry)),
    );
    await tsc(["-p", tsconfig]);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
  const dependencies = rewriteSpecifiers(outDir, deno);
  if (hasCli) setNodeShebang(join(outDir, js(CLI_ENTRY)));

  const exports: Record<string, { types: string; import: string }> = {};
  for (const [subpath, source] of Object.entries(deno.exports)) {
    exports[subpath] = { types: dts(source), import: js(source) };
  }
  const manifest = {
    name: deno.name,
    version: deno.version,
    description: "The bash capability of an AI agent harness: executor seam, local and sandboxed " +
      "executors, background tasks and model-facing tools",
    license: deno.license ?? "MIT",
    type: "module",
    exports,
    ...(hasCli ? { bin: { shellseam: js(CLI_ENTRY) } } : {}),
    engines: { node: ">=20" },
    ...(Object.keys(dependencies).length ? { dependencies } : {}),
  };
  writeFileSync(join(outDir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  for (const file of ["README.md", "LICENSE"]) {
    if (existsSync(join(ROOT, file))) copyFileSync(join(ROOT, file), join(outDir, file));
  }
  return outDir;
}

function setNodeShebang(path: string): void {
  const text = readFileSync(path, "utf8").replace(/^#!.*\n/, "");
  writeFileSync(path, "#!/usr/bin/env node\n" + text, { mode: 0o755 });
}

if (import.meta.main) {
  const dir = await buildNpm();
  console.log(`Built ${relative(ROOT, dir)}/ (${walk(dir).length} files)`);
}
