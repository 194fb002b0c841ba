/**
 * `deno task test:stress`: the files that run real processes against the
 * clock (the e2e files, the engine's, the local executor's and the standby's) while two
 * busy loops keep both cores of a 2-core machine busy, as other work on a
 * shared machine does, with the files themselves running a few at a time as
 * in `deno task test` (`SHELLSEAM_TEST_JOBS`, 4 unless set). A case that
 * starts its clock at the call, not at an event, fails here first. The files
 * run with `SHELLSEAM_STRESS=1`, so a stress-sized case runs at its full size
 * (see `stressSized` in `tests/_stress.ts`; elsewhere it runs small).
 *
 * The busy loops are this script's children and stop with it: it kills them
 * when the legs end (passed or not) and on SIGINT, SIGTERM or SIGHUP (the
 * running leg too), and
 * each loop also ends by itself once this process is gone (it checks its
 * parent between rounds), so none is left behind even after a SIGKILL.
 * Ends like `deno task test`: one line per leg, `legs: N passed, N failed`,
 * exit 1 when a leg failed.
 *
 * @module
 */
import { type LegResult, runLeg, stopLegs, summarize } from "./_legs.ts";
import { runFiles, testFiles, testJobs } from "./_pool.ts";
import { PERMISSIONS_FILE, PERMISSIONS_LEG } from "./test_all.ts";
import { DEV_LOCK } from "./_tsc.ts";

/**
 * The files run under load: every e2e file, those of the engine, the local
 * executor and standbys, and those with stress-sized cases.
 */
export const STRESS_FILES: readonly string[] = [
  ...testFiles(["tests/e2e/", "tests/engine/", "tests/local/"], [PERMISSIONS_FILE]),
  "tests/sandbox/standby_test.ts",
  "tests/tool/long_session_test.ts",
  "tests/remote/executor_test.ts",
  "tests/remote/start_test.ts",
];

/** How many busy loops run: one per core of the 2-core machine the suite must pass on. */
const BUSY_LOOPS = 2;

/**
 * A busy loop in bash: rounds of arithmetic, and between rounds a check
 * that its parent (this process) still runs (`kill -0`, a builtin: no fork).
 */
const BUSY_LOOP =
  "while kill -0 $PPID 2>/dev/null; do i=0; while ((i < 100000)); do ((i++)); done; done";

function startBusyLoops(): Deno.ChildProcess[] {
  return Array.from({ length: BUSY_LOOPS }, () =>
    new Deno.Command("bash", {
      args: ["-c", BUSY_LOOP],
      stdin: "null",
      stdout: "null",
      stderr: "inherit",
    }).spawn());
}

async function stopBusyLoops(loops: readonly Deno.ChildProcess[]): Promise<void> {
  for (const loop of loops) {
    try {
      loop.kill("SIGKILL");
    } catch {
      // It has ended already.
    }
  }
  await Promise.all(loops.map((loop) => loop.status));
}

async function main(): Promise<void> {
  const start = performance.now();
  // Read by stressSized() in the files' processes, which inherit this environment.
  Deno.env.set("SHELLSEAM_STRESS", "1");
  const loops = startBusyLoops();
  console.log(`Busy loops running: pids ${loops.map((loop) => loop.pid).join(", ")}`);
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const onSignal = () => {
    stopLegs();
    stopBusyLoops(loops).finally(() => Deno.exit(130));
  };
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  const results: LegResult[] = [];
  try {
    const args = ["test", `--lock=${DEV_LOCK}`, "--allow-all"];
    results.push(await runLeg("type-check", [...args, "--no-run", ...STRESS_FILES]));
    results.push(
      await runFiles("Deno files under load", STRESS_FILES, [...args, "--no-check"], testJobs()),
    );
    results.push(await runLeg("permissions file under load", [...PERMISSIONS_LEG]));
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
    await stopBusyLoops(loops);
    console.log("Busy loops stopped");
  }
  const passed = summarize(results, (performance.now() - start) / 1000);
  Deno.exit(passed ? 0 : 1);
}

if (import.meta.main) await main();
