/**
 * The results document (`bench/results/latest.json`), how the rows of a
 * partial run are merged into the last one, and its renderings as a text
 * table (the terminal) and Markdown (`latest.md`). Pure functions only.
 *
 * @module
 */
import type { CaseResult } from "./_case.ts";

/** `bench/results/latest.json`. */
export interface BenchResults {
  /** When the run ended (ISO 8601). */
  date: string;
  /** When the run started (ISO 8601); rows measured before it come from earlier runs. */
  started: string;
  /** Versions of what was measured: deno, v8, node, bash, bwrap, the peers, the kernel. */
  runtime_versions: Record<string, string>;
  /**
   * The machine: logical cores, total memory in bytes, and the 1, 5 and 15
   * minute load averages at the start and at the end of the run.
   */
  machine: {
    cores: number;
    memory: number;
    load_average?: number[];
    load_average_end?: number[];
    /**
     * Whether the kernel groups scheduling by session (autogroup): then each
     * command in a new session gets its own share of a busy CPU.
     */
    sched_autogroup?: boolean;
  };
  /** Whether this was a `--quick` run (too few iterations to trust). */
  quick: boolean;
  /** One row per case id. */
  cases: CaseResult[];
}

/**
 * `previous` with the rows of `fresh` put in (a row with the same id is
 * replaced), ordered as `order` lists the ids (unknown ids last), and the
 * date, versions and machine of `fresh`.
 */
export function mergeResults(
  previous: BenchResults | undefined,
  fresh: BenchResults,
  order: readonly string[],
): BenchResults {
  const byId = new Map((previous?.cases ?? []).map((c) => [c.id, c]));
  for (const row of fresh.cases) byId.set(row.id, row);
  const rank = (id: string) => {
    const index = order.indexOf(id);
    return index === -1 ? order.length : index;
  };
  const cases = [...byId.values()].sort((a, b) => rank(a.id) - rank(b.id));
  return { ...fresh, quick: fresh.quick || (previous?.quick ?? false), cases };
}

/** Whether `value` looks like a results document (the fields and types the format fixes). */
export function isBenchResults(value: unknown): value is BenchResults {
  if (typeof value !== "object" || value === null) return false;
  const doc = value as Record<string, unknown>;
  const machine = doc.machine as Record<string, unknown> | undefined;
  return typeof doc.date === "string" && typeof doc.runtime_versions === "object" &&
    typeof machine?.cores === "number" && typeof machine?.memory === "number" &&
    Array.isArray(doc.cases) && doc.cases.every(isCaseResult);
}

const NULLABLE_NUMBERS = ["median", "p10", "p90", "ratio", "goal"] as const;

function isCaseResult(value: unknown): value is CaseResult {
  if (typeof value !== "object" || value === null) return false;
  const row = value as Record<string, unknown>;
  return typeof row.id === "string" && typeof row.what === "string" &&
    (row.baseline === null || typeof row.baseline === "string") &&
    typeof row.unit === "string" && (row.better === "lower" || row.better === "higher") &&
    NULLABLE_NUMBERS.every((key) => row[key] === null || typeof row[key] === "number");
}

/** `value` with 3 significant digits (2 decimals at least below 10), or "-". */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** The goal as a condition on what it judges, e.g. "ratio <= 1.1", or "-". */
export function formatGoal(row: CaseResult): string {
  if (row.goal === null) return "-";
  return `${row.goal_of} ${row.better === "lower" ? "<=" : ">="} ${row.goal}`;
}

/** "yes", "NO", "skipped" or "-" (no goal). */
function verdict(row: CaseResult): string {
  if (row.skipped !== undefined) return "skipped";
  return row.met === null ? "-" : row.met ? "yes" : "NO";
}

const COLUMNS = [
  "id",
  "median",
  "p10",
  "p90",
  "unit",
  "baseline",
  "ratio",
  "goal",
  "met",
  "n",
  "best ratio",
];

