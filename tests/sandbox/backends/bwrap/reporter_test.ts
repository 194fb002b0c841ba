import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { COUNT_LIVE, readStrayReport } from "../../../../sandbox/backends/bwrap/_reporter.ts";
import { tempWorkspace } from "../../_fixtures.ts";

describe("readStrayReport", () => {
  it("reads the last count the reporter wrote and removes the file", () => {
    using workspace = tempWorkspace();
    const file = join(workspace.root, "report");
    writeFileSync(file, "0\n3\n");
    assert.equal(readStrayReport(file), 3);
    assert.equal(existsSync(file), false);
  });

  it("reads no count (an unknown one) from a missing file or one the reporter did not finish", () => {
    using workspace = tempWorkspace();
    assert.equal(readStrayReport(join(workspace.root, "missing")), undefined);
    const cut = join(workspace.root, "cut");
    writeFileSync(cut, "0\n3");
    assert.equal(readStrayReport(cut), undefined);
    assert.equal(existsSync(cut), false, "a report read as unknown is removed too");
    const unreadable = join(workspace.root, "folder");
    mkdirSync(unreadable);
    assert.equal(readStrayReport(unreadable), undefined);
    assert.equal(existsSync(unreadable), false, "a report that cannot be read is removed too");
  });
});

describe("the reporter's count", () => {
  it("counts what is left to kill, and as stopped only what was not already exiting", () => {
    using workspace = tempWorkspace();
    const proc = join(workspace.root, "proc");
    /** A stat line of `state` and `flags` (PF_EXITING is 0x4), its name with ") " in it. */
    const stat = (pid: number, state: string, flags: number) =>
      `${pid} (a) b) ${state} 1 ${pid} ${pid} 0 -1 ${flags} 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n`;
    const task = (pid: number, tid: number, state: string, flags: number) => {
      mkdirSync(join(proc, String(pid), "task", String(tid)), { recursive: true });
      writeFileSync(join(proc, String(pid), "task", String(tid), "stat"), stat(tid, state, flags));
      if (pid === tid) writeFileSync(join(proc, String(pid), "stat"), stat(pid, state, flags));
    };
    task(1, 1, "S", 0x400100); // pid 1: never counted
    task(2, 2, "S", 0x400100); // running: left to kill, and stopped
    task(3, 3, "R", 0x400104); // inside exit(): left to kill, not stopped
    task(4, 4, "Z", 0x400104); // a zombie leader with a thread that runs: both
    task(4, 5, "S", 0x400040);
    task(6, 6, "Z", 0x400104); // a zombie with no thread left: neither
    task(7, 7, "D", 0x400104); // threads all exiting: left to kill, not stopped
    task(7, 8, "R", 0x400104);
    const counted = spawnSync("bash", [
      "--norc",
      "--noprofile",
      "-p",
      "-c",
      `${COUNT_LIVE}live "$1"; echo "$n $m"`,
      "count",
      proc,
    ], {
      encoding: "utf8",
    });
    assert.equal(counted.stderr, "");
    assert.equal(counted.stdout, "4 2\n");
  });
});
