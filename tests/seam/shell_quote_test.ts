// shellQuote: bash reads the quoted line back as the very words it was given.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { shellQuote } from "../../seam/mod.ts";

/** The words bash runs for `line`, as `printf` receives them (NUL-separated). */
function wordsBashReads(line: string): string[] {
  const result = spawnSync("bash", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split("\0").slice(0, -1);
}

const TRICKY = [
  "",
  "plain",
  "a  b",
  " lead",
  "trail ",
  "$HOME",
  "${HOME}",
  "$(id)",
  "`id`",
  "it's",
  "'",
  "''",
  '"',
  "\\",
  "\\'",
  "a\nb",
  "\t",
  "*",
  "?",
  "[a]",
  "~",
  "~root",
  "a=b",
  "!",
  "!!",
  "#comment",
  "a;b",
  "a&&b",
  "a|b",
  "<in",
  ">out",
  "{a,b}",
  "(x)",
  "if",
  "time",
  "--opt=value",
  "-",
  "%1",
  "héllo wörld",
  "\x1b[31m",
  "\x01\x7f",
];

describe("shellQuote", () => {
  it("gives bash back every tricky word as it is, as arguments", () => {
    assert.deepEqual(wordsBashReads(shellQuote(TRICKY)), TRICKY);
  });

  it("gives bash back random words of any character but NUL", () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const words = Array.from({ length: 200 }, () => {
      const length = next() % 12;
      return Array.from({ length }, () => String.fromCodePoint(1 + next() % 0x2ff)).join("");
    });
    assert.deepEqual(wordsBashReads(shellQuote(words)), words);
  });

  it("runs its first word as the program, reserved words and assignments included", () => {
    for (const program of ["if", "while", "a=b", "~", "!", "{"]) {
      const result = spawnSync("bash", ["-c", shellQuote([program, "x"])], { encoding: "utf8" });
      assert.equal(result.status, 127, program);
      assert.match(result.stderr, /command not found/, program);
    }
  });

  it("leaves plain words bare and single-quotes the rest", () => {
    assert.equal(shellQuote(["ls", "-la", "src/a.ts", "--x=1"]), "ls -la src/a.ts '--x=1'");
    assert.equal(shellQuote(["echo", "a  b", "$HOME"]), "echo 'a  b' '$HOME'");
    assert.equal(shellQuote([]), "");
  });
});
