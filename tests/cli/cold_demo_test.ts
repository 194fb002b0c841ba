// A cold `deno task demo` (an empty DENO_DIR) downloads the npm packages the
// demo imports (the CLI's MCP SDK and what it depends on) and nothing else:
// not the SDKs and the compiler that only the tests use. `deno task` installs
// every package of the root deno.lock, so the tests keep theirs in
// tests/deno.lock. Prints what was downloaded. Needs the npm registry.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { checkoutSkip, ROOT } from "../_imports.ts";

interface Lock {
  specifiers: Record<string, string>;
  npm: Record<string, { dependencies?: string[]; optionalDependencies?: string[] }>;
}

/** `name@version` of a lock's npm key (`name@version_peer@version` for peer-resolved ones). */
function packageOf(key: string): string {
  return key.split("_")[0]!;
}

function nameOf(key: string): string {
  const at = key.indexOf("@", 1);
  return at === -1 ? key : key.slice(0, at);
}

/** Every package `specifiers` resolve to in `lock`, with what they depend on. */
function closure(lock: Lock, specifiers: string[]): Set<string> {
  const keysByName = new Map<string, string[]>();
  for (const key of Object.keys(lock.npm)) {
    keysByName.set(nameOf(key), [...keysByName.get(nameOf(key)) ?? [], key]);
  }
  const found = new Set<string>();
  const stack = specifiers.map((specifier) => {
    const resolved = lock.specifiers[specifier];
    assert.ok(resolved !== undefined, `deno.lock resolves no "${specifier}"`);
    return `${nameOf(specifier.slice("npm:".length))}@${resolved}`;
  });
  for (let key = stack.pop(); key !== undefined; key = stack.pop()) {
    if (found.has(key)) continue;
    found.add(key);
    const entry = lock.npm[key];
    assert.ok(entry !== undefined, `deno.lock has no npm entry "${key}"`);
    for (const dependency of [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]) {
      stack.push(...(dependency in lock.npm ? [dependency] : keysByName.get(dependency) ?? []));
    }
  }
  return new Set([...found].map(packageOf));
}

/** The packages a `deno` run's stderr says it downloaded, as `name@version`. */
function downloads(stderr: string): string[] {
  return [...stderr.matchAll(/^Download https?:\/\/[^/]+\/(.+)\/-\/(.+)\.tgz$/gm)].map(
    ([, name = "", file = ""]) => `${name}@${file.slice(name.split("/").at(-1)!.length + 1)}`,
  );
}

describe("a cold deno task demo", { skip: checkoutSkip }, () => {
  it("downloads only the npm packages the demo imports, and says which", async () => {
    const lock = JSON.parse(readFileSync(join(ROOT, "deno.lock"), "utf8")) as Lock;
    const cli = JSON.parse(readFileSync(join(ROOT, "cli", "deno.json"), "utf8")) as {
      imports: Record<string, string>;
    };
    // The CLI's imports, as the lock names them (a prefix entry "npm:/x@1/" is "npm:x@1").
    const imported = [
      ...new Set(
        Object.values(cli.imports).map((target) =>
          target.replace(/^npm:\//, "npm:").replace(/\/$/, "")
        ),
      ),
    ];
    const expected = closure(lock, imported);
    const denoDir = mkdtempSync(join(tmpdir(), "shellseam-cold-deno-"));
    try {
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>(
        (resolve) => {
          execFile(
            process.execPath,
            ["task", "demo"],
            {
              cwd: ROOT,
              env: { ...process.env, DENO_DIR: denoDir, NO_COLOR: "1" },
              maxBuffer: 64 * 1024 * 1024,
            },
            (error, _stdout, stderr) =>
              resolve({ code: error === null ? 0 : error.code as number, stderr }),
          );
        },
      );
      assert.equal(code, 0, stderr);
      const downloaded = downloads(stderr).sort();
      console.log(
        `A cold deno task demo downloaded ${downloaded.length} npm packages:\n  ${
          downloaded.join("\n  ")
        }`,
      );
      assert.ok(downloaded.length > 0, `no download seen; stderr:\n${stderr}`);
      assert.deepEqual(
        downloaded.filter((name) => !expected.has(name)),
        [],
        "downloaded but not imported by the demo (a package only the tests use belongs in " +
          "tests/deno.lock, not in deno.lock)",
      );
      assert.deepEqual(downloaded, [...expected].sort());
    } finally {
      rmSync(denoDir, { recursive: true, force: true });
    }
  });
});
