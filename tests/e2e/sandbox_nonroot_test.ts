// The Landlock backend for a user who is not root: no read-only mount view
// (only root may mount it), so Landlock alone must keep the writes in the
// writable roots, and the gaps it leaves must be named. The tests run as
// root; the executor runs as nobody in a separate deno process.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import type { BashSandboxInfo } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../local/_session.ts";
import { findDeno } from "../../sandbox/_deno.ts";
import { METADATA_GAP } from "../../sandbox/backends/_landlock.ts";
import {
  closeServer,
  listener,
  probeHere,
  skipUnless,
  tempWorkspace,
} from "../sandbox/_fixtures.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOBODY = 65534;
const deno = findDeno(process.env.PATH);
const skip = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0 || findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : "reason" in deno
  ? deno.reason
  : skipUnless(await probeHere(), "landlock");

/** Gives `path` and everything beneath it to nobody. */
function giveToNobody(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const name of readdirSync(path, { recursive: true, encoding: "utf8" })) {
    chownSync(join(path, name), NOBODY, NOBODY);
  }
}

describe("the Landlock backend for a user who is not root", { skip }, () => {
  it("keeps writes in the writable roots and the network out, and names its gaps", async () => {
    assert.ok(!("reason" in deno));
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.root, ".git", "hooks"), { recursive: true });
    const beside = join(workspace.base, "beside.txt");
    const home = join(workspace.base, "home");
    mkdirSync(home);
    const { port, accepted, server } = await listener();
    const script = join(workspace.base, "nonroot.ts");
    writeFileSync(
      script,
      `import { SandboxBashExecutor } from ${JSON.stringify(join(ROOT, "sandbox/mod.ts"))};
await using executor = new SandboxBashExecutor({
  workspaceRoot: ${JSON.stringify(workspace.root)},
  defaultMode: "workspace-write",
  backends: ["landlock"],
});
const facts: Record<string, unknown> = {};
for (const [name, command] of Object.entries(${
        JSON.stringify({
          inside: "echo in > in.txt",
          beside: `echo x > '${beside}'`,
          git: "echo 'exit 0' > .git/hooks/pre-commit",
          network: `exec 3<>/dev/tcp/127.0.0.1/${port}`,
        })
      })) {
  const result = await executor.run(executor.resolve({ command }));
  facts[name] = { exitCode: result.exitCode, sandbox: result.sandbox, stderr: result.stderr.text };
}
console.log(JSON.stringify(facts));
`,
    );
    // Everything here is nobody's, so only the sandbox stands in the way.
    giveToNobody(workspace.base);
    try {
      await using executor = new LocalBashExecutor({ cwd: workspace.base });
      const result = await executor.run(executor.resolve({
        command: `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups ` +
          `"$DENO" run --no-config --no-lock --allow-all nonroot.ts`,
        env: { DENO: deno.path, HOME: home, DENO_DIR: join(home, "deno-dir") },
        timeoutMs: 60_000,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      type Facts = { exitCode: number | null; sandbox: BashSandboxInfo; stderr: string };
      const facts = JSON.parse(result.stdout.text) as Record<
        "inside" | "beside" | "git" | "network",
        Facts
      >;
      const { inside, beside: outside, git, network } = facts;

      assert.equal(inside.exitCode, 0, inside.stderr);
      assert.equal(existsSync(join(workspace.root, "in.txt")), true);
      assert.equal(inside.sandbox.denied, false);
      assert.deepEqual(inside.sandbox.enforcement?.filesystem, "partial");
      const gaps = inside.sandbox.enforcement?.gaps ?? [];
      assert.ok(gaps.includes(METADATA_GAP), "the metadata gap is named");

      assert.notEqual(outside.exitCode, 0);
      assert.equal(existsSync(beside), false, "Landlock let a write beside the workspace through");
      assert.equal(outside.sandbox.denied, true, outside.stderr);
      assert.equal(outside.sandbox.denial, "filesystem");

      // Landlock cannot narrow a subtree: .git stays writable, and says so.
      assert.equal(git.exitCode, 0, git.stderr);
      assert.ok(
        gaps.includes(`${workspace.root}/.git not protected (Landlock cannot narrow a subtree)`),
      );

      assert.notEqual(network.exitCode, 0);
      assert.equal(network.sandbox.denial, "network", network.stderr);
      assert.equal(accepted(), 0, "the listener saw a connection");
    } finally {
      await closeServer(server);
    }
  });
});