function cells(row: CaseResult): string[] {
  return [
    row.id,
    formatNumber(row.median),
    formatNumber(row.p10),
    formatNumber(row.p90),
    row.unit,
    formatNumber(row.baseline_median),
    formatNumber(row.ratio),
    formatGoal(row),
    verdict(row),
    String(row.iterations),
    formatNumber(row.ratio_best),
  ];
}

/** The rows as an aligned text table, then one line per note or skip reason. */
export function renderTable(results: BenchResults): string {
  const lines = [COLUMNS, ...results.cases.map(cells)];
  const widths = COLUMNS.map((_, i) => Math.max(...lines.map((line) => line[i]!.length)));
  const text = lines.map((line) =>
    line.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()
  );
  text.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of results.cases) {
    if (row.skipped !== undefined) text.push(`${row.id}: skipped: ${row.skipped}`);
    if (row.note !== undefined) text.push(`${row.id}: ${row.note}`);
  }
  return text.join("\n");
}

const escapeCell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** `latest.md`: how and where it was measured, the table, what each row compares, the curve. */
export function renderMarkdown(results: BenchResults, command: string): string {
  const { machine } = results;
  const loads = [machine.load_average, machine.load_average_end];
  const shown = loads.map((l) => l?.map((v) => v.toFixed(2)).join(", ") ?? "unknown");
  const versions = Object.entries(results.runtime_versions).map(([k, v]) => `${k} ${v}`).join(", ");
  const busiest = Math.max(...loads.map((l) => l?.[0] ?? 0));
  const out = [
    "# Benchmark results",
    "",
    `Measured ${results.date} with \`${command}\`${
      results.cases.some((row) => row.measured_at < results.started)
        ? " (rows it did not run are from earlier runs: see each row's measured time)"
        : ""
    } on ${machine.cores} cores and ` +
    `${(machine.memory / 2 ** 30).toFixed(1)} GiB (load average at the start: ${shown[0]}; ` +
    `at the end: ${shown[1]}${
      machine.sched_autogroup === undefined
        ? ""
        : `; scheduler autogroup ${machine.sched_autogroup ? "on" : "off"}`
    }); ${versions}.`,
    "",
    (busiest > machine.cores / 2
      ? `**Noise:** the machine was busy while this ran (load average up to ${
        busiest.toFixed(1)
      } on ${machine.cores} cores), so absolute times are inflated and vary from run to run. `
      : "") +
    "The ratios are steadier than the times because each pair ran interleaved (A B A B ...) " +
    "after a warm-up. Medians, p10 and p90 are of the subject; `ratio` is the subject's median " +
    "over the baseline's median (the goals judge it); `n` is the number of timed samples per " +
    "arm (slow cases take fewer); `best ratio` compares the best ends (p10 over p10, or p90 " +
    "over p90 when higher is better), which a " +
    "busy machine disturbs least." +
    (results.quick ? " **This was a `--quick` run: too few samples to trust.**" : ""),
    "",
    "![ratios and growth curve](latest.svg)",
    "",
    `| ${COLUMNS.join(" | ")} |`,
    `|${COLUMNS.map(() => "---").join("|")}|`,
    ...results.cases.map((row) => `| ${cells(row).map(escapeCell).join(" | ")} |`),
    "",
    "## What each row compares",
    "",
    ...results.cases.map((row) =>
      `- \`${row.id}\`: ${row.what}; baseline: ${row.baseline ?? "none"}` +
      (row.skipped === undefined ? "" : `. **Skipped:** ${row.skipped}`) +
      (row.note === undefined ? "" : `. ${row.note}`) + ` (measured ${row.measured_at})`
    ),
  ];
  const growth = results.cases.find((row) => row.points !== undefined);
  if (growth?.points !== undefined) {
    out.push(
      "",
      "## Growth curve (`growth-slope`)",
      "",
      "| stdout bytes | run() ms (median) | peak RSS growth MiB (median) |",
      "|---|---|---|",
      ...growth.points.map((p) =>
        `| ${p.bytes} | ${formatNumber(p.ms)} | ${formatNumber(p.peak_rss_growth_mib)} |`
      ),
    );
  }
  return out.join("\n") + "\n";
}
