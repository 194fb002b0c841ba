/**
 * `sandbox-bwrap-20k` and `sandbox-first-call`: what a confined call costs
 * in a large workspace (the protected-path walk, its sweep and the mounts),
 * and what an executor's first confined call costs against a warm one.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import {
  DEFAULT_PROTECTED_PATHS,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
} from "../../sandbox/mod.ts";
import { ProtectedPaths } from "../../sandbox/protected/mod.ts";
import { type BenchCase, type CaseResult, row, type RowHeader, skippedRow } from "../_case.ts";
import { interleave, interleaveValues } from "../_interleave.ts";
import { rawSpawn, rounds, unavailable } from "./_spawn.ts";
import { generatedTree } from "./_tree.ts";

/** The generated workspace: 50 packages, each a nested repository with `.vscode` and `.envrc`. */
const TREE = { packages: 50, entries: 19_000 };

/**
 * A bare bwrap running `bash -c <command>` with the mounts our bwrap
 * backend gives a `workspace-write` call in `root` (network denied): the
 * root read-only, the workspace writable, and every path the launch's walk
 * binds read-only again (what `ProtectedPaths` plans, the same list).
 */
export function bareBwrapWrite(
  root: string,
  readOnly: readonly string[],
  command: string,
): string[] {
  // deno-fmt-ignore
  return [
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
    "--ro-bind", "/proc/sys", "/proc/sys", "--tmpfs", "/tmp",
    "--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent", "--new-session",
    "--cap-drop", "ALL", "--bind", root, root,
    ...readOnly.flatMap((path) => ["--ro-bind-try", path, path]),
    "--chdir", root, "--", "bash", "-c", command,
  ];
}

/**
 * What a walk at launch binds read-only in `root` under the default
 * protected names: the walk takes canonical roots (as the executor makes
 * its workspace root), so a root reached through a symlink is resolved.
 */
export function protectedMounts(root: string): string[] {
  const plan = new ProtectedPaths(
    [realpathSync(root)],
    DEFAULT_PROTECTED_PATHS,
    () => "/nonexistent",
  ).plan;
  if (plan.readOnly.length === 0) throw new Error(`No protected path found in "${root}"`);
  return plan.readOnly;
}

const WALK_20K: RowHeader = {
  id: "sandbox-bwrap-20k",
  what: `SandboxBashExecutor run("echo ok") on bwrap, workspace-write, in a generated workspace ` +
    `of ${TREE.entries} entries (${TREE.packages} nested repositories, each with .vscode and .envrc)`,
  baseline: "bare bwrap with the same namespaces and mounts (151 read-only binds) running " +
    "bash -c 'echo ok'",
  unit: "ms",
  goal: 1.3,
  better: "lower",
};

/** `sandbox-bwrap-20k`: a call in a large workspace against a bare bwrap with the same mounts. */
export const sandboxBwrap20k: BenchCase = {
  ids: [WALK_20K.id],
  async run(context) {
    const missing = await unavailable("bwrap");
    if (missing !== undefined) return [skippedRow(WALK_20K, missing)];
    const root = realpathSync(generatedTree(join(context.cacheDir, "tree-20k"), TREE));
    const readOnly = protectedMounts(root);
    await using executor = new SandboxBashExecutor({
      workspaceRoot: root,
      backends: ["bwrap"],
      defaultMode: "workspace-write",
      network: "deny",
    });
    const ours = async () => {
      const result = await executor.run(executor.resolve({ command: "echo ok" }));
      if (result.exitCode !== 0 || result.stdout.text !== "ok\n") {
        throw new Error(`sandbox-bwrap-20k: our call lost its output: ${JSON.stringify(result)}`);
      }
    };
    const bare = async () => {
      const { code, bytes } = await rawSpawn("bwrap", bareBwrapWrite(root, readOnly, "echo ok"));
      if (code !== 0 || bytes !== 3) throw new Error(`bare bwrap: exit ${code}, ${bytes} bytes`);
    };
    const samples = await interleave(
      { ours, bare },
      rounds(context, { warmup: 3, iterations: 30 }, { warmup: 1, iterations: 4 }),
    );
    return [
      row(WALK_20K, samples.ours!, samples.bare!, {
        note: `${readOnly.length} read-only binds in both arms`,
      }),
    ];
  },
};

