import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import process from "node:process";

/** The absolute path of an executable file named `name` on PATH, or null. */
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
    } catch {
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
  } catch {
    return null;
  }
}
