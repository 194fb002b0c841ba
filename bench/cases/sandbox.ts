import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SandboxBackendName, SandboxBashExecutor } from "../../sandbox/mod.ts";
import type { WithConfinerWrap } from "../../engine/mod.ts";
import {
  type BenchCase,
  type BenchContext,
  type CaseResult,
  row,
  type RowHeader,
  skippedRow,
} from "../_case.ts";
import { interleave, type InterleaveOptions } from "../_interleave.ts";
import { codexBinary } from "../_node.ts";
import { quantile } from "../_stats.ts";
import { rawSpawnOk, rounds, unavailable } from "./_spawn.ts";

/**
 * Our bwrap backend's namespaces and mounts in read-only mode with network
 * "deny", without what the backend adds around them (the seccomp filter and
 * the wrapper shell that closes inherited descriptors).
 */
// deno-fmt-ignore
export const BARE_BWRAP: string[] = [
  "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
  "--ro-bind", "/proc/sys", "/proc/sys", "--tmpfs", "/tmp",
  "--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent", "--new-session",
  "--cap-drop", "ALL", "--", "bash", "-c", "true",
];

/**
 * `sandbox-bwrap` also reports its ratio with this untimed pause before
 * every step, closer to an agent's commands, which are seconds apart: back
 * to back, the standby a confined command leaves starting the next one
 * ahead (see the README) runs beside the baseline, and an idle machine
 * wakes slower.
 */
const PAUSE_MS = 50;

/** A workspace outside /tmp (so no /tmp binds are added), private to the bench. */
export function workspace(context: BenchContext): string {
  const path = join(context.cacheDir, "workspace");
  mkdirSync(path, { recursive: true });
  return path;
}

/** A read-only, network-denied sandboxing executor on `backend`, checked once. */
export async function sandboxed(
  context: BenchContext,
  backend: SandboxBackendName,
  extra: WithConfinerWrap = {},
): Promise<
  SandboxBashExecutor | { unavailable: string }
> {
  const executor = new SandboxBashExecutor({
    workspaceRoot: workspace(context),
    backends: [backend],
    defaultMode: "read-only",
    network: "deny",
    ...extra,
  });
  const [status] = await executor.probeBackends();
  if (!status?.works) {
    await executor[Symbol.asyncDispose]();
    return { unavailable: `the ${backend} backend does not work here: ${status?.reason}` };
  }
  const check = await executor.run(executor.resolve({ command: "true" }));
  if (check.exitCode !== 0 || check.sandbox?.backend !== backend) {
    await executor[Symbol.asyncDispose]();
    throw new Error(`run("true") on ${backend} failed: ${JSON.stringify(check)}`);
  }
  return executor;
}

/**
 * The one row of `header`: our `run("true")` on `backend` against
 * `baseline`, interleaved; skipped when the backend does not work here.
 */
async function versus(
  context: BenchContext,
  header: RowHeader,
  backend: SandboxBackendName,
  baseline: () => Promise<unknown>,
  full: InterleaveOptions,
  quick: InterleaveOptions,
  withPause = false,
): Promise<CaseResult[]> {
  const executor = await sandboxed(context, backend);
  if ("unavailable" in executor) return [skippedRow(header, executor.unavailable)];
  await using _ = executor;
  const arms = { ours: () => executor.run(executor.resolve({ command: "true" })), baseline };
  const samples = await interleave(arms, rounds(context, full, quick));
  if (!withPause) return [row(header, samples.ours!, samples.baseline!)];
  const paused = await interleave(arms, { ...rounds(context, full, quick), pauseMs: PAUSE_MS });
  const [ours, bare] = [quantile(paused.ours!, 0.5), quantile(paused.baseline!, 0.5)];
  return [
    row(header, samples.ours!, samples.baseline!, {
      note: `with ${PAUSE_MS} ms between calls: ${ours.toFixed(2)} ms against ${
        bare.toFixed(2)
      } ms, ratio ${(ours / bare).toFixed(2)}`,
    }),
  ];
}

const BWRAP: RowHeader = {
  id: "sandbox-bwrap",
  what: 'SandboxBashExecutor run("true") on bwrap under Deno (read-only, network deny)',
  baseline: "bare bwrap with the same namespaces and mounts running bash -c true",
  unit: "ms",
  goal: 1.3,
  better: "lower",
};

/** `sandbox-bwrap`: our bwrap backend against a bare bwrap. */
export const sandboxBwrap: BenchCase = {
  ids: [BWRAP.id],
  async run(context) {
    const missing = await unavailable("bwrap");
    if (missing !== undefined) return [skippedRow(BWRAP, missing)];
    return await versus(
      context,
      BWRAP,
      "bwrap",
      () => rawSpawnOk("bwrap", BARE_BWRAP),
      { warmup: 5, iterations: 50 },
      { warmup: 1, iterations: 5 },
      true,
    );
  },
};

