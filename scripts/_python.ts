/**
 * The suite's `python3` without a version manager's shim in front. Where
 * `python3` on PATH is a shim (pyenv's is a bash script that runs several
 * more bash scripts to pick a version), each start costs 0.5 to 0.7 s of
 * CPU against 0.1 s for the interpreter itself, and the suite starts python3
 * about 150 times (the escape probes, the REPLs in terminals, the agent
 * tools). The interpreter is the same one the shim would have run: the
 * tests see the same Python, only without the shim's cost.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";

/** The first `name` on `path` that exists, resolved through its links; undefined when none. */
function onPath(name: string, path: string): string | undefined {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    try {
      return realpathSync(join(folder, name));
    } catch {
      // Not in this folder: the next one.
    }
  }
  return undefined;
}

/**
 * When `python3` on PATH is not the interpreter it runs (a shim), puts a
 * link to that interpreter first on this process's PATH, in `dir`/bin
 * (which the caller removes), so every leg and test file inherits it;
 * returns the interpreter, or undefined when nothing changed. The folder is
 * the caller's own (0700): another user (the `nobody` tests) passes over it
 * to the `python3` they found before.
 */
export function pythonWithoutShim(dir: string): string | undefined {
  const path = process.env.PATH ?? "";
  const found = onPath("python3", path);
  const asked = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], {
    encoding: "utf8",
  });
  if (found === undefined || asked.status !== 0) return undefined;
  const executable = realpathSync(asked.stdout.trim());
  if (executable === found) return undefined;
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(executable, join(bin, "python3"));
  process.env.PATH = `${bin}${delimiter}${path}`;
  return executable;
}
