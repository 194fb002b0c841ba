import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const LEGS = new URL("../../scripts/_legs.ts", import.meta.url).href;

/** A `deno eval` program that waits for `file` to exist. */
function waitFor(file: string): string {
  return `while (!(await Deno.stat(${JSON.stringify(file)}).then(() => true, () => false))) ` +
    "await new Promise((done) => setTimeout(done, 20));";
}

/** A `deno eval` program that creates `file`. */
function create(file: string): string {
  return `Deno.writeTextFileSync(${JSON.stringify(file)}, "");`;
}

describe("a leg of the tests (scripts/_legs.ts)", () => {
  it("holds a leg's output and prints it whole when it ends, while another leg passes through", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-legs-"));
    try {
      const [printedA1, printedB1] = [join(dir, "a1"), join(dir, "b1")];
      // The held leg prints before the other does, then ends only after it printed.
      const held = `console.log("A1"); ${create(printedA1)} ${waitFor(printedB1)} ` +
        'console.log("A2");';
      const through = `${waitFor(printedA1)} console.log("B1"); ${create(printedB1)}`;
      const driver = join(dir, "driver.ts");
      writeFileSync(
        driver,
        `import { runLeg } from ${JSON.stringify(LEGS)};\n` +
          "const results = await Promise.all([\n" +
          `  runLeg("held", ["eval", ${JSON.stringify(held)}], { held: true }),\n` +
          `  runLeg("through", ["eval", ${JSON.stringify(through)}]),\n` +
          "]);\n" +
          "console.log(JSON.stringify(results.map(({ name, ok }) => ({ name, ok }))));\n",
      );
      const run = spawnSync(process.execPath, ["run", "--allow-all", "--no-check", driver], {
        encoding: "utf8",
      });
      assert.equal(run.status, 0, run.stderr);
      const lines = run.stdout.split("\n").filter((line) => line !== "");
      // Passed through: B1 as it came, before the held leg's lines, which come together.
      const heldHeader = lines.findIndex((line) => line.startsWith("=== held: deno eval"));
      assert.ok(heldHeader > lines.indexOf("B1"), run.stdout);
      assert.deepEqual(lines.slice(heldHeader + 1, heldHeader + 3), ["A1", "A2"], run.stdout);
      assert.deepEqual(JSON.parse(lines.at(-1) ?? ""), [
        { name: "held", ok: true },
        { name: "through", ok: true },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
