import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import process from "node:process";
import { pythonWithoutShim } from "../../scripts/_python.ts";

/** The interpreter `python3` runs here, or undefined without one. */
function interpreter(): string | undefined {
  const asked = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], {
    encoding: "utf8",
  });
  return asked.status === 0 ? realpathSync(asked.stdout.trim()) : undefined;
}

const real = interpreter();

/** Runs `body` with PATH set to `path` and a scratch folder, then puts both back. */
function withPath(path: string, body: (dir: string) => void): void {
  const saved = process.env.PATH;
  const dir = mkdtempSync(join(tmpdir(), "shellseam-python-"));
  process.env.PATH = path;
  try {
    body(dir);
  } finally {
    process.env.PATH = saved;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the suite's python3 (scripts/_python.ts)", { skip: real ? false : "no python3" }, () => {
  it("puts the interpreter a shim runs first on PATH", () => {
    const shims = mkdtempSync(join(tmpdir(), "shellseam-shims-"));
    try {
      writeFileSync(join(shims, "python3"), `#!/bin/sh\nexec '${real}' "$@"\n`);
      chmodSync(join(shims, "python3"), 0o755);
      withPath(`${shims}${delimiter}/usr/bin${delimiter}/bin`, (dir) => {
        assert.equal(pythonWithoutShim(dir), real);
        assert.equal(
          process.env.PATH,
          `${join(dir, "bin")}${delimiter}${shims}${delimiter}/usr/bin${delimiter}/bin`,
        );
        assert.equal(readlinkSync(join(dir, "bin", "python3")), real);
        assert.equal(interpreter(), real);
      });
    } finally {
      rmSync(shims, { recursive: true, force: true });
    }
  });

  it("leaves PATH alone when python3 on it is the interpreter", () => {
    const path = `${dirname(real!)}${delimiter}/usr/bin${delimiter}/bin`;
    withPath(path, (dir) => {
      assert.equal(pythonWithoutShim(dir), undefined);
      assert.equal(process.env.PATH, path);
    });
  });
});
