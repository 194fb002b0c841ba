/**
 * `deno task test:node`: the Node leg of the tests. Builds the package as
 * `deno task build:npm` does (into a temporary folder), packs it,
 * installs the tarball into a fresh temporary folder, compiles
 * `tests/**\/*.ts` the way the package is compiled, points the tests' relative
 * imports at the installed package, and runs them with `node --test`. Then a
 * small ESM script runs `echo hi` through `@shellseam/bash/local`, and a
 * consumer file is type-checked against the installed `.d.ts`.
 *
 * @module
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCliNpm, buildNpm } from "./build_npm.ts";
import {
  COMPILER_OPTIONS,
  readDenoJson,
  rewriteSpecifiers,
  ROOT,
  tsc,
  walk,
  writeTsconfig,
} from "./_tsc.ts";

/** @types/node for the consumer type-check, matching `engines.node`. */
const TYPES_NODE = "20.19.43";

async function run(program: string, args: string[], cwd: string): Promise<string> {
  const { code, stdout } = await new Deno.Command(program, {
    args,
    cwd,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) {
    console.log(text);
    throw new Error(`${program} ${args.join(" ")} failed with exit code ${code} in ${cwd}`);
  }
  return text;
}

async function step(title: string, action: () => Promise<void>): Promise<void> {
  const start = performance.now();
  console.log(`\n== ${title}`);
  try {
    await action();
  } catch (error) {
    console.log(`== ${title}: FAILED`);
    throw error;
  }
  console.log(`== ${title}: ok (${((performance.now() - start) / 1000).toFixed(1)} s)`);
}

/**
 * Packs the packages built at `npmDirs`, installs the tarballs together into
 * `dir` (so the CLI's dependency on the library is the local build), and
 * returns their installed folders there, in order.
 */
async function packAndInstall(npmDirs: string[], dir: string): Promise<string[]> {
  const tarballs: string[] = [];
  const names: string[] = [];
  for (const npmDir of npmDirs) {
    const [packed] = JSON.parse(
      await run("npm", ["pack", "--json", "--pack-destination", dir], npmDir),
    ) as { filename: string; name: string }[];
    if (!packed) throw new Error(`npm pack produced no tarball in ${npmDir}`);
    tarballs.push(join(dir, packed.filename));
    names.push(packed.name);
  }
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "shellseam-node-check", private: true, type: "module" }) + "\n",
  );
  await run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    ...tarballs,
    `@types/node@${TYPES_NODE}`,
  ], dir);
  return names.map((name) => join(dir, "node_modules", ...name.split("/")));
}

/**
 * Compiles the tests into `dir/tests` and links every top-level entry of the
 * installed package next to it, so `../../local/mod.ts` (now `.js`) resolves
 * to the installed build, never to the sources.
 */
async function compileTests(dir: string, installed: string): Promise<string[]> {
  const out = join(dir, "compiled");
  const tsconfig = join(dir, "tsconfig.tests.json");
  // tests/bench tests the benchmark harness (bench/), which is not in the package.
  const sources = walk(join(ROOT, "tests"))
    .filter((file) => file.endsWith(".ts") && !file.startsWith("bench/"));
  writeTsconfig(
    tsconfig,
    {
      ...COMPILER_OPTIONS,
      declaration: false,
      isolatedDeclarations: false,
      rootDir: ROOT,
      outDir: out,
    },
    sources.map((file) => join(ROOT, "tests", file)),
  );
  await tsc(["-p", tsconfig]);
  const tests = join(dir, "tests");
  // Fixtures and other non-TypeScript files travel with the tests.
  cpSync(join(ROOT, "tests"), tests, {
    recursive: true,
    filter: (source) => !source.endsWith(".ts"),
  });
  cpSync(join(out, "tests"), tests, { recursive: true });
  rmSync(out, { recursive: true });
  rewriteSpecifiers(tests, readDenoJson());
  for (const entry of readdirSync(installed)) {
    if (!existsSync(join(dir, entry))) symlinkSync(join(installed, entry), join(dir, entry));
  }
  // The names `deno test` picks up: test.ts, *_test.ts and *.test.ts.
  return walk(tests).filter((file) => /(^|\/|_|\.)test\.js$/.test(file))
    .map((file) => join(tests, file));
}

