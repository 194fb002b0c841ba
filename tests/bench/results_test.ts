import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import {
  formatGoal,
  formatNumber,
  isBenchResults,
  mergeResults,
  renderMarkdown,
  renderTable,
} from "../../bench/_results.ts";
import { CASES } from "../../bench/cases.ts";
import { sampleResults } from "./_fixtures.ts";

/** The keys every row has, as the issue fixed them. */
const ISSUE_KEYS = [
  "id",
  "what",
  "baseline",
  "median",
  "p10",
  "p90",
  "unit",
  "ratio",
  "goal",
  "better",
];

describe("the results document", () => {
  it("has the format's fields on every row", () => {
    const results = sampleResults();
    assert.ok(isBenchResults(results));
    for (const row of results.cases) {
      for (const key of ISSUE_KEYS) assert.ok(key in row, `${row.id} lacks "${key}"`);
    }
    const json = JSON.parse(JSON.stringify(results));
    assert.deepEqual(Object.keys(json).slice(0, 3), ["date", "runtime_versions", "machine"]);
    assert.deepEqual(Object.keys(json.machine).slice(0, 2), ["cores", "memory"]);
  });

  it("is refused when a field is missing or of the wrong type", () => {
    const results = sampleResults();
    assert.equal(isBenchResults({ ...results, machine: { cores: 2 } }), false);
    assert.equal(
      isBenchResults({ ...results, cases: [{ ...results.cases[0], median: "3" }] }),
      false,
    );
    assert.equal(
      isBenchResults({ ...results, cases: [{ ...results.cases[0], better: "up" }] }),
      false,
    );
    assert.equal(isBenchResults(null), false);
  });

  it("as committed in bench/results/latest.json, matches the format and the case ids", () => {
    const path = new URL("../../bench/results/latest.json", import.meta.url);
    if (!existsSync(path)) return;
    const committed: unknown = JSON.parse(readFileSync(path, "utf8"));
    assert.ok(isBenchResults(committed), "latest.json does not match the results format");
    const ids = CASES.flatMap((c) => c.ids);
    for (const row of committed.cases) assert.ok(ids.includes(row.id), `unknown id "${row.id}"`);
  });
});

describe("mergeResults", () => {
  it("replaces rows by id, keeps the others, and orders them as listed", () => {
    const previous = sampleResults();
    const fresh = { ...sampleResults(), date: "2026-12-01T00:00:00.000Z" };
    const newer = { ...fresh.cases[0]!, median: 99 };
    fresh.cases = [newer];
    const order = ["memory-1gib", "foreground-deno"];
    const merged = mergeResults(previous, fresh, order);
    assert.equal(merged.date, "2026-12-01T00:00:00.000Z");
    assert.deepEqual(merged.cases.map((c) => c.id).slice(0, 2), order);
    assert.equal(merged.cases[1]!.median, 99);
    assert.equal(merged.cases.length, previous.cases.length);
  });

  it("keeps a quick run marked as quick after a merge", () => {
    const merged = mergeResults({ ...sampleResults(), quick: true }, sampleResults(), []);
    assert.equal(merged.quick, true);
    assert.equal(mergeResults(undefined, sampleResults(), []).quick, false);
  });
});

describe("renderings", () => {
  it("format numbers to about three digits and goals as conditions", () => {
    assert.deepEqual([1234.5, 12.345, 1.2345, null].map(formatNumber), [
      "1235",
      "12.3",
      "1.23",
      "-",
    ]);
    const [met, higher, absolute, skipped] = sampleResults().cases;
    assert.equal(formatGoal(met!), "ratio <= 1.1");
    assert.equal(formatGoal(higher!), "ratio >= 0.9");
    assert.equal(formatGoal(absolute!), "median <= 64");
    assert.equal(formatGoal({ ...skipped!, goal: null }), "-");
  });

  it("print a row per case with its verdict, and every skip reason", () => {
    const table = renderTable(sampleResults()).split("\n");
    assert.match(
      table[0]!,
      /^id\s+median\s+p10\s+p90\s+unit\s+baseline\s+ratio\s+goal\s+met\s+n\s+best ratio$/,
    );
    const line = (id: string) => table.find((l) => l.startsWith(id + " "))!;
    assert.match(line("foreground-deno"), /\s1\.07\s+ratio <= 1\.1\s+yes\s+3\s+1\.01$/);
    assert.match(line("throughput-deno"), /\s0\.50\s+ratio >= 0\.9\s+NO\s+1\s+0\.50$/);
    assert.match(line("sandbox-vs-codex"), /\sskipped\s+0\s+-$/);
    assert.ok(table.includes("sandbox-vs-codex: skipped: no codex <binary> & no luck"));
  });

  it("write Markdown that warns about noise, links the picture and lists the growth points", () => {
    const md = renderMarkdown(sampleResults(), "deno task bench");
    assert.match(md, /^# Benchmark results\n/);
    assert.match(md, /`deno task bench` on 2 cores and 24\.0 GiB/);
    assert.match(
      md,
      /\*\*Noise:\*\* the machine was busy while this ran \(load average up to 4\.0 on 2 cores\)/,
    );
    assert.match(md, /at the start: 1\.00, 2\.00, 3\.00; at the end: 4\.00, 1\.00, 1\.00\)/);
    const grouped = sampleResults();
    grouped.machine.sched_autogroup = true;
    assert.match(
      renderMarkdown(grouped, "x"),
      /at the end: 4\.00, 1\.00, 1\.00; scheduler autogroup on\)/,
    );
    const quiet = sampleResults();
    quiet.machine = { ...quiet.machine, load_average: [0.5, 0, 0], load_average_end: [0.9, 0, 0] };
    assert.doesNotMatch(renderMarkdown(quiet, "x"), /Noise/);
    assert.match(md, /!\[ratios and growth curve\]\(latest\.svg\)/);
    assert.match(md, /`best ratio` compares the best ends/);
    assert.match(md, /\| 262144 \| 5\.00 \| 0\.20 \|/);
    assert.match(md, /\*\*Skipped:\*\* no codex <binary> & no luck/);
    assert.doesNotMatch(md, /from earlier runs/);
    const partial = { ...sampleResults(), started: "2099-01-01T00:00:00.000Z" };
    assert.match(renderMarkdown(partial, "x"), /`x` \(rows it did not run are from earlier runs/);
    assert.doesNotMatch(md, /--quick/);
    assert.match(renderMarkdown({ ...sampleResults(), quick: true }, "x"), /`--quick` run/);
  });
});
