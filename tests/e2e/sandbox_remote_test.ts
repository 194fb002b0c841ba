// The Landlock launcher when the library is loaded from a remote URL (as from
// JSR): the sources are served over HTTP on loopback to a separate deno
// process with an empty DENO_DIR, and the launcher must not need to fetch
// anything of its own (nor type-check) once they are loaded.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { probeHere, skipUnless, tempWorkspace } from "../sandbox/_fixtures.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const deno = findDeno(process.env.PATH);
const skip = !("Deno" in globalThis)
  ? "serves the TypeScript sources, which only a Deno checkout of the repository has"
  : "reason" in deno
  ? deno.reason
  : skipUnless(await probeHere(), "landlock");

describe("the Landlock backend loaded from a remote URL", { skip }, () => {
  it("writes its launcher from memory and confines the command", async () => {
    assert.ok(!("reason" in deno));
    using workspace = tempWorkspace();
    const requested: string[] = [];
    // Once the script says its imports are loaded, the network is gone: any
    // later request (a launcher fetched by URL) is refused and recorded.
    const late: string[] = [];
    let loaded = false;
    const server = createServer((request, response) => {
      const path = normalize(decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
      if (loaded || path === "/loaded") {
        if (path === "/loaded") loaded = true;
        else late.push(path);
        response.writeHead(path === "/loaded" ? 204 : 503).end();
        return;
      }
      requested.push(path);
      const file = join(ROOT, path);
      if (!file.startsWith(ROOT) || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/typescript" });
      response.end(readFileSync(file));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const address = server.address();
    assert.ok(address !== null && typeof address === "object");
    const origin = `127.0.0.1:${address.port}`;
    const script = join(workspace.base, "remote.ts");
    writeFileSync(
      script,
      `import { SandboxBashExecutor } from "http://${origin}/sandbox/mod.ts";
await (await fetch("http://${origin}/loaded")).body?.cancel();
await using executor = new SandboxBashExecutor({
  workspaceRoot: ${JSON.stringify(workspace.root)},
  backends: ["landlock"],
});
const result = await executor.run(executor.resolve({ command: "echo x > out.txt" }));
console.log(JSON.stringify(result.sandbox));
`,
    );
    try {
      await using executor = new LocalBashExecutor({ cwd: workspace.base });
      const result = await executor.run(executor.resolve({
        command: `"$DENO" run --no-config --no-lock --allow-all remote.ts`,
        env: { DENO: deno.path, DENO_DIR: join(workspace.base, "deno-dir") },
        timeoutMs: 60_000,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      const facts = JSON.parse(result.stdout.text);
      assert.equal(facts.backend, "landlock");
      assert.equal(facts.denied, true);
      assert.equal(existsSync(join(workspace.root, "out.txt")), false);
      assert.ok(requested.includes("/sandbox/mod.ts"));
      assert.equal(loaded, true);
      assert.deepEqual(late, [], "something was fetched after the imports had loaded");
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
