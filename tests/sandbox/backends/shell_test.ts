// The pieces of shell every backend's runners share (sandbox/backends/_shell.ts),
// run under bash as the runners run them.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { LAUNCH_STARTED } from "../../../engine/mod.ts";
import {
  closeInherited,
  execOrFail,
  PRINT_START,
  RUNNER_FAILURE_EXIT,
  STDIN_UNLESS_KEPT,
} from "../../../sandbox/backends/mod.ts";

/** Runs `script` under bash with `args`, `input` on stdin and an extra descriptor 3 open. */
function bash(script: string, args: string[] = [], input = "") {
  const extra = openSync("/dev/null", "r");
  try {
    return spawnSync("bash", ["--norc", "--noprofile", "-p", "-c", script, "runner", ...args], {
      input,
      stdio: ["pipe", "pipe", "pipe", extra],
    });
  } finally {
    closeSync(extra);
  }
}

describe("the runners' shared shell", () => {
  for (const dir of ["/proc/$$/fd", "/dev/fd"] as const) {
    it(`closes every inherited descriptor above 2, as ${dir} lists them`, () => {
      const result = bash(closeInherited(dir) + "[ -e /dev/fd/3 ] && echo open || echo closed");
      assert.equal(result.stdout.toString(), "closed\n", result.stderr.toString());
      assert.equal(result.stderr.toString(), "");
    });
  }

  it("skips a folder that lists nothing, saying nothing on stderr", () => {
    // A glob that matches nothing stays as it is: not a number, so skipped.
    const result = bash(
      closeInherited("/dev/fd").replace("/dev/fd/*", "/nonexistent/*") + "echo on",
    );
    assert.equal(result.stdout.toString(), "on\n");
    assert.equal(result.stderr.toString(), "");
  });

  it("hands on stdin only when $k is 1", () => {
    // The input is read to its end afterwards (through a copy of stdin made first): a script
    // that exits before the pipe's write makes that write fail (EPIPE), and leaves no result.
    const script = "exec 4<&0; k=$1; " + STDIN_UNLESS_KEPT + "cat; cat <&4 >/dev/null";
    assert.equal(bash(script, ["1"], "kept").stdout.toString(), "kept");
    assert.equal(bash(script, ["0"], "kept").stdout.toString(), "");
  });

  it("says the command starts with the start byte, and execs or fails as the runner", () => {
    const started = bash(PRINT_START + execOrFail("shellseam-x"), ["echo", "ran"]);
    assert.deepEqual([...started.stdout], [LAUNCH_STARTED, ...new TextEncoder().encode("ran\n")]);
    const missing = bash(execOrFail("shellseam-x"), ["/nonexistent/program"]);
    assert.equal(missing.status, RUNNER_FAILURE_EXIT);
    assert.match(missing.stderr.toString(), /shellseam-x: cannot run \/nonexistent\/program\n$/);
  });
});
