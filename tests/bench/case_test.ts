import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { everyId, mibPerSecond, row, skippedRow } from "../../bench/_case.ts";
import { FOREGROUND, MEMORY } from "./_fixtures.ts";

describe("row", () => {
  it("summarises the subject and divides its median by the baseline's", () => {
    const result = row(FOREGROUND, [4, 2, 3, 5, 1], [2, 2, 2]);
    assert.equal(result.median, 3);
    assert.equal(result.p10, 1.4);
    assert.equal(result.p90, 4.6);
    assert.equal(result.baseline_median, 2);
    assert.equal(result.ratio, 1.5);
    assert.equal(result.ratio_best, 0.7); // p10 over p10
    assert.equal(result.goal_of, "ratio");
    assert.equal(result.iterations, 5);
    assert.equal(result.met, false);
    assert.equal(row(FOREGROUND, [2.2], [2]).met, true);
  });

  it("judges higher-is-better rows the other way", () => {
    const header = { ...FOREGROUND, goal: 0.9, better: "higher" as const };
    assert.equal(row(header, [95], [100]).met, true);
    assert.equal(row(header, [10, 20, 30], [30, 40, 60]).ratio_best, 28 / 56); // p90 over p90
    assert.equal(row(header, [80], [100]).met, false);
  });

  it("applies an absolute goal to the median and gives no ratio against a scale baseline", () => {
    const result = row(MEMORY, [70, 60, 65], [1]);
    assert.equal(result.goal_of, "median");
    assert.equal(result.ratio, null);
    assert.equal(result.ratio_best, undefined);
    assert.equal(result.baseline_median, 1);
    assert.equal(result.met, false);
    assert.equal(row(MEMORY, [10], [1]).met, true);
  });

  it("reports without a goal or baseline", () => {
    const result = row({ ...FOREGROUND, goal: null, baseline: null }, [1], null);
    assert.equal(result.met, null);
    assert.equal(result.ratio, null);
    assert.equal(result.goal_of, "median");
  });
});

describe("skippedRow", () => {
  it("keeps the row with its reason and no numbers", () => {
    const result = skippedRow(FOREGROUND, '"bwrap" was not found');
    assert.equal(result.skipped, '"bwrap" was not found');
    assert.deepEqual(
      [result.median, result.p10, result.p90, result.ratio, result.met],
      [null, null, null, null, null],
    );
    assert.equal(result.goal, 1.1);
    assert.equal(result.iterations, 0);
  });
});

describe("mibPerSecond", () => {
  it("turns milliseconds per run into MiB/s", () => {
    assert.equal(mibPerSecond(2 ** 30)(1000), 1024);
    assert.equal(mibPerSecond(2 ** 20)(500), 2);
  });
});

describe("everyId", () => {
  it("adds a skipped row with the reason for each declared id without one", () => {
    const measured = row(FOREGROUND, [1], [1]);
    const rows = everyId(["foreground-deno", "foreground-node"], [measured], "no row");
    assert.deepEqual(rows.map((r) => [r.id, r.skipped]), [
      ["foreground-deno", undefined],
      ["foreground-node", "no row"],
    ]);
    assert.equal(everyId(["a"], [], "the case failed: boom")[0]!.skipped, "the case failed: boom");
  });
});
