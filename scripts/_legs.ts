/**
 * Runs a leg of the tests (a `deno` subcommand) with its output passed
 * through, and reads the counts its runner prints at the end: `deno test`'s
 * `ok | N passed ... | N failed` line, or node's test runner's `ℹ pass N` and
 * `ℹ fail N` lines, and the failures it names (see {@linkcode failureExcerpts}).
 *
 * @module
 */
import { ROOT } from "./_tsc.ts";

/** What a leg did. */
export interface LegResult {
  name: string;
  ok: boolean;
  seconds: number;
  /** The counts its test runner printed last, when it printed any. */
  counts?: { passed: number; failed: number };
  /** Why it is marked failed when its exit code alone does not say it. */
  note?: string;
  /** The failures its runner named, each in a few lines (see {@linkcode failureExcerpts}). */
  failures?: string[];
}

const DENO_SUMMARY = /^(?:ok|FAILED) \| (\d+) passed(?: \([^)]*\))? \| (\d+) failed/;
const NODE_PASS = /^ℹ pass (\d+)$/;
const NODE_FAIL = /^ℹ fail (\d+)$/;
// deno test and node colour their summaries.
// deno-lint-ignore no-control-regex
const COLOUR = /\x1b\[[0-9;]*m/g;

/** The counts of `deno test`'s closing line (`ok | N passed ... | N failed`), if `line` is it. */
export function denoCounts(line: string): { passed: number; failed: number } | undefined {
  const deno = DENO_SUMMARY.exec(line.replace(COLOUR, "").trim());
  return deno ? { passed: Number(deno[1]), failed: Number(deno[2]) } : undefined;
}

/** Where `deno test` (`ERRORS`) and node's spec reporter (`✖ failing tests:`) list failures. */
const FAILURES_START = /^(?:ERRORS|✖ failing tests:)$/;
/** Where each failure starts: `name => file:line` (deno), `test at file:line` (node). */
const FAILURE_HEAD = /^(?:\S.* => \S+|test at \S+)$/;
/** The lines of one failure that the summary shows, and the characters of each. */
const EXCERPT_LINES = 6;
const EXCERPT_WIDTH = 200;

/**
 * The failures that a test runner's output lists at its end (`deno test`'s
 * `ERRORS` section, node's `✖ failing tests:`), each as its first lines but
 * stack frames and blank ones: where the test is, its name and its error, so
 * that the summary at the end of a long log says what failed and why.
 */
export function failureExcerpts(output: string): string[] {
  const excerpts: string[][] = [];
  let listing = false;
  for (const raw of output.split("\n")) {
    const line = raw.replace(COLOUR, "").trimEnd();
    const plain = line.trim();
    if (FAILURES_START.test(plain)) listing = true;
    else if (plain === "FAILURES") listing = false;
    else if (listing && FAILURE_HEAD.test(plain)) excerpts.push([plain]);
    else if (listing && plain !== "" && !plain.startsWith("at ")) {
      const current = excerpts.at(-1);
      if (current !== undefined && current.length < EXCERPT_LINES) {
        current.push(line.slice(0, EXCERPT_WIDTH));
      }
    }
  }
  return excerpts.map((lines) => lines.join("\n"));
}

/** The legs running now, each with whether it leads a process group of its own (see {@linkcode stopLegs}). */
const running = new Map<Deno.ChildProcess, boolean>();

/**
 * Counts `child` among the processes {@linkcode stopLegs} kills (with its
 * whole process group when it leads one: `group`), until the function it
 * returns is called.
 */
export function track(child: Deno.ChildProcess, group = false): () => void {
  running.set(child, group);
  return () => running.delete(child);
}

/** Kills the legs running now (on a signal to the script that runs them). */
export function stopLegs(): void {
  for (const [child, group] of running) {
    try {
      if (group) Deno.kill(-child.pid, "SIGKILL");
      else child.kill("SIGKILL");
    } catch {
      // It has ended already.
    }
  }
}

/** How {@linkcode runLeg} runs a leg. */
export interface LegOptions {
  /** Variables added to the leg's environment. */
  env?: Record<string, string>;
  /**
   * Holds the leg's output (its header and stdout) back and prints it whole
   * when the leg ends, so that a leg running beside another does not
   * interleave its lines with theirs. Its stderr still passes through.
   */
  held?: boolean;
}

/**
 * Runs `deno <args>` in the repository root, passing its output through (or
 * holding it: see {@linkcode LegOptions.held}), and returns how it went (`ok`
 * when it exits 0).
 */
export async function runLeg(
  name: string,
  args: string[],
  { env = {}, held = false }: LegOptions = {},
): Promise<LegResult> {
  const heldChunks: Uint8Array[] = [];
  const write = held ? (chunk: Uint8Array) => heldChunks.push(chunk) : writeAll;
  await write(new TextEncoder().encode(`\n=== ${name}: deno ${args.join(" ")}\n`));
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const untrack = track(child);
  let counts: LegResult["counts"];
  let nodePassed: number | undefined;
  let pending = "";
  // The lines from the first list of failures on: the rest passed through only.
  let listed = "";
  const decoder = new TextDecoder();
  const scan = (line: string) => {
    counts = denoCounts(line) ?? counts;
    if (listed !== "" || FAILURES_START.test(line.replace(COLOUR, "").trim())) {
      listed += `${line}\n`;
    }
    const plain = line.replace(COLOUR, "").trim();
    const pass = NODE_PASS.exec(plain);
    if (pass) nodePassed = Number(pass[1]);
    const fail = NODE_FAIL.exec(plain);
    if (fail && nodePassed !== undefined) counts = { passed: nodePassed, failed: Number(fail[1]) };
  };
  for await (const chunk of child.stdout) {
    await write(chunk);
    const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
    pending = lines.pop() ?? "";
    lines.forEach(scan);
  }
  scan(pending);
  const { code } = await child.status;
  untrack();
  for (const chunk of heldChunks) await writeAll(chunk);
  const seconds = (performance.now() - start) / 1000;
  const failures = failureExcerpts(listed);
  return {
    name,
    ok: code === 0,
    seconds,
    ...(counts === undefined ? {} : { counts }),
    ...(failures.length > 0 ? { failures } : {}),
  };
}

async function writeAll(chunk: Uint8Array): Promise<void> {
  for (let written = 0; written < chunk.length;) {
    written += await Deno.stdout.write(chunk.subarray(written));
  }
}

/** `5m03s`, `42s`. */
function duration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  return minutes === 0 ? `${rest}s` : `${minutes}m${String(rest).padStart(2, "0")}s`;
}

