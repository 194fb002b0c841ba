// The bwrap runners' readers of their stdin (sandbox/backends/bwrap/_shell.ts),
// run under bash as the wrapper and the standby run them.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { joinedBytes } from "../../../../engine/mod.ts";
import {
  maskEntries,
  READ_MASKS,
  READ_OPTIONS,
  READ_SIZES,
  sizedEntries,
} from "../../../../sandbox/backends/bwrap/_shell.ts";
import { RUNNER_FAILURE_EXIT } from "../../../../sandbox/backends/mod.ts";

/** Runs `script` under bash with `input` on stdin, in a UTF-8 locale (the readers set C). */
function bash(script: string, input: Uint8Array) {
  return spawnSync("bash", ["--norc", "--noprofile", "-p", "-c", script], {
    input,
    env: { ...process.env, LC_ALL: "C.UTF-8" },
  });
}

/** A line `<options> <mask groups> <size bytes>`, then the sizes and the entries. */
function input(options: string[], masks: string[][]): Uint8Array {
  const { sizes, body } = sizedEntries([...options, ...maskEntries(masks)]);
  const head = new TextEncoder().encode(`${options.length} ${masks.length} ${sizes.length}\n`);
  return joinedBytes([head, sizes, body]);
}

const READ = 'IFS=" " read -r n m h; ' + READ_SIZES + READ_OPTIONS + READ_MASKS;

describe("the bwrap runners' stdin", () => {
  it("reads each entry whole by its size: blanks, newlines, backslashes, UTF-8, empty", () => {
    const options = [" lead", "trail \t", "two\nlines", "back\\slash", "ünïcødé", "", "-"];
    const result = bash(
      READ + 'printf "[%s]" "${o[@]}"; echo; printf "[%s]" "${v[@]}"; echo; cat',
      joinedBytes([input(options, [["--ro-bind", "/m", "/"]]), new TextEncoder().encode("rest")]),
    );
    assert.equal(result.stderr.toString(), "");
    assert.equal(
      result.stdout.toString(),
      `${options.map((option) => `[${option}]`).join("")}\n[--ro-bind][/m][/]\nrest`,
      "the entries, the mask group kept, and the rest of stdin untouched",
    );
  });

  it("drops the mask groups whose path is gone", () => {
    const masks = [["--tmpfs", "/nonexistent/x"], ["--ro-bind", "/m", "/tmp"]];
    const result = bash(READ + 'printf "[%s]" "${v[@]}"', input(["a"], masks));
    assert.equal(result.stdout.toString(), "[--ro-bind][/m][/tmp]");
  });

  it("fails as the wrapper when stdin ends early", () => {
    const whole = input(["one", "two"], [["--ro-bind", "/m", "/"]]);
    for (const cut of [3, 12, whole.length - 1]) {
      const result = bash(READ + "echo ran", whole.subarray(0, cut));
      assert.equal(result.status, RUNNER_FAILURE_EXIT, `cut at ${cut}`);
      assert.match(
        result.stderr.toString(),
        /shellseam-bwrap: no (sizes|options|masks) on stdin\n$/,
      );
      assert.equal(result.stdout.toString(), "");
    }
  });
});
