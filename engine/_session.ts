import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import process from "node:process";
import { throwIfDenied } from "./_permissions.ts";

/**
 * The absolute path of an executable file named `name` on PATH, or null.
 * Throws `BashConfigError` when the runtime refuses a permission the lookup
 * needs, rather than reporting the file as missing.
 */
export function findOnPath(
  name: string,
  path: string | undefined = process.env.PATH,
): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch (error) {
      throwIfDenied(error, `look for "${name}" on PATH`);
      continue;
    }
  }
  return null;
}

/**
 * The util-linux `setsid` on PATH, or null. A `setsid` that is a link to a
 * multi-call binary (busybox) is not taken: it may fork, and then the pid we
 * hold would not be the session's.
 */
export function findSetsid(): string | null {
  const found = findOnPath("setsid");
  if (found === null) return null;
  try {
    return basename(realpathSync(found)) === "setsid" ? found : null;
  } catch (error) {
    throwIfDenied(error, `resolve "${found}"`);
    return null;
  }
}