const ECHO_CHECK = `import assert from "node:assert/strict";
import { LocalBashExecutor } from "@shellseam/bash/local";

const executor = new LocalBashExecutor();
try {
  const result = await executor.run({ command: "echo hi" });
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout.text, "hi\\n");
  console.log("echo hi through the installed package: ok");
} finally {
  await executor[Symbol.asyncDispose]();
}
`;

// node --test names only the file whose time ran out, and the spec reporter
// prints a test once it ends: this reporter names the tests still running.
const STILL_RUNNING_REPORTER = `export default async function* (events) {
  const open = new Map();
  for await (const { type, data } of events) {
    if (!data?.file) continue;
    const tests = open.get(data.file) ?? [];
    open.set(data.file, tests);
    if (type === "test:dequeue" && data.name !== data.file) {
      tests.length = data.nesting;
      tests.push(data.name);
    } else if ((type === "test:pass" || type === "test:fail") && tests[data.nesting] === data.name) {
      tests.length = data.nesting;
    } else if (type === "test:fail" && data.name === data.file && tests.length > 0) {
      yield \`Still running when \${data.file} was stopped: \${tests.join(" > ")}\\n\`;
    }
  }
}
`;

const CONSUMER =
  `import { BashSpawnError, type BashExecutor, type BashRunResult } from "@shellseam/bash";
import { LocalBashExecutor } from "@shellseam/bash/local";

const executor: BashExecutor = new LocalBashExecutor();
const result: BashRunResult = await executor.run({ command: "echo hi" });
const code: number | null = result.exitCode;
const text: string = result.stdout.text;
const error: Error = new BashSpawnError("x");
console.log(code, text, error);
await executor[Symbol.asyncDispose]();
`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-node-"));
  try {
    await checks(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("\nNode leg passed: npm/ built, packed, installed, tested and type-checked");
}

async function checks(dir: string): Promise<void> {
  let installed = "";
  let cliBin = "";
  let tests: string[] = [];
  // Built in the temporary folder, so a run leaves the checkout as it was.
  const built = join(dir, "package");
  const builtCli = join(dir, "cli-package");
  await step("build the packages (library and CLI)", async () => {
    await buildNpm(built);
    await buildCliNpm(builtCli);
  });
  await step("npm pack and install both into a fresh folder", async () => {
    const [library, cli] = await packAndInstall([built, builtCli], dir);
    installed = library!;
    cliBin = join(cli!, "main.js");
  });
  await step("compile tests against the installed package", async () => {
    mkdirSync(join(dir, "run"));
    writeFileSync(join(dir, "run", "package.json"), JSON.stringify({ type: "module" }) + "\n");
    tests = await compileTests(join(dir, "run"), installed);
  });
  await step(`node --test (${tests.length} files)`, async () => {
    writeFileSync(join(dir, "run", "still_running.mjs"), STILL_RUNNING_REPORTER);
    const { code } = await new Deno.Command("node", {
      args: [
        "--test",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        "--test-reporter=./still_running.mjs",
        "--test-reporter-destination=stderr",
        "--test-concurrency=1",
        "--test-timeout=120000",
        ...tests,
      ],
      cwd: join(dir, "run"),
      // The MCP server's tests drive the installed CLI's bin.
      env: { SHELLSEAM_NODE_CLI: cliBin },
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) throw new Error("node --test failed");
  });
  await step("ESM script: echo hi through @shellseam/bash/local", async () => {
    writeFileSync(join(dir, "echo_check.mjs"), ECHO_CHECK);
    console.log(await run("node", ["echo_check.mjs"], dir));
  });
  await step("consumer type-check (tsc --noEmit, nodenext)", async () => {
    // Every subpath is imported, so tsc checks all of the published .d.ts.
    const { name, exports } = readDenoJson();
    const everySubpath = Object.keys(exports).map((subpath, index) =>
      `import type * as subpath${index} from "${name}${subpath.slice(1)}";\n` +
      `export type Subpath${index} = typeof subpath${index};\n`
    );
    writeFileSync(join(dir, "consumer.ts"), CONSUMER + everySubpath.join(""));
    writeTsconfig(join(dir, "tsconfig.json"), {
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      lib: ["es2022", "esnext.disposable"],
      types: ["node"],
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
    }, ["consumer.ts"]);
    await tsc(["-p", join(dir, "tsconfig.json")]);
  });
}

if (import.meta.main) await main();
