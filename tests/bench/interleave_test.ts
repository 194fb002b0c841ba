import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { interleave, interleavedOrder, interleaveValues } from "../../bench/_interleave.ts";

describe("interleavedOrder", () => {
  it("runs every arm once per round, warm-up rounds first and untimed", () => {
    const order = interleavedOrder(["a", "b"], 1, 2).map(({ name, timed }) =>
      `${name}${timed ? "" : "*"}`
    );
    assert.deepEqual(order, ["a*", "b*", "a", "b", "a", "b"]);
  });

  it("refuses negative or fractional counts and duplicate or missing arms", () => {
    assert.throws(() => interleavedOrder(["a"], -1, 1), /"warmup" must be a whole number/);
    assert.throws(() => interleavedOrder(["a"], 0, 1.5), /"iterations" must be a whole number/);
    assert.throws(() => interleavedOrder([], 0, 1), /distinct names/);
    assert.throws(() => interleavedOrder(["a", "a"], 0, 1), /distinct names/);
  });
});

describe("interleave", () => {
  it("alternates the arms and keeps only the timed samples, per arm, from the clock", async () => {
    const calls: string[] = [];
    let clock = 0;
    const cost: Record<string, number> = { ours: 3, raw: 2 };
    const arm = (name: string) => () => {
      calls.push(name);
      clock += cost[name]!;
      cost[name]! += 10; // each call costs more, so warm-up samples would show
      return Promise.resolve();
    };
    const samples = await interleave(
      { ours: arm("ours"), raw: arm("raw") },
      { warmup: 1, iterations: 2, now: () => clock },
    );
    assert.deepEqual(calls, ["ours", "raw", "ours", "raw", "ours", "raw"]);
    assert.deepEqual(samples, { ours: [13, 23], raw: [12, 22] });
  });

  it("pauses before every step, untimed, when asked", async () => {
    const started: number[] = [];
    const arm = () => {
      started.push(performance.now());
      return Promise.resolve();
    };
    const samples = await interleave({ a: arm, b: arm }, { warmup: 0, iterations: 2, pauseMs: 20 });
    const gaps = started.slice(1).map((at, index) => at - (started[index] as number));
    assert.ok(gaps.every((gap) => gap >= 19), `gaps ${gaps}`);
    assert.ok([...samples.a!, ...samples.b!].every((ms) => ms < 19), "the pause is not timed");
  });

  it("stops at an arm that throws", async () => {
    let after = 0;
    await assert.rejects(
      interleave({
        bad: () => Promise.reject(new Error("broken arm")),
        good: () => Promise.resolve(after++),
      }, { warmup: 0, iterations: 3 }),
      /broken arm/,
    );
    assert.equal(after, 0);
  });
});

describe("interleaveValues", () => {
  it("records what the arms resolve with, timed rounds only", async () => {
    let n = 0;
    const values = await interleaveValues(
      { a: () => Promise.resolve(++n), b: () => Promise.resolve(-(++n)) },
      { warmup: 2, iterations: 1 },
    );
    assert.deepEqual(values, { a: [5], b: [-6] });
  });
});