/** How long an executor stands idle after construction before its first call (an agent's first reply). */
const IDLE_MS = 1000;

const FIRST_CALL: RowHeader = {
  id: "sandbox-first-call",
  what: `An executor's first confined run("echo ok") on bwrap (workspace-write, this ` +
    `repository's size), ${IDLE_MS} ms after its construction`,
  baseline: 'a warm executor\'s run("echo ok") in the same workspace',
  unit: "ms",
  goal: 2,
  better: "lower",
};

const FIRST_CALL_AT_ONCE: RowHeader = {
  ...FIRST_CALL,
  id: "sandbox-first-call-at-once",
  what: `An executor's first confined run("echo ok") on bwrap (workspace-write, this ` +
    "repository's size), made at once after its construction (its probe still runs)",
};

const FIRST_CALL_DEFAULT: RowHeader = {
  ...FIRST_CALL,
  id: "sandbox-first-call-default",
  what: `An executor's first confined run("echo ok") with the default backends (bwrap, then ` +
    "landlock; workspace-write, this repository's size), made at once after its construction " +
    "(its probe still runs)",
};

/** One `run("echo ok")` on `executor`, checked; resolves with its milliseconds. */
async function timedCall(executor: SandboxBashExecutor): Promise<number> {
  const start = performance.now();
  const result = await executor.run(executor.resolve({ command: "echo ok" }));
  const ms = performance.now() - start;
  if (result.exitCode !== 0 || result.stdout.text !== "ok\n") {
    throw new Error(`sandbox-first-call lost its output: ${JSON.stringify(result)}`);
  }
  return ms;
}

/** `sandbox-first-call`: a fresh executor's first confined call against a warm one's. */
export const sandboxFirstCall: BenchCase = {
  ids: [FIRST_CALL.id, FIRST_CALL_AT_ONCE.id, FIRST_CALL_DEFAULT.id],
  async run(context) {
    const missing = await unavailable("bwrap");
    if (missing !== undefined) {
      return [FIRST_CALL, FIRST_CALL_AT_ONCE, FIRST_CALL_DEFAULT].map((header) =>
        skippedRow(header, missing)
      );
    }
    // About this repository's size: 2,000 entries, some nested repositories.
    const root = generatedTree(join(context.cacheDir, "tree-2k"), { packages: 5, entries: 2_000 });
    // The default config differs only in its backends: a warm call is bwrap's in both.
    const defaults = {
      workspaceRoot: root,
      defaultMode: "workspace-write" as const,
      network: "deny" as const,
    };
    const config = { ...defaults, backends: ["bwrap" as const] };
    await using warm = new SandboxBashExecutor(config);
    const fresh = (idleMs: number, chosen: SandboxBashExecutorConfig = config) => async () => {
      await using executor = new SandboxBashExecutor(chosen);
      await new Promise((done) => setTimeout(done, idleMs));
      return await timedCall(executor);
    };
    const options = rounds(context, { warmup: 1, iterations: 10 }, { warmup: 1, iterations: 2 });
    const samples = await interleaveValues(
      {
        first: fresh(IDLE_MS),
        firstAtOnce: fresh(0),
        firstDefault: fresh(0, defaults),
        warm: () => timedCall(warm),
      },
      { ...options, pauseMs: 50 },
    );
    const results: CaseResult[] = [
      row(FIRST_CALL, samples.first!, samples.warm!),
      row(FIRST_CALL_AT_ONCE, samples.firstAtOnce!, samples.warm!),
      row(FIRST_CALL_DEFAULT, samples.firstDefault!, samples.warm!),
    ];
    return results;
  },
};
