/**
 * `standby-bwrap` and `standby-landlock`: what the standby (a confined
 * launch started ahead of the next call, see the README) saves a confined
 * `run("true")`, per call, in wall time and in CPU. Three arms run
 * interleaved: an executor that keeps a standby, one whose plans carry none
 * (every call a cold start), and the floor that the backend's goal in
 * `sandbox-bwrap` or `sandbox-landlock` is judged against. The row's ratio is
 * cold over standby; its note gives both against the floor, back to back and
 * with a pause between calls, and the CPU each arm used per call.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { SandboxBackendName } from "../../sandbox/mod.ts";
import { type WithConfinerWrap, WRAP_CONFINER } from "../../engine/mod.ts";
import { type BenchCase, type BenchContext, type CaseResult, row, skippedRow } from "../_case.ts";
import { interleave, type InterleaveOptions } from "../_interleave.ts";
import { quantile } from "../_stats.ts";
import { rawSpawnOk, rounds, unavailable } from "./_spawn.ts";
import { BARE_BWRAP, sandboxed } from "./sandbox.ts";

/** The pause before every step of the second, paused run. */
const PAUSE_MS = 50;
/** Calls per arm in one block of the CPU measure, and the blocks per arm. */
const CPU_CALLS = 10;
/** Time left after a block, inside its measure, for a standby it starts to come up. */
const SETTLE_MS = 300;
/** The kernel's clock ticks per second in `/proc/self/stat` (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A config whose confiner's plans neither take nor start a standby: every call starts cold. */
const NO_STANDBY: WithConfinerWrap = {
  [WRAP_CONFINER]: (inner) => ({
    resolvePolicy: (policy) => inner.resolvePolicy(policy),
    defaultLimits: (spec) => inner.defaultLimits(spec),
    plan: async (spec, launch, limits) => {
      const { takeAhead: _take, afterSettle: _after, ...plan } = await inner.plan(
        spec,
        launch,
        limits,
      );
      return plan;
    },
    unconfinedExposure: (programs) => inner.unconfinedExposure(programs),
    stop: () => inner.stop(),
    dispose: () => inner.dispose(),
  }),
};

/**
 * CPU milliseconds used so far by this process (every thread) and by its
 * children that were waited for (and theirs): a standby's CPU counts once
 * the call it ran is over.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  const stat = readFileSync("/proc/self/stat", "utf8");
  // After the command name's closing parenthesis: field 3 is the first.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const children = Number(fields[16 - 3]) + Number(fields[17 - 3]);
  return (user + system) / 1000 + children * 1000 / TICKS_PER_SECOND;
}

/**
 * CPU per call of each arm: blocks of {@linkcode CPU_CALLS} calls, arms
 * taking turns block by block, each block's measure ending
 * {@linkcode SETTLE_MS} after its last call (so the standby that call leaves
 * is started inside it).
 */
async function cpuPerCall(
  arms: Record<string, () => Promise<unknown>>,
  blocks: number,
): Promise<Record<string, number>> {
  const used: Record<string, number> = Object.fromEntries(Object.keys(arms).map((n) => [n, 0]));
  for (let block = 0; block < blocks; block++) {
    for (const [name, arm] of Object.entries(arms)) {
      const start = cpuMs();
      for (let call = 0; call < CPU_CALLS; call++) await arm();
      await new Promise((done) => setTimeout(done, SETTLE_MS));
      used[name]! += cpuMs() - start;
    }
  }
  return Object.fromEntries(
    Object.entries(used).map(([name, ms]) => [name, ms / (blocks * CPU_CALLS)]),
  );
}

/** The median of `samples` with two decimals. */
function median(samples: readonly number[]): string {
  return quantile(samples, 0.5).toFixed(2);
}

/** One backend's row: cold (no standby) against standby, with the floor in its note. */
async function measure(
  context: BenchContext,
  id: string,
  backend: SandboxBackendName,
  floor: { what: string; run: () => Promise<unknown> },
  full: InterleaveOptions,
  quick: InterleaveOptions,
): Promise<CaseResult> {
  const header = {
    id,
    what: `SandboxBashExecutor run("true") on ${backend} under Deno (read-only, network deny), ` +
      "every call a cold start (its plans carry no standby)",
    baseline: "the same with the standby the executor keeps after each call",
    unit: "ms",
    goal: null,
    better: "lower",
  } as const;
  const warm = await sandboxed(context, backend);
  if ("unavailable" in warm) return skippedRow(header, warm.unavailable);
  await using _warm = warm;
  const cold = await sandboxed(context, backend, NO_STANDBY);
  if ("unavailable" in cold) return skippedRow(header, cold.unavailable);
  await using _cold = cold;
  const arms = {
    standby: () => warm.run(warm.resolve({ command: "true" })),
    cold: () => cold.run(cold.resolve({ command: "true" })),
    floor: floor.run,
  };
  const options = rounds(context, full, quick);
  const back = await interleave(arms, options);
  const paused = await interleave(arms, { ...options, pauseMs: PAUSE_MS });
  const cpu = await cpuPerCall(arms, context.quick ? 1 : 3);
  const against = (samples: Record<string, number[]>) =>
    `standby ${median(samples.standby!)} ms, cold ${median(samples.cold!)} ms, floor ${
      median(samples.floor!)
    } ms (ratios to the floor: standby ${
      (quantile(samples.standby!, 0.5) / quantile(samples.floor!, 0.5)).toFixed(2)
    }, cold ${(quantile(samples.cold!, 0.5) / quantile(samples.floor!, 0.5)).toFixed(2)})`;
  const note = `floor: ${floor.what}; back to back: ${against(back)}; with ${PAUSE_MS} ms ` +
    `between calls: ${against(paused)}; CPU per call (this process and its children): ` +
    `standby ${cpu.standby!.toFixed(2)} ms, cold ${cpu.cold!.toFixed(2)} ms, floor ${
      cpu.floor!.toFixed(2)
    } ms`;
  context.log(`   ${id}: ${note}`);
  return row(header, back.cold!, back.standby!, { note });
}

/** `standby-bwrap` and `standby-landlock`: what the standby saves each backend. */
export const sandboxStandby: BenchCase = {
  ids: ["standby-bwrap", "standby-landlock"],
  async run(context) {
    const rows: CaseResult[] = [];
    const missing = await unavailable("bwrap");
    rows.push(
      missing !== undefined
        ? skippedRow({
          id: "standby-bwrap",
          what: "the bwrap standby",
          baseline: null,
          unit: "ms",
          goal: null,
          better: "lower",
        }, missing)
        : await measure(
          context,
          "standby-bwrap",
          "bwrap",
          {
            what: "bare bwrap with the same namespaces and mounts (sandbox-bwrap's)",
            run: () => rawSpawnOk("bwrap", BARE_BWRAP),
          },
          { warmup: 3, iterations: 20 },
          { warmup: 1, iterations: 5 },
        ),
    );
    const empty = join(context.cacheDir, "empty.js");
    writeFileSync(empty, "");
    rows.push(
      await measure(
        context,
        "standby-landlock",
        "landlock",
        {
          what: "bare deno run of an empty script (sandbox-landlock's)",
          run: () => rawSpawnOk(Deno.execPath(), ["run", "--no-config", "--no-lock", empty]),
        },
        { warmup: 2, iterations: 15 },
        { warmup: 1, iterations: 4 },
      ),
    );
    return rows;
  },
};
