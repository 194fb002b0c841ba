/**
 * Runs `deno test` over many files, a few processes at a time: each file in a
 * process of its own (its own environment, children and signal handlers, so
 * files cannot disturb each other as `deno test --parallel`'s workers in one
 * process do), its output held back and printed whole when it ends, so the
 * log reads file by file.
 *
 * @module
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { denoCounts, failureExcerpts, type LegResult, track } from "./_legs.ts";
import { ROOT } from "./_tsc.ts";

/**
 * How many files run at once: `SHELLSEAM_TEST_JOBS`, or 4. Most test time is
 * spent waiting for processes and clocks (one file at a time kept about half
 * of one core busy; the whole suite with three at once, and two in the Node
 * leg beside them, used 155% of two cores on an idle machine), so four at
 * once fit on two cores.
 */
export function testJobs(): number {
  const value = Deno.env.get("SHELLSEAM_TEST_JOBS");
  if (value === undefined) return 4;
  const jobs = Number(value);
  if (!Number.isInteger(jobs) || jobs < 1) {
    throw new Error(`SHELLSEAM_TEST_JOBS is "${value}"; set it to a whole number of 1 or more`);
  }
  return jobs;
}

/**
 * The test files below `folders` (relative to the repository root), as
 * `deno test` names them (`*_test.ts`, `*.test.ts`, `test.ts`), but those in
 * `except`, the largest first: the long files start early and the short ones
 * fill the gaps.
 */
export function testFiles(folders: readonly string[], except: readonly string[] = []): string[] {
  const found: { file: string; size: number }[] = [];
  const visit = (folder: string) => {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      const file = `${folder.replace(/\/$/, "")}/${entry.name}`;
      if (entry.isDirectory()) visit(file);
      else if (/(^|_|\.)test\.ts$/.test(entry.name) && !except.includes(file)) {
        found.push({ file, size: statSync(join(ROOT, file)).size });
      }
    }
  };
  folders.forEach(visit);
  return found.sort((a, b) => b.size - a.size).map(({ file }) => file);
}

/** What one process did. */
interface FileRun {
  unit: string;
  ok: boolean;
  passed: number;
  failed: number;
  /** The failures it named (see {@linkcode failureExcerpts}), after its name. */
  failures: string[];
  /** The CPU time of the process and the children it waited for, when GNU time measured it. */
  cpuSeconds?: number;
}

/** GNU time, which measures each process's CPU time when it is installed. */
const GNU_TIME = "/usr/bin/time";
/** util-linux `setsid`. */
const SETSID = "/usr/bin/setsid";

/**
 * How a unit is measured: GNU time, run by util-linux `setsid` as the leader
 * of a process group of its own (so a stop kills the test process behind it
 * too, which a kill of GNU time alone would leave running); undefined (not
 * measured) unless both are installed.
 */
const MEASURE: readonly string[] | undefined = existsSync(GNU_TIME) && existsSync(SETSID)
  ? [SETSID, GNU_TIME, "-q", "-f", "%U %S", "-o"]
  : undefined;

/**
 * Runs `deno <args> <unit...>` with its output (stdout and stderr) held, then
 * prints it whole.
 */
