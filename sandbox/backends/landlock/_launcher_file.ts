/**
 * The Landlock launcher as a file that `deno run` is given: the launcher's
 * function source (`_launcher.ts`) as a standalone script, written into the
 * executor's launcher folder.
 *
 * @module
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { landlockLauncherMain } from "./_launcher.ts";
import { LAUNCHER_FAILURE_EXIT, LAUNCHER_FAILURE_PREFIX } from "./_launcher_protocol.ts";

/**
 * The launcher as a standalone script: plain JavaScript (the function's
 * emitted source), so the first run needs neither a type-check nor a
 * download, however this library was loaded. Whatever it throws is its own
 * failure too (exit {@linkcode LAUNCHER_FAILURE_EXIT}, prefixed message).
 */
export function landlockLauncherScript(): string {
  return "// shellseam Landlock launcher (generated; do not edit)\n" +
    `try {\n  (${landlockLauncherMain.toString()})();\n} catch (error) {\n` +
    `  Deno.stderr.writeSync(new TextEncoder().encode(\`${LAUNCHER_FAILURE_PREFIX} \${error}\\n\`));\n` +
    `  Deno.exit(${LAUNCHER_FAILURE_EXIT});\n}\n`;
}

/** The launcher's file name (`.mjs`: a module, whatever a package.json above it says). */
const LAUNCHER_FILE = "landlock-launcher.mjs";

/**
 * Writes the launcher script into `dir` unless the file there holds it
 * already, and returns the file's path, which `deno run` is given. The
 * launcher runs with FFI before any restriction, so `dir` must be a folder no
 * confined command can write: the backend's launcher folder, which the executor
 * never lets a writable root hold. A file, not a `data:` URL of the script: Deno takes about 2 ms
 * more CPU to start from such a long URL, on every launch. Throws when the
 * file cannot be read or written.
 */
export function landlockLauncherFile(dir: string): string {
  const path = join(dir, LAUNCHER_FILE);
  const script = landlockLauncherScript();
  let current: string | undefined;
  try {
    current = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  if (current !== script) {
    // Written whole under a name of its own, then renamed into place: no
    // launch runs half a launcher.
    const draft = join(dir, `${LAUNCHER_FILE}-${crypto.randomUUID()}`);
    writeFileSync(draft, script, { flag: "wx", mode: 0o600 });
    renameSync(draft, path);
  }
  return path;
}
