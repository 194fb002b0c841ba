/**
 * The Seatbelt backend proves itself before its first confined command: a
 * command confined by a profile of a small policy of its own tries what the
 * policy forbids, and the host checks, by their effects, that each attempt
 * was refused. On macOS this is how a user learns the sandbox is real on
 * their machine; a `sandbox-exec` that does not enforce (a fake on the
 * search path, a machine where the sandbox is switched off) fails closed,
 * naming what did not hold.
 *
 * @module
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { messageOf } from "../../../seam/message.ts";
import { canonicalPath } from "../../../engine/mod.ts";
import { listenLoopback } from "../../../runtime/mod.ts";
import type { ConfinedPolicy, PrepareContext, SelfProbeCheck } from "../mod.ts";
import { seatbeltLaunch } from "./_launch.ts";

/** What the self-probe's command tries, in the order it tries them. */
export const SELF_PROBES = {
  writeOutside: "a write outside the writable roots",
  readDenied: "a read of a denied path",
  writeProtected: "a write to a protected name",
  connectOut: "a connection out",
} as const;

/**
 * The probe's command, run in its writable root with `OUTSIDE SECRET ROOT
 * PORT` as `$1` to `$4`. In order:
 * 1. It says it started.
 * 2. It writes a file outside the roots, reads the denied file (whose text
 *    then shows on its stdout), makes a folder and writes a protected name
 *    (`.git`) in it, and connects to the host's listener on loopback
 *    (saying so when it could).
 * 3. Last, it writes a file in its root, which must work: a probe whose
 *    every attempt failed proves nothing unless the command could do what
 *    the policy allows.
 */
const PROBE_SCRIPT = "echo started; " +
  'echo x > "$1/written" 2>/dev/null; ' +
  'cat "$2" 2>/dev/null; ' +
  'mkdir "$3/nested" && { echo x > "$3/nested/.git"; } 2>/dev/null; ' +
  '(exec 3<>"/dev/tcp/127.0.0.1/$4") 2>/dev/null && echo connected; ' +
  'echo x > "$3/allowed"';

/** The probe's outcome: each check, or why the probe itself could not run. */
export type SelfProbeOutcome = { checks: SelfProbeCheck[] } | { reason: string };

/**
 * Runs the self-probe through `sandbox-exec` at `sandboxExec`, in a fresh
 * folder inside `privateDir` (removed after), by `context.runDirect`: its
 * checks, or why the probe could not tell (it did not run, or the write it
 * must be allowed was refused too).
 */
export async function seatbeltSelfProbe(
  sandboxExec: string,
  privateDir: string,
  context: PrepareContext,
): Promise<SelfProbeOutcome> {
  let dir: string | undefined;
  let listener: ProbeListener | undefined;
  try {
    dir = canonicalPath(mkdtempSync(join(privateDir, "seatbelt-probe-")));
    listener = await loopbackListener();
    const root = join(dir, "root");
    const outside = join(dir, "outside");
    const secret = join(dir, "secret");
    const folders = { privateDir: join(dir, "private"), tmpDir: join(dir, "private", "tmp") };
    for (const folder of [root, outside, folders.tmpDir]) mkdirSync(folder, { recursive: true });
    const token = randomUUID();
    writeFileSync(secret, `${token}\n`, { mode: 0o600 });
    const policy: ConfinedPolicy = {
      mode: "workspace-write",
      workspaceRoot: root,
      writableRoots: [],
      network: "deny",
      protectedPaths: [".git"],
      readOnlyPaths: [],
      unixSockets: false,
      masks: [{ path: secret, directory: false, kind: "secret" }],
      maskFile: secret,
    };
    const args = [outside, secret, root, String(listener.port)];
    const result = await context.runDirect(
      { command: "true", workdir: root, timeoutMs: context.probeTimeoutMs },
      (launch) =>
        seatbeltLaunch(
          { ...launch, args: ["-c", PROBE_SCRIPT, "shellseam-self-probe", ...args] },
          sandboxExec,
          policy,
          folders,
          canonicalPath,
        ),
    );
    const stdout = result.stdout.text;
    if (result.timedOut) {
      return { reason: `its self-probe timed out after ${context.probeTimeoutMs} ms` };
    }
    if (!stdout.startsWith("started\n") || !existsSync(join(root, "allowed"))) {
      const said = result.stderr.text.trim().split("\n", 1)[0] || `exit code ${result.exitCode}`;
      return {
        reason: `its self-probe could not show what the sandbox refuses: the probe command ${
          stdout.startsWith("started\n")
            ? "was refused a write inside its writable root too"
            : "did not run"
        } (${said})`,
      };
    }
    // A connection made just before the command ended may not be accepted yet.
    await new Promise((done) => setTimeout(done, 50));
    const stopped = listener.failure();
    if (stopped !== undefined) {
      return {
        reason:
          `its self-probe could not tell whether a connection out is refused: its listener on 127.0.0.1 stopped (${
            messageOf(stopped)
          })`,
      };
    }
    return {
      checks: [
        { probe: SELF_PROBES.writeOutside, refused: !existsSync(join(outside, "written")) },
        { probe: SELF_PROBES.readDenied, refused: !stdout.includes(token) },
        {
          probe: SELF_PROBES.writeProtected,
          refused: !existsSync(join(root, "nested", ".git")),
        },
        {
          probe: SELF_PROBES.connectOut,
          refused: !stdout.includes("\nconnected\n") && listener.accepted() === 0,
        },
      ],
    };
  } catch (error) {
    return { reason: `its self-probe could not run: ${messageOf(error)}` };
  } finally {
    await listener?.close();
    if (dir !== undefined) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // The verdict stands; the folder goes with the private folder.
      }
    }
  }
}

/** Why a self-probe whose `checks` were not all refused fails, or undefined when all were. */
export function selfProbeFailure(checks: readonly SelfProbeCheck[]): string | undefined {
  const held = checks.filter((check) => !check.refused).map((check) => check.probe);
  if (held.length === 0) return undefined;
  return `its self-probe found the sandbox not enforcing: ${held.join(", ")} ${
    held.length === 1 ? "was" : "were"
  } not refused, so no command is run under it; check that this sandbox-exec is macOS's ` +
    "own (/usr/bin/sandbox-exec) and that nothing disables Seatbelt here";
}

/** The listener the probe's connection out goes to. */
interface ProbeListener {
  port: number;
  /** How many connections it accepted. */
  accepted: () => number;
  /** What stopped it, if anything did: then a connection refused proves nothing. */
  failure: () => Error | undefined;
  close: () => Promise<void>;
}

/** A {@linkcode ProbeListener} on a free port of 127.0.0.1. */
async function loopbackListener(): Promise<ProbeListener> {
  let accepted = 0;
  let failure: Error | undefined;
  const listener = await listenLoopback({
    onConnection: (socket) => {
      accepted++;
      socket.destroy();
    },
    onError: (error) => failure = error,
  });
  return {
    port: listener.port,
    accepted: () => accepted,
    failure: () => failure,
    close: () => listener.close(),
  };
}
