// `deno run <permissions> jsr:@shellseam/cli mcp`, as a user starts it without
// a checkout. JSR is not reachable here, so the sources are served over HTTP
// on loopback the way JSR serves a published package: each package's bare
// imports rewritten to URLs (the library's own files to their URLs, npm
// packages to `npm:` specifiers pinned in the package's deno.json). The server
// runs under exactly the permission set the README documents, not -A.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { probeHere, tempWorkspace } from "../sandbox/_fixtures.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const statuses = await probeHere();
const skip = !("Deno" in globalThis)
  ? "serves the TypeScript sources, which only a Deno checkout of the repository has"
  : statuses.bwrap.works || statuses.landlock.works
  ? false
  : "no sandbox backend works here (install bubblewrap, or Deno on a Landlock kernel)";

/** The permission set the README gives for `shellseam mcp` (the sandbox's). */
function permissions(workspace: string): string[] {
  return [
    "--allow-run=bash,setsid,bwrap,deno,unshare",
    "--allow-env",
    "--allow-read",
    `--allow-write=/tmp,${workspace}`,
    "--allow-sys=uid",
  ];
}

/** `source` with its bare imports rewritten as JSR does at publish time. */
function asPublished(source: string, origin: string, npm: Record<string, string>): string {
  return source.replace(
    /((?:from|import)\s*\(?\s*)(["'])([^"'./][^"']*)\2/g,
    (all, head: string, quote: string, specifier: string) => {
      if (specifier.startsWith("node:") || specifier.includes(":")) return all;
      if (specifier === "@shellseam/bash" || specifier.startsWith("@shellseam/bash/")) {
        const sub = specifier.slice("@shellseam/bash".length).replace(/^\//, "");
        return `${head}${quote}${origin}/${sub === "" ? "mod.ts" : `${sub}/mod.ts`}${quote}`;
      }
      for (const [name, target] of Object.entries(npm)) {
        if (specifier === name || specifier.startsWith(`${name}/`)) {
          return `${head}${quote}${target}${specifier.slice(name.length)}${quote}`;
        }
      }
      return all;
    },
  );
}

describe("shellseam mcp started from a URL, as from JSR", { skip }, () => {
  it("serves the tools under the documented permissions, confined", async () => {
    using workspace = tempWorkspace();
    const cliJson = JSON.parse(readFileSync(join(ROOT, "cli", "deno.json"), "utf8"));
    const npm = Object.fromEntries(
      Object.entries<string>(cliJson.imports).filter(([name]) => !name.endsWith("/")),
    );
    const server = createServer((request, response) => {
      const path = normalize(decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
      const file = join(ROOT, path);
      if (!file.startsWith(ROOT) || !existsSync(file) || !file.endsWith(".ts")) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/typescript" });
      response.end(asPublished(readFileSync(file, "utf8"), origin, npm));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const address = server.address();
    assert.ok(address !== null && typeof address === "object");
    const origin = `http://127.0.0.1:${address.port}`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "run",
        "--no-config",
        "--no-lock",
        ...permissions(workspace.root),
        `${origin}/cli/main.ts`,
        "mcp",
        "--workspace",
        workspace.root,
      ],
      // The agent's environment as it is (the registry's certificates, the shared cache).
      env: Object.fromEntries(
        Object.entries(process.env).filter((entry): entry is [string, string] =>
          entry[1] !== undefined
        ),
      ),
      stderr: "inherit",
    });
    const client = new Client({ name: "shellseam-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool: Tool) => tool.name), [
        "bash",
        "task_output",
        "task_list",
        "task_kill",
      ]);
      const written = await client.callTool({
        name: "bash",
        arguments: { command: "echo hi > in.txt && cat in.txt", description: "Write a file" },
      }) as CallToolResult;
      assert.deepEqual(written.content, [{ type: "text", text: "hi\n[exit code: 0]" }]);
      const outside = join(workspace.base, "outside.txt");
      const denied = await client.callTool({
        name: "bash",
        arguments: { command: `echo x > ${outside}`, description: "Escape" },
      }) as CallToolResult;
      assert.equal(denied.isError, true);
      assert.equal(existsSync(outside), false);
    } finally {
      await client.close();
      await new Promise((done) => server.close(done));
    }
  });
});
