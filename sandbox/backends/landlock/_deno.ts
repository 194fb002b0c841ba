import { createRequire } from "node:module";
import { dirname } from "node:path";
import process from "node:process";
import { findOnPath, throwIfDenied } from "../../../engine/mod.ts";

/** Where a `deno` binary for the Landlock launcher was found, or why none was. */
export type DenoLocation = { path: string } | { reason: string };

/**
 * Finds a `deno` binary to run the Landlock launcher with: the first `deno`
 * on `searchPath`, else the binary of the `deno` npm package (or of its
 * platform package) resolvable from this module, as under Node.
 */
export function findDeno(searchPath: string | undefined): DenoLocation {
  const found = findOnPath("deno", searchPath ?? "") ?? denoFromNpmPackage();
  if (found !== null) return { path: found };
  return {
    reason: '"deno" was not found on PATH nor as the "deno" npm package; install Deno ' +
      "or the deno npm package",
  };
}

function denoFromNpmPackage(): string | null {
  let require: ReturnType<typeof createRequire>;
  try {
    require = createRequire(import.meta.url);
  } catch {
    return null;
  }
  const arch = process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
  for (const name of ["deno", ...(arch ? [`@deno/linux-${arch}-glibc`] : [])]) {
    try {
      const found = findOnPath("deno", dirname(require.resolve(`${name}/package.json`)));
      if (found !== null) return found;
    } catch (error) {
      throwIfDenied(error, `look for the "${name}" npm package`);
      // Otherwise not installed.
    }
  }
  return null;
}
