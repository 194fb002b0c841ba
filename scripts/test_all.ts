/**
 * `deno task test`: every leg of the tests, each run to its end whatever the
 * others did, the Deno legs and the Node leg side by side (on two cores,
 * neither fills both alone):
 * 1. the Deno suite, as two legs: a type-check of every test file, source
 *    file and doc example (`deno test --no-run --doc`); then, with the
 *    type-check done, the doc examples (of the sources, the README and
 *    docs/: one test file that imports each, see `scripts/_doc_examples.ts`),
 *    the groups of light test files (one test module a group that imports
 *    each, see `scripts/_groups.ts`) and each other test file, each in a
 *    process of its own, a few at a time (see `scripts/_pool.ts`), each
 *    handed what one probe of the sandbox backends, beside the type-check,
 *    found;
 * 2. beside the test files, the permissions file, under the narrow
 *    permissions it is about;
 * 3. from the start, beside them, the Node leg (`scripts/test_node.ts`), reported as two legs: its
 *    `node --test` over the compiled tests, and its checks of the package
 *    (build, pack, install, the README examples on Node, `require()`, the bin,
 *    the consumer type-check), which run even when `node --test` failed.
 *
 * The Deno legs run under `tests/deno.lock` (see `DEV_LOCK`), with the
 * interpreter a `python3` shim would run first on PATH (see `scripts/_python.ts`). Once the
 * Node leg ended, the Deno files left run that many more at once. It ends with
 * one line per leg and `legs: N passed, N failed`, and exits 1 when a leg
 * failed. `SHELLSEAM_TEST_JOBS` sets how many test files the Deno legs run at
 * once (4 unless set); `node --test` runs one fewer.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LegResult, runLeg, stopLegs, summarize } from "./_legs.ts";
import { type MoreJobs, runFiles, testFiles, testJobs } from "./_pool.ts";
import { EXAMPLES_DIR, writeExamples } from "./_doc_examples.ts";
import { GROUPS_DIR, TEST_GROUPS, writeGroups } from "./_groups.ts";
import { DEV_LOCK } from "./_tsc.ts";
import { pythonWithoutShim } from "./_python.ts";
import type { NodeStepResult } from "./test_node.ts";
import { PROBED_ENV, probeNow } from "../tests/sandbox/_fixtures.ts";

/** The folders and files whose doc examples the Deno suite runs (no test file is among them). */
export const DOC_EXAMPLES: readonly string[] = [
  "seam/",
  "runtime/",
  "engine/",
  "local/",
  "tasks/",
  "tool/",
  "sandbox/",
  "git/",
  "testing/",
  "remote/",
  "npm_only/",
  "cli/",
  "mod.ts",
  "README.md",
  "docs/",
];

/** The folders and files of the Deno suite (tests, doc examples, the README and docs/). */
export const DENO_SUITE: readonly string[] = ["tests/", ...DOC_EXAMPLES];

/** The file that runs only under the narrow permissions of {@linkcode PERMISSIONS_LEG}. */
export const PERMISSIONS_FILE = "tests/e2e/permissions_test.ts";

/** The permissions file and the narrow permissions it runs under. */
export const PERMISSIONS_LEG: readonly string[] = [
  "test",
  `--lock=${DEV_LOCK}`,
  "--allow-run=bash,setsid,bwrap,deno,unshare",
  "--allow-env",
  "--allow-read",
  "--allow-write=/tmp",
  "--allow-sys=uid",
  PERMISSIONS_FILE,
];

/** The two legs the Node leg's report (see `scripts/test_node.ts`) makes. */
function nodeLegs(run: LegResult, report: string): LegResult[] {
  let steps: NodeStepResult[] = [];
  try {
    steps = JSON.parse(readFileSync(report, "utf8")) as NodeStepResult[];
  } catch (error) {
    const note = `no step report: ${error instanceof Error ? error.message : String(error)}`;
    return [{ ...run, name: "Node: node --test", ok: false, note }];
  }
  const part = (name: string, which: NodeStepResult["part"], counts: boolean): LegResult => {
    const mine = steps.filter((step) => step.part === which);
    const failed = mine.filter((step) => !step.ok).map((step) => step.title);
    const ran = mine.length > 0;
    return {
      name,
      ok: ran && failed.length === 0,
      seconds: mine.reduce((sum, step) => sum + step.seconds, 0),
      ...(counts && run.counts !== undefined ? { counts: run.counts } : {}),
      ...(!ran
        ? { note: "not run: the package could not be built or installed" }
        : failed.length > 0
        ? { note: `failed: ${failed.join("; ")}` }
        : {}),
    };
  };
  const legs = [
    { ...part("Node: node --test", "tests", true), ...failuresOf(run) },
    part("Node: README examples and packaging", "package", false),
  ];
  // A leg that failed outside its steps (it crashed after writing them) is not passed.
  if (!run.ok && legs.every((leg) => leg.ok)) {
    return legs.map((leg) => ({ ...leg, ok: false, note: "the Node leg exited with a failure" }));
  }
  return legs;
}