const LANDLOCK: RowHeader = {
  id: "sandbox-landlock",
  what: 'SandboxBashExecutor run("true") on Landlock under Deno (read-only, network deny)',
  baseline: "bare deno run of an empty script (the Deno start-up floor)",
  unit: "ms",
  goal: 1.3,
  better: "lower",
};

/** `sandbox-landlock`: our Landlock backend against Deno's own start-up. */
export const sandboxLandlock: BenchCase = {
  ids: [LANDLOCK.id],
  async run(context) {
    const empty = join(context.cacheDir, "empty.js");
    writeFileSync(empty, "");
    return await versus(
      context,
      LANDLOCK,
      "landlock",
      () => rawSpawnOk(Deno.execPath(), ["run", "--no-config", "--no-lock", empty]),
      { warmup: 3, iterations: 30 },
      { warmup: 1, iterations: 4 },
    );
  },
};

const CODEX: RowHeader = {
  id: "sandbox-vs-codex",
  what: 'SandboxBashExecutor run("true") on bwrap under Deno (read-only, network deny)',
  baseline: "codex sandbox -- bash -c true (@openai/codex 0.171.0, its default read-only " +
    "sandbox), spawned raw by Deno",
  unit: "ms",
  goal: 0.5,
  better: "lower",
};

/**
 * `sandbox-vs-codex`: our bwrap `run("true")` against Codex's sandbox CLI.
 * Codex refuses a `CODEX_HOME` under /tmp, so it gets one under bench/.cache.
 */
export const sandboxVsCodex: BenchCase = {
  ids: [CODEX.id],
  async run(context) {
    const node = await context.node();
    if ("unavailable" in node) return [skippedRow(CODEX, node.unavailable)];
    const codex = codexBinary();
    if (codex === undefined) {
      return [skippedRow(CODEX, "no native codex binary for this platform in @openai/codex")];
    }
    const home = join(context.cacheDir, "codex-home");
    mkdirSync(home, { recursive: true });
    const options = { cwd: workspace(context), env: { CODEX_HOME: home } };
    return await versus(
      context,
      CODEX,
      "bwrap",
      () => rawSpawnOk(codex, ["sandbox", "--", "bash", "-c", "true"], options),
      { warmup: 3, iterations: 50 },
      { warmup: 1, iterations: 5 },
    );
  },
};

const SRT: RowHeader = {
  id: "sandbox-vs-srt",
  what: 'the Node build\'s SandboxBashExecutor run("true") on bwrap under Node 22 ' +
    "(read-only, network deny)",
  baseline: "@anthropic-ai/sandbox-runtime 0.0.83 initialised once in-process (no writes, no " +
    'domains), wrapWithSandbox("true") spawned per call',
  unit: "ms",
  goal: 0.5,
  better: "lower",
};
const SRT_CLI: RowHeader = {
  ...SRT,
  id: "sandbox-vs-srt-cli",
  baseline: "srt --settings <same policy> -c true (its CLI, a Node process per call)",
};

/** `sandbox-vs-srt` and `sandbox-vs-srt-cli`: under Node, against Anthropic's sandbox runtime. */
export const sandboxVsSrt: BenchCase = {
  ids: [SRT.id, SRT_CLI.id],
  async run(context) {
    const node = await context.node();
    if ("unavailable" in node) return [SRT, SRT_CLI].map((h) => skippedRow(h, node.unavailable));
    const settings = join(context.cacheDir, "srt-settings.json");
    writeFileSync(
      settings,
      JSON.stringify({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
      }),
    );
    const common = { workspace: workspace(context), settings };
    const lib = await node.run({
      kind: "srt",
      ...common,
      ...rounds(context, { warmup: 3, iterations: 50 }, { warmup: 1, iterations: 5 }),
    });
    const cli = await node.run({
      kind: "srt-cli",
      ...common,
      ...rounds(context, { warmup: 1, iterations: 10 }, { warmup: 1, iterations: 2 }),
    });
    return [
      lib.unavailable?.srt === undefined
        ? row(SRT, lib.samples.ours!, lib.samples.srt!, {
          note: `srt's SandboxManager.initialize() took ${
            lib.extra?.srt_initialize_ms?.toFixed(0)
          } ms, once, before the timed calls`,
        })
        : skippedRow(SRT, lib.unavailable.srt),
      cli.unavailable?.srt === undefined
        ? row(SRT_CLI, cli.samples.ours!, cli.samples.srt_cli!)
        : skippedRow(SRT_CLI, cli.unavailable.srt),
    ];
  },
};