/** The failures of one leg that the summary shows. */
const SHOWN_FAILURES = 5;

/**
 * Prints the failures each leg's runner named (a few a leg), then one line
 * per leg, then the plain closing line `legs: N passed, N failed`; returns
 * whether every leg passed.
 */
export function summarize(results: readonly LegResult[], total: number): boolean {
  const width = Math.max(...results.map((result) => result.name.length));
  const failing = results.filter((result) => (result.failures ?? []).length > 0);
  if (failing.length > 0) console.log("\n=== Failures");
  for (const { name, failures = [] } of failing) {
    const more = failures.length - SHOWN_FAILURES;
    console.log(`${name}:`);
    for (const failure of failures.slice(0, SHOWN_FAILURES)) {
      console.log(failure.replace(/^/gm, "  "));
    }
    if (more > 0) console.log(`  (${more} more; see the log above)`);
  }
  console.log(`\n=== Summary (${duration(total)})`);
  for (const result of results) {
    const counts = result.counts === undefined
      ? ""
      : `, ${result.counts.passed} passed, ${result.counts.failed} failed`;
    const note = result.note === undefined ? "" : ` (${result.note})`;
    console.log(
      `${result.name.padEnd(width)}  ${result.ok ? "ok    " : "FAILED"} ${
        duration(result.seconds)
      }${counts}${note}`,
    );
  }
  const failed = results.filter((result) => !result.ok).length;
  console.log(`legs: ${results.length - failed} passed, ${failed} failed`);
  return failed === 0;
}
