import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import process from "node:process";
import { type Runtime, runtime, type SessionStrategy } from "../runtime/mod.ts";
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

/**
 * The util-linux `setsid` to start a helper of the executor's own (an ssh
 * channel, say) in a session of its own with, or null to use the runtime's
 * `detached`: null where `detached` costs no more (Node forks for every
 * spawn anyway), where no util-linux `setsid` is on PATH, and where this
 * process may not run it (Deno under an `--allow-run` that does not name
 * it). Under Deno, `detached` forks the whole process (measured: 14.4
 * against 8.4 ms of host CPU an SSH call).
 */
export function helperSetsid(current: Runtime = runtime): string | null {
  if ((current.autoSession ?? "setsid-binary") === "detached") return null;
  const setsid = findSetsid();
  return setsid !== null && (current.mayRun?.(setsid) ?? true) ? setsid : null;
}

/**
 * What `program args` is spawned as to start in a session of its own:
 * through `setsidPath` (util-linux `setsid`, which execs it without a fork),
 * or as it is with the runtime's `detached` when that is null.
 */
export function inOwnSession(
  setsidPath: string | null,
  program: string,
  args: readonly string[],
): { program: string; args: string[]; session: SessionStrategy } {
  return setsidPath === null
    ? { program, args: [...args], session: "detached" }
    : { program: setsidPath, args: [program, ...args], session: "setsid-binary" };
}
