/**
 * `deno task bench`: the executors against the floor (raw spawns in the same
 * runtime) and against their peers (execa, Anthropic's sandbox runtime,
 * Codex's sandbox), every pair interleaved after a warm-up. Prints a table
 * and writes `bench/results/latest.json`, `latest.md` and `latest.svg`.
 *
 * Options (after `deno task bench --`):
 * - `--only <id>[,<id>...]` (repeatable): run only the cases with these ids,
 *   and merge their rows into the last results;
 * - `--quick`: a few iterations per case, to check that everything runs;
 * - `--list`: print the ids and exit;
 * - `--no-write`: print the table only.
 *
 * The cases are listed in `bench/cases.ts`; bench/README.md says how to add one.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { type BenchContext, type CaseResult, everyId, type NodeSide } from "./_case.ts";
import { prepareNodeSide } from "./_node.ts";
import {
  type BenchResults,
  isBenchResults,
  mergeResults,
  renderMarkdown,
  renderTable,
} from "./_results.ts";
import { renderSvg } from "./_svg.ts";
import { CASES } from "./cases.ts";

const RESULTS = new URL("./results/", import.meta.url);
const CACHE = new URL("./.cache/", import.meta.url).pathname;
const AUTOGROUP = "/proc/sys/kernel/sched_autogroup_enabled";

const { values } = parseArgs({
  args: Deno.args.filter((arg) => arg !== "--"),
  options: {
    only: { type: "string", multiple: true },
    quick: { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
  },
});

const allIds = CASES.flatMap((c) => c.ids);
if (values.list) {
  console.log(allIds.join("\n"));
  Deno.exit(0);
}
const only = values.only?.flatMap((ids) => ids.split(",")).map((id) => id.trim()).filter(Boolean);
const unknown = only?.filter((id) => !allIds.includes(id)) ?? [];
if (unknown.length > 0) {
  console.error(
    `Unknown case id ${unknown.map((id) => `"${id}"`).join(", ")}; pick from: ${allIds.join(", ")}`,
  );
  Deno.exit(2);
}
const selected = only === undefined
  ? CASES
  : CASES.filter((c) => c.ids.some((id) => only.includes(id)));

mkdirSync(CACHE, { recursive: true });
const loadAtStart = loadavg();
let nodeSide: Promise<NodeSide | { unavailable: string }> | undefined;
const context: BenchContext = {
  quick: values.quick,
  log: (message) => console.log(message),
  cacheDir: CACHE,
  node: () =>
    nodeSide ??= prepareNodeSide((message) => console.log(`  ${message}`)).catch((error) => ({
      unavailable: `the Node side could not be prepared: ${
        error instanceof Error ? error.message : error
      }`,
    })),
};

const started = performance.now();
const startedAt = new Date().toISOString();
const rows: CaseResult[] = [];
for (const benchCase of selected) {
  const start = performance.now();
  console.log(`== ${benchCase.ids.join(", ")}`);
  try {
    rows.push(...everyId(benchCase.ids, await benchCase.run(context), "the case reported no row"));
  } catch (error) {
    console.error(error);
    const message = error instanceof Error ? error.message : String(error);
    rows.push(...everyId(benchCase.ids, [], `the case failed: ${message}`));
  }
  console.log(`   ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

/** The first line of `program --version`, or "unavailable". */
async function version(program: string, args = ["--version"]): Promise<string> {
  try {
    const { stdout } = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" })
      .output();
    return new TextDecoder().decode(stdout).split("\n")[0]!.trim();
  } catch {
    return "unavailable";
  }
}

const side = nodeSide === undefined ? undefined : await nodeSide;
const peers = JSON.parse(readFileSync(new URL("./node/package.json", import.meta.url), "utf8"))
  .devDependencies as Record<string, string>;
const fresh: BenchResults = {
  date: new Date().toISOString(),
  runtime_versions: {
    shellseam: await version("git", ["describe", "--always", "--dirty"]),
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    ...(side === undefined || "unavailable" in side ? {} : { node: await version(side.node) }),
    bash: await version("bash"),
    bwrap: await version("bwrap"),
    kernel: release(),
    ...Object.fromEntries(Object.entries(peers).filter(([name]) => name !== "node")),
  },
  machine: {
    cores: cpus().length,
    memory: totalmem(),
    load_average: loadAtStart,
    load_average_end: loadavg(),
    ...(existsSync(AUTOGROUP)
      ? { sched_autogroup: readFileSync(AUTOGROUP, "utf8").trim() === "1" }
      : {}),
  },
  started: startedAt,
  quick: values.quick,
  cases: rows,
};

const latest = new URL("./latest.json", RESULTS);
let previous: BenchResults | undefined;
if (only !== undefined && existsSync(latest)) {
  const parsed: unknown = JSON.parse(readFileSync(latest, "utf8"));
  if (isBenchResults(parsed)) previous = parsed;
}
const results = mergeResults(previous, fresh, allIds);
console.log();
console.log(renderTable(results));
console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
if (!values["no-write"]) {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(latest, JSON.stringify(results, null, 2) + "\n");
  writeFileSync(
    new URL("./latest.md", RESULTS),
    renderMarkdown(results, ["deno task bench", ...Deno.args].join(" ")),
  );
  writeFileSync(new URL("./latest.svg", RESULTS), renderSvg(results));
  console.log("wrote bench/results/latest.json, latest.md and latest.svg");
}
