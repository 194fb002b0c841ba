import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseStatus } from "../../bench/_memory.ts";

describe("parseStatus", () => {
  it("reads VmRSS and VmHWM in bytes", () => {
    const status = "Name:\tdeno\nVmPeak:\t 9999 kB\nVmHWM:\t   204800 kB\nVmRSS:\t   102400 kB\n";
    assert.deepEqual(parseStatus(status), { rss: 100 * 2 ** 20, peak: 200 * 2 ** 20 });
  });

  it("names a missing field", () => {
    assert.throws(() => parseStatus("VmRSS:\t 1 kB\n"), /No "VmHWM" line/);
  });
});
