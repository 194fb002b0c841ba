/**
 * `deno task doc`: the API reference of `@shellseam/bash`, from the JSDoc.
 * Lints the JSDoc of every entry point in deno.json (`deno doc --lint`), then
 * builds the HTML reference into `.doc/api/` (git-ignored), as JSR shows it
 * at https://jsr.io/@shellseam/bash/doc.
 *
 * @module
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readDenoJson, ROOT } from "./_tsc.ts";

/** Where the HTML reference is written. */
export const DOC_DIR: string = join(ROOT, ".doc", "api");

async function deno(args: string[]): Promise<void> {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`deno ${args.join(" ")} failed with exit code ${code}`);
}

if (import.meta.main) {
  const { name, exports } = readDenoJson();
  const entries = Object.values(exports);
  await deno(["doc", "--lint", ...entries]);
  // Emptied first, so a page of a symbol since removed does not stay.
  rmSync(DOC_DIR, { recursive: true, force: true });
  mkdirSync(DOC_DIR, { recursive: true });
  await deno(["doc", "--html", `--name=${name}`, `--output=${DOC_DIR}`, ...entries]);
  console.log(`Open ${join(DOC_DIR, "index.html")}`);
}
