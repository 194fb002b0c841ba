import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOST_TOOLS, hostToolPath } from "../../engine/_host_tools.ts";

describe("hostToolPath", () => {
  it("keeps the folders of PATH that hold a host tool, in PATH's order, each once", () => {
    const base = mkdtempSync(join(tmpdir(), "shellseam-tools-"));
    try {
      const [first, empty, second] = ["first", "empty", "second"].map((name) => {
        const dir = join(base, name);
        mkdirSync(dir);
        return dir;
      }) as [string, string, string];
      for (const [dir, tool] of [[second, "grep"], [first, "stty"], [second, "rm"]] as const) {
        writeFileSync(join(dir, tool), "#!/bin/sh\n");
        chmodSync(join(dir, tool), 0o755);
      }
      // A relative entry and one with a trailing slash are as findOnPath reads them.
      assert.equal(hostToolPath(`${empty}:bin:${first}/:${second}`), `${first}:${second}`);
      assert.equal(hostToolPath(empty), "");
      assert.ok(HOST_TOOLS.includes("grep") && HOST_TOOLS.includes("stty"));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
