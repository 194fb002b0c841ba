import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readStrayReport } from "../../../../sandbox/backends/bwrap/_reporter.ts";
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
