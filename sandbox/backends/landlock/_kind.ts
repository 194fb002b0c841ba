import process from "node:process";
import { type BashRunResult, BashSpawnError } from "../../../seam/mod.ts";
import { messageOf } from "../../../seam/message.ts";
import { findOnPath } from "../../../engine/mod.ts";
import type { BackendKind, PrepareContext, PrepareRefusal, SandboxBackend } from "../mod.ts";
import { findDeno } from "./_deno.ts";
import { createLandlockBackend, type LauncherRunner, USER_NAMESPACE_ARGS } from "./_landlock.ts";
import { landlockLauncherFile } from "./_launcher_file.ts";
import {
  PERL_SELF_CHECK_FLAG,
  PERL_SELF_CHECK_PASSED,
  perlLauncherArgs,
} from "./_perl_launcher.ts";

/**
 * The Landlock backend as the sandbox finds it: `perl` on the search path
 * runs the Perl launcher when it passes the launcher's self-check (a perl
 * a confined command could have replaced is never run, and the backend is
 * passed over); else
 * `deno` runs the Deno launcher, written into a folder of the executor's
 * private folder (written again before each launch when an unconfined
 * command removed or changed it). A search path without perl (the
 * executor's `searchPath`) makes the Deno launcher run. A user who is not
 * root needs util-linux `unshare` for the read-only view, probed here.
 */
export const LANDLOCK_KIND: BackendKind = {
  name: "landlock",
  platform: "linux",
  async prepare(context: PrepareContext): Promise<SandboxBackend | PrepareRefusal> {
    const tmpDir = await context.privateFolder("tmp", "TMPDIR");
    if (typeof tmpDir !== "string") return tmpDir;
    const launcherDir = await context.privateFolder("deno", "launcher folder");
    if (typeof launcherDir !== "string") return launcherDir;
    const runner = await launcherRunner(context, launcherDir);
    if ("reason" in runner) return runner;
    const root = process.getuid?.() === 0;
    const backend = createLandlockBackend({
      runner,
      tmpDir,
      launcherDir,
      root,
      ...(root ? {} : { userNamespace: await userNamespace(context) }),
    });
    return runner.runtime === "perl"
      ? backend
      : { ...backend, restore: () => restoreLauncher(launcherDir) };
  },
};

/**
 * What runs the launcher: a perl that passes the Perl launcher's
 * self-check, else deno with the Deno launcher written into `launcherDir`;
 * or why neither can. A perl that lies where a confined command could have
 * replaced it is never run: the backend is passed over, naming it.
 */
async function launcherRunner(
  context: PrepareContext,
  launcherDir: string,
): Promise<LauncherRunner | PrepareRefusal> {
  const perl = findOnPath("perl", context.searchPath ?? "");
  if (perl !== null) {
    const exposed = context.exposed(perl);
    if (exposed !== undefined) return exposed;
    if (await passesSelfCheck(context, perl)) return { runtime: "perl", perl };
  }
  const deno = findDeno(context.searchPath);
  if ("reason" in deno) {
    return { reason: `${deno.reason}, or a 64-bit perl (perl-base), which runs it faster` };
  }
  try {
    return { runtime: "deno", deno: deno.path, launcher: landlockLauncherFile(launcherDir) };
  } catch (error) {
    return { reason: `cannot write its launcher into "${launcherDir}": ${messageOf(error)}` };
  }
}

/**
 * Whether `perl` passes the Perl launcher's self-check (64-bit, an
 * architecture whose system call numbers it knows, `syscall()` answering
 * as the kernel does), run unconfined with no environment.
 */
async function passesSelfCheck(context: PrepareContext, perl: string): Promise<boolean> {
  try {
    const result = await runUnconfined(context, perl, () => [
      ...perlLauncherArgs(),
      PERL_SELF_CHECK_FLAG,
    ]);
    return result.exitCode === 0 && result.stdout.text === `${PERL_SELF_CHECK_PASSED}\n`;
  } catch {
    // It could not start: the Deno launcher runs instead.
    return false;
  }
}

/** Writes the Landlock launcher again when an unconfined command removed or changed it. */
function restoreLauncher(dir: string): void {
  try {
    landlockLauncherFile(dir);
  } catch (error) {
    throw new BashSpawnError(
      `Cannot write the Landlock launcher into "${dir}" (${
        messageOf(error)
      }), so nothing was run; create a new executor`,
      { cause: error },
    );
  }
}

/**
 * Whether util-linux `unshare` gives a user and mount namespace here (for
 * the Landlock launcher of a user who is not root), or why not.
 */
async function userNamespace(
  context: PrepareContext,
): Promise<{ unshare: string } | { reason: string }> {
  const unshare = findOnPath("unshare", context.searchPath ?? "");
  if (unshare === null) {
    return { reason: '"unshare" was not found on PATH; install util-linux' };
  }
  const exposed = context.exposed(unshare);
  if (exposed !== undefined) return { reason: exposed.reason };
  try {
    const result = await runUnconfined(context, unshare, (bash) => [
      ...USER_NAMESPACE_ARGS,
      bash,
      "-c",
      "true",
    ]);
    if (result.exitCode === 0) return { unshare };
    const said = result.stderr.text.trim().split("\n", 1)[0];
    return {
      reason: `"${unshare} ${USER_NAMESPACE_ARGS.join(" ")}" failed: ${
        said || `exit ${result.exitCode}`
      }`,
    };
  } catch (error) {
    return { reason: `"${unshare}" could not start: ${messageOf(error)}` };
  }
}

/**
 * `program` run as a probe, with the arguments `args` makes of the bash it
 * may run: the direct path, unconfined like every program before the
 * sandbox, with none of the command's environment (LD_PRELOAD into a
 * workspace would load there).
 */
function runUnconfined(
  context: PrepareContext,
  program: string,
  args: (bash: string) => string[],
): Promise<BashRunResult> {
  return context.runDirect(
    { command: "true", timeoutMs: context.probeTimeoutMs },
    (launch) => ({ ...launch, program, args: args(launch.program), env: {} }),
  );
}
