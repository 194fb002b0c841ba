import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { findDeno } from "../../../../sandbox/backends/landlock/_deno.ts";
import { fakeProgram, tempWorkspace } from "../../_fixtures.ts";

describe("findDeno", () => {
  it("takes the first deno on the search path", () => {
    using workspace = tempWorkspace();
    const dir = fakeProgram(workspace, "deno", "exit 0");
    assert.deepEqual(findDeno(`/nonexistent:${dir}:/usr/bin`), { path: join(dir, "deno") });
  });

  it("falls back to the deno npm package, else says what to install", () => {
    const found = findDeno("/nonexistent");
    if ("path" in found) {
      assert.match(found.path, /node_modules\/(deno|@deno\/linux-[a-z0-9]+-glibc)\/deno$/);
    } else {
      assert.equal(
        found.reason,
        '"deno" was not found on PATH nor as the "deno" npm package; install Deno or the deno npm package',
      );
    }
  });
});
