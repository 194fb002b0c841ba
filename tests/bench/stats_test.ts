import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fitLine, logLogSlope, meetsGoal, quantile, ratio, summarize } from "../../bench/_stats.ts";

describe("quantile and summarize", () => {
  it("interpolate between ranks, whatever the input order", () => {
    const samples = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5, 11];
    assert.deepEqual(summarize(samples), { median: 6, p10: 2, p90: 10, n: 11 });
    assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
    assert.equal(quantile([1, 2], 0.1), 1.1);
    assert.equal(quantile([7], 0.9), 7);
    assert.deepEqual(samples.slice(0, 3), [10, 1, 9], "the input is not sorted in place");
  });

  it("refuse no samples and a quantile outside 0..1", () => {
    assert.throws(() => quantile([], 0.5), /no samples/);
    assert.throws(() => quantile([1], 1.5), /within 0\.\.1; got 1\.5/);
    assert.throws(() => quantile([1], NaN), /got NaN/);
  });
});

describe("ratio and meetsGoal", () => {
  it("divide the subject by a positive baseline only", () => {
    assert.equal(ratio(3, 2), 1.5);
    assert.equal(ratio(3, 0), undefined);
    assert.equal(ratio(NaN, 2), undefined);
  });

  it("judge by direction, the goal itself included", () => {
    assert.equal(meetsGoal(1.1, 1.1, "lower"), true);
    assert.equal(meetsGoal(1.2, 1.1, "lower"), false);
    assert.equal(meetsGoal(0.9, 0.9, "higher"), true);
    assert.equal(meetsGoal(0.8, 0.9, "higher"), false);
  });
});

describe("fitLine and logLogSlope", () => {
  it("recover an exact line and report a perfect fit", () => {
    const fit = fitLine([1, 2, 3, 4], [5, 7, 9, 11]);
    assert.equal(fit.slope, 2);
    assert.equal(fit.intercept, 3);
    assert.equal(fit.r2, 1);
  });

  it("give slope 1 for linear growth and 0 for constant values on log axes", () => {
    const bytes = [1024, 16384, 262144, 4194304];
    assert.ok(Math.abs(logLogSlope(bytes, bytes.map((b) => b * 3e-6)) - 1) < 1e-12);
    assert.ok(Math.abs(logLogSlope(bytes, bytes.map(() => 5))) < 1e-12);
  });

  it("refuse mismatched, too few, equal-x or non-positive inputs", () => {
    assert.throws(() => fitLine([1, 2], [1]), /got 2 xs and 1 ys/);
    assert.throws(() => fitLine([1], [1]), /two or more/);
    assert.throws(() => fitLine([2, 2], [1, 3]), /distinct x/);
    assert.throws(() => logLogSlope([1, 2], [0, 1]), /positive/);
  });
});
