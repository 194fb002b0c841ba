// The package as the tests reach it. Under Deno its name resolves through
// deno.json to the sources; in the Node leg, through the installed package's
// exports to the build, which the tests' relative imports must reach too.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importProblems, NAME } from "./_package.ts";

const onNode = !("Deno" in globalThis);
const nodeOnly = onNode ? false : "Node-only: under Deno the tests import the sources";
// .ts in the sources, .js once compiled for the Node leg.
const EXT = import.meta.url.slice(import.meta.url.lastIndexOf("."));
const ROOT = dirname(fileURLToPath(import.meta.resolve(NAME)));
const MANIFEST = JSON.parse(
  readFileSync(join(ROOT, onNode ? "package.json" : "deno.json"), "utf8"),
) as {
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
/** The npm-only entry points (in package.json, not deno.json) and the source each is built from. */
const NPM_ONLY: Record<string, string> = onNode
  ? { "./langchain": "npm_only/langchain", "./xterm": "npm_only/xterm" }
  : {};

/** Where the tests' relative imports of `path` land, symlinks resolved as Node does. */
function byPath(path: string): string {
  return pathToFileURL(realpathSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)))).href;
}

describe("the package", () => {
  it("has a subpath export per public folder, each the mod file the tests import", async () => {
    const subpaths = Object.keys(MANIFEST.exports);
    assert.deepEqual(subpaths, [
      ".",
      "./seam",
      "./local",
      "./tasks",
      "./tool",
      "./sandbox",
      "./git",
      "./testing",
      "./remote",
      ...Object.keys(NPM_ONLY),
    ]);
    for (const subpath of subpaths) {
      const specifier = NAME + subpath.slice(1);
      const file = NPM_ONLY[subpath] !== undefined
        ? `${NPM_ONLY[subpath]}${EXT}`
        : `${subpath === "." ? "" : subpath.slice(2) + "/"}mod${EXT}`;
      assert.equal(import.meta.resolve(specifier), byPath(file), specifier);
      assert.equal(await import(specifier), await import(byPath(file)), specifier);
    }
  });

  it("is, in the Node leg, the installed build and not the sources", { skip: nodeOnly }, () => {
    assert.ok(
      ROOT.endsWith(`${sep}node_modules${sep}${NAME.replace("/", sep)}`),
      `${NAME} resolved to ${ROOT}, not to an installed package`,
    );
  });

  it("imports, once installed, only its own .js files, node: built-ins and its dependencies", {
    skip: nodeOnly,
  }, () => {
    const imported = { ...MANIFEST.dependencies, ...MANIFEST.peerDependencies };
    assert.deepEqual(importProblems(ROOT, imported), []);
  });

  it("lists each entry's exports by name: no export *", {
    skip: onNode ? "Deno-only: reads the sources" : false,
  }, () => {
    const found: string[] = [];
    for (const source of Object.values(MANIFEST.exports as Record<string, string>)) {
      const text = readFileSync(join(ROOT, source), "utf8");
      for (const [line] of text.matchAll(/^export \*.*$/gm)) found.push(`${source}: ${line}`);
    }
    assert.deepEqual(found, []);
  });

  it("gives a newcomer, at the root, both executors, the registry, the tools and the seam's errors", async () => {
    const root = await import(NAME);
    assert.deepEqual(Object.keys(root).sort(), [
      "BASH_TOOL_GUIDANCE",
      "BashConfigError",
      "BashError",
      "BashExecutor",
      "BashSpawnError",
      "LocalBashExecutor",
      "SandboxBashExecutor",
      "SandboxUnavailableError",
      "TaskRegistry",
      "createBashTools",
      "taskOwner",
      "toAnthropicTool",
      "toMcpTool",
      "toOpenAIResponsesTool",
      "toOpenAITool",
    ]);
    assert.equal(root.LocalBashExecutor, (await import(`${NAME}/local`)).LocalBashExecutor);
    assert.equal(root.SandboxBashExecutor, (await import(`${NAME}/sandbox`)).SandboxBashExecutor);
    assert.equal(root.TaskRegistry, (await import(`${NAME}/tasks`)).TaskRegistry);
  });

  it("keeps the seam to the executor, its vocabulary and its errors (the task errors are in /tasks)", async () => {
    assert.deepEqual(Object.keys(await import(`${NAME}/seam`)).sort(), [
      "BashConfigError",
      "BashError",
      "BashExecutor",
      "BashSpawnError",
      "MANAGED_ENV_PREFIX",
      "MAX_TERMINAL_CELLS",
      "SANDBOX_MODES",
      "SandboxUnavailableError",
      "isSandboxMode",
      "scrubbedParentEnv",
      "shellQuote",
      "widerSandboxModes",
    ]);
  });

  it("keeps /tool to the tools, their formats and adapters, the rules and the harness helpers", async () => {
    assert.deepEqual(Object.keys(await import(`${NAME}/tool`)).sort(), [
      "BASH_TOOL_GUIDANCE",
      "MIN_REDACTED_LENGTH",
      "TOOL_SCHEMA_TARGETS",
      "TextScreen",
      "ToolCallError",
      "bashTaskHooks",
      "checkCommandRules",
      "checkRuleSet",
      "createBashTools",
      "createGitCommitTool",
      "redactSecrets",
      "renderRunResult",
      "scrubbedSecrets",
      "toAiSdkTools",
      "toAnthropicTool",
      "toMcpTool",
      "toOpenAIAgentsTools",
      "toOpenAIResponsesTool",
      "toOpenAITool",
      "toolStandardSchema",
    ]);
  });

  it("keeps /xterm (npm only; Deno maps it to the source) to the emulator's screen", async () => {
    assert.deepEqual(Object.keys(await import(`${NAME}/xterm`)).sort(), [
      "XtermScreen",
      "xtermScreen",
    ]);
  });
});