async function runUnit(
  unit: readonly string[],
  args: readonly string[],
  log: (text: string) => void,
  env: Readonly<Record<string, string>>,
): Promise<FileRun> {
  const start = performance.now();
  const timed = MEASURE === undefined ? undefined : mkdtempSync(join(tmpdir(), "shellseam-cpu-"));
  const command = [Deno.execPath(), ...args, ...unit];
  const [program = "", ...programArgs] = MEASURE === undefined || timed === undefined
    ? command
    : [...MEASURE, join(timed, "cpu"), ...command];
  const child = new Deno.Command(program, {
    args: programArgs,
    cwd: ROOT,
    env: { ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const untrack = track(child, timed !== undefined);
  const [out, err, { code }] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  untrack();
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  const cpuSeconds = timed === undefined ? undefined : cpuOf(timed);
  const counts = out.split("\n").map(denoCounts).findLast((found) => found !== undefined);
  const name = unit.join(" ");
  const failures = failureExcerpts(`${out}\n${err}`).map((failure) => `${name}: ${failure}`);
  const run = {
    unit: name,
    ok: code === 0,
    passed: counts?.passed ?? 0,
    failed: counts?.failed ?? 0,
    // A process that failed with no test named (a file that cannot load) shows its last lines.
    failures: code === 0 || failures.length > 0 ? failures : [`${name}: ${lastLines(err || out)}`],
    ...(cpuSeconds === undefined ? {} : { cpuSeconds }),
  };
  const status = run.ok ? "ok" : `FAILED (exit code ${code})`;
  const cpu = cpuSeconds === undefined ? "" : ` (CPU ${cpuSeconds.toFixed(1)} s)`;
  log(`\n--- ${run.unit}: ${status} in ${seconds} s${cpu}\n${out}${err}`);
  return run;
}

/** More processes a pool may run at once from some point on, and why. */
export interface MoreJobs {
  jobs: number;
  reason: string;
}

/**
 * Runs `deno <args> <unit...>` for each of `units` (a test file, or the
 * arguments of one process, such as `--doc` and folders), `jobs` at a time,
 * in order, and reports them as one leg: its counts are the processes'
 * counts summed, and a process that failed (a test failed, or a file could
 * not load) fails the leg and is named in its note. What it prints goes to
 * `log`. Once `more` resolves (other work that shared the machine ended),
 * that many more run at once for the units left. Each process has this
 * process's environment, with `env` added.
 */
export async function runFiles(
  name: string,
  units: readonly (string | readonly string[])[],
  args: readonly string[],
  jobs: number,
  log: (text: string) => void = console.log,
  more?: Promise<MoreJobs>,
  env: Readonly<Record<string, string>> = {},
): Promise<LegResult> {
  log(
    `\n=== ${name}: deno ${args.join(" ")} <file>, ${units.length} processes, ${jobs} at once`,
  );
  const start = performance.now();
  const queue = units.map((unit) => typeof unit === "string" ? [unit] : unit);
  const runs: FileRun[] = [];
  const worker = async () => {
    for (let unit = queue.shift(); unit !== undefined; unit = queue.shift()) {
      runs.push(await runUnit(unit, args, log, env));
    }
  };
  const added: Promise<void>[] = [];
  void more?.then(({ jobs: extra, reason }) => {
    const count = Math.min(extra, queue.length);
    if (count < 1) return;
    log(`\n=== ${name}: ${count} more at once for the ${queue.length} left (${reason})`);
    for (let index = 0; index < count; index++) added.push(worker());
  });
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));
  // The workers added meanwhile run the last units: wait for them too.
  await Promise.all(added);
  const failed = runs.filter((run) => !run.ok).map((run) => run.unit);
  const failures = runs.flatMap((run) => run.failures);
  const counts = {
    passed: runs.reduce((sum, run) => sum + run.passed, 0),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
  };
  log(
    `\n=== ${name}: ${counts.passed} passed, ${counts.failed} failed` +
      (failed.length > 0 ? `; failed: ${failed.join(", ")}` : "") + cpuReport(runs),
  );
  return {
    name,
    ok: failed.length === 0,
    seconds: (performance.now() - start) / 1000,
    counts,
    ...(failed.length > 0 ? { note: `failed: ${failed.join(", ")}` } : {}),
    ...(failures.length > 0 ? { failures } : {}),
  };
}

/** The user and system seconds GNU time wrote in `folder`, which goes; undefined when none. */
function cpuOf(folder: string): number | undefined {
  try {
    const [user, system] = readFileSync(join(folder, "cpu"), "utf8").trim().split(" ").map(Number);
    return user === undefined || system === undefined || Number.isNaN(user + system)
      ? undefined
      : user + system;
  } catch {
    return undefined;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** How many of the processes that took the most CPU a leg names at its end. */
const MOST_CPU = 10;

/** The processes that took the most CPU time, and the total, as one paragraph. */
function cpuReport(runs: readonly FileRun[]): string {
  const timed = runs.filter((run) => run.cpuSeconds !== undefined)
    .sort((a, b) => (b.cpuSeconds ?? 0) - (a.cpuSeconds ?? 0));
  if (timed.length === 0) return "";
  const total = timed.reduce((sum, run) => sum + (run.cpuSeconds ?? 0), 0);
  const most = timed.slice(0, MOST_CPU).map((run) => `${run.cpuSeconds?.toFixed(1)} s ${run.unit}`);
  return `\nCPU time: ${total.toFixed(0)} s in all; the most:\n  ${most.join("\n  ")}`;
}

/** The last few lines of `text` that hold something. */
function lastLines(text: string): string {
  return text.split("\n").filter((line) => line.trim() !== "").slice(-4).join("\n");
}