/** `run`'s failures, when it has any: those node's test runner named. */
function failuresOf(run: LegResult): Pick<LegResult, "failures"> {
  return run.failures === undefined ? {} : { failures: run.failures };
}

/**
 * The Deno legs: the type-check, then the doc examples and test files with
 * the permissions file beside them.
 */
async function denoLegs(more: Promise<MoreJobs>): Promise<LegResult[]> {
  const probed = probedEnv();
  const results = [
    await runLeg("Deno: type-check", [
      "test",
      `--lock=${DEV_LOCK}`,
      "--no-run",
      "--doc",
      ...DENO_SUITE,
    ]),
  ];
  const noCheck = ["test", `--lock=${DEV_LOCK}`, "--allow-all", "--no-check"];
  const examples = writeExamples(DOC_EXAMPLES);
  try {
    // The groups (long, each about a minute) start first; the files of none follow, largest first.
    const groups = TEST_GROUPS.map((group) => group.filter((file) => file !== PERMISSIONS_FILE));
    const grouped = groups.flat();
    const units = [
      ...writeGroups(groups),
      examples.file,
      ...testFiles(["tests/"], [PERMISSIONS_FILE, ...grouped]),
    ];
    // The permissions file (one short process) runs beside the files, its output held.
    const [files, permissions] = await Promise.all([
      runFiles(
        "Deno: doc examples and test files",
        units,
        noCheck,
        testJobs(),
        console.log,
        more,
        await probed,
      ),
      runLeg("permissions file", [...PERMISSIONS_LEG], { held: true }),
    ]);
    results.push(files, permissions);
  } finally {
    rmSync(EXAMPLES_DIR, { recursive: true, force: true });
    rmSync(GROUPS_DIR, { recursive: true, force: true });
  }
  return results;
}

/**
 * What probing each sandbox backend here found, as the environment that
 * hands it to the Deno test files (see `PROBED_ENV` in
 * `tests/sandbox/_fixtures.ts`): probed once, beside the type-check, rather
 * than once in each of the files that ask. Empty (each file probes) when the
 * probe failed: the files then say why.
 */
async function probedEnv(): Promise<Record<string, string>> {
  try {
    return { [PROBED_ENV]: JSON.stringify(await probeNow()) };
  } catch {
    return {};
  }
}

/** How many test files `node --test` runs at once: one fewer than the Deno legs (at least one). */
function nodeJobs(): number {
  return Math.max(1, testJobs() - 1);
}

/**
 * The Node leg (`scripts/test_node.ts`), its output held and printed whole
 * when it ends: it runs beside the Deno legs, with one file fewer at once
 * than they run (at least one), so that the two fill both cores without
 * crowding them.
 */
async function nodeLeg(dir: string): Promise<LegResult[]> {
  const report = join(dir, "node.json");
  const jobs = String(nodeJobs());
  const node = await runLeg(
    "Node leg",
    ["run", "--allow-all", "scripts/test_node.ts", `--report=${report}`],
    { env: { SHELLSEAM_TEST_JOBS: jobs }, held: true },
  );
  return nodeLegs(node, report);
}

async function main(): Promise<void> {
  const start = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "shellseam-test-all-"));
  try {
    const python = pythonWithoutShim(dir);
    if (python !== undefined) console.log(`python3 on PATH is a shim; the tests run ${python}`);
    // A leg that throws (rather than fails) stops the other before its folder goes.
    // Once the Node leg ended, its share of the machine goes to the Deno files left.
    const node = nodeLeg(dir);
    const more = node.then(
      () => ({ jobs: nodeJobs(), reason: "the Node leg ended" }),
      () => ({ jobs: 0, reason: "" }),
    );
    const [deno, nodeResults] = await Promise.all([denoLegs(more), node]).catch((error) => {
      stopLegs();
      throw error;
    });
    const passed = summarize([...deno, ...nodeResults], (performance.now() - start) / 1000);
    Deno.exitCode = passed ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
