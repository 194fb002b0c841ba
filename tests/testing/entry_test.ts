// The suite is opt-in: only the ./testing entry loads it (and node:test with it).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const root = new URL("../../", import.meta.url);

/** The package's exports, from deno.json (there only in the sources, not in the Node leg). */
function exports(): Record<string, string> {
  const deno = JSON.parse(readFileSync(new URL("deno.json", root), "utf8"));
  return (deno as { exports: Record<string, string> }).exports;
}

/** Runs a module importing `entries` with node:test mapped to a file that throws. */
function importWithTrap(entries: string[]): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-entry-"));
  try {
    writeFileSync(
      join(dir, "trap.js"),
      'export const after = null, describe = null, it = null;\nthrow new Error("node:test was loaded");\n',
    );
    writeFileSync(join(dir, "map.json"), JSON.stringify({ imports: { "node:test": "./trap.js" } }));
    writeFileSync(
      join(dir, "main.ts"),
      entries.map((path) => `import ${JSON.stringify(new URL(path, root).href)};\n`).join(""),
    );
    const run = spawnSync(process.execPath, [
      "run",
      "--allow-all",
      "--no-config",
      "--no-lock",
      "--import-map=map.json",
      "main.ts",
    ], { cwd: dir, encoding: "utf8" });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true });
  }
}

describe("the testing entry", () => {
  const skip = "Deno" in globalThis ? false : "Deno-only: it maps node:test through an import map";

  it("is the only entry that loads node:test", { skip }, () => {
    const others = Object.entries(exports()).filter(([subpath]) => subpath !== "./testing");
    assert.ok(others.length > 0);
    const run = importWithTrap(others.map(([, path]) => path));
    assert.equal(run.status, 0, run.output);
  });

  it("loads it (so the check above can see a load)", { skip }, () => {
    const testing = exports()["./testing"];
    assert.ok(testing !== undefined, "deno.json exports ./testing");
    const run = importWithTrap([testing]);
    assert.notEqual(run.status, 0);
    assert.match(run.output, /node:test was loaded/);
  });
});
