// The Landlock backend for a user who is not root: util-linux unshare gives
// the launcher a user and mount namespace, where it mounts the read-only view
// as root does (protected paths bound back read-only, metadata confined);
// without one, Landlock alone keeps the writes in the writable roots and the
// gaps it leaves must be named. The tests run as root; the executor runs as
// nobody in a separate deno process.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import type { BashSandboxInfo } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { METADATA_GAP, protectedPathsGap } from "../../sandbox/backends/landlock/_landlock.ts";
import { DEFAULT_PROTECTED_PATHS } from "../../sandbox/mod.ts";
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
  lchownSync(path, NOBODY, NOBODY);
  for (const name of readdirSync(path, { recursive: true, encoding: "utf8" })) {
    lchownSync(join(path, name), NOBODY, NOBODY);
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
    // A search path with deno and nothing else: no unshare, so no user namespace.
    const bare = join(workspace.base, "bare-bin");
    mkdirSync(bare);
    symlinkSync(deno.path, join(bare, "deno"));
    const { port, accepted, server } = await listener();
    const script = join(workspace.base, "nonroot.ts");
    writeFileSync(
      script,
      `import { formatDoctorReport, SandboxBashExecutor, shellseamDoctor } from ${
        JSON.stringify(join(ROOT, "sandbox/mod.ts"))
      };
const facts: Record<string, unknown> = {};
facts.doctor = formatDoctorReport(await shellseamDoctor({
  workspaceRoot: ${JSON.stringify(workspace.root)},
  backends: ["landlock"],
  searchPath: ${JSON.stringify(bare)},
}));
for (const [setup, searchPath] of [["namespace", undefined], ["bare", ${JSON.stringify(bare)}]]) {
  await using executor = new SandboxBashExecutor({
    workspaceRoot: ${JSON.stringify(workspace.root)},
    defaultMode: "workspace-write",
    backends: ["landlock"],
    ...(searchPath === undefined ? {} : { searchPath }),
  });
  for (const [name, command] of Object.entries(${
        JSON.stringify({
          inside: "{ id -u; tr -s ' ' < /proc/self/uid_map; } > in-$SETUP.txt",
          beside: `echo x > '${beside}'`,
          git: "echo 'exit 0' > .git/hooks/pre-commit-$SETUP",
          network: `exec 3<>/dev/tcp/127.0.0.1/${port}`,
        })
      })) {
    const result = await executor.run(executor.resolve({ command, env: { SETUP: setup } }));
    facts[setup + "." + name] = {
      exitCode: result.exitCode,
      sandbox: result.sandbox,
      stderr: result.stderr.text,
    };
  }
}
console.log(JSON.stringify(facts));
`,
    );
    // Everything here is nobody's, so only the sandbox stands in the way.
    giveToNobody(workspace.base);
    try {
      await using executor = new LocalBashExecutor({ cwd: workspace.base });
      const nobody = `setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups`;
      const namespaces = await executor.run(executor.resolve({
        command: `${nobody} unshare --user --map-current-user --keep-caps --mount true`,
      }));
      const result = await executor.run(executor.resolve({
        command: `exec ${nobody} "$DENO" run --no-config --no-lock --allow-all nonroot.ts`,
        env: { DENO: deno.path, HOME: home, DENO_DIR: join(home, "deno-dir") },
        timeoutMs: 60_000,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      type Facts = { exitCode: number | null; sandbox: BashSandboxInfo; stderr: string };
      const facts = JSON.parse(result.stdout.text) as Record<string, Facts> & { doctor: string };
      // Without a user namespace, the doctor names the protected paths gap too.
      assert.ok(
        facts.doctor.includes(`gap: ${
          protectedPathsGap(
            DEFAULT_PROTECTED_PATHS,
            '"unshare" was not found on PATH; install util-linux',
          )
        }`),
        facts.doctor,
      );

      for (const setup of ["namespace", "bare"]) {
        const fact = (name: string): Facts => facts[`${setup}.${name}`]!;
        const inside = fact("inside");
        assert.equal(inside.exitCode, 0, inside.stderr);
        // The command sees its own uid, in a user namespace too (nobody's uid
        // is also the overflow uid, so the map itself is checked: 1:1).
        const [uid, map] = readFileSync(join(workspace.root, `in-${setup}.txt`), "utf8").split(
          "\n",
        );
        assert.equal(uid, `${NOBODY}`);
        const mapped = setup === "namespace" && namespaces.exitCode === 0;
        assert.equal(map?.trim(), mapped ? `${NOBODY} ${NOBODY} 1` : "0 0 4294967295");
        assert.equal(inside.sandbox.denied, false);
        const gaps = inside.sandbox.enforcement?.gaps ?? [];

        const outside = fact("beside");
        assert.notEqual(outside.exitCode, 0);
        assert.equal(
          existsSync(beside),
          false,
          "Landlock let a write beside the workspace through",
        );
        assert.equal(outside.sandbox.denied, true, outside.stderr);
        assert.equal(outside.sandbox.denial, "filesystem");

        const git = fact("git");
        const hook = join(workspace.root, ".git", "hooks", `pre-commit-${setup}`);
        if (setup === "namespace" && namespaces.exitCode === 0) {
          // The read-only view: .git bound back read-only, metadata confined.
          assert.notEqual(git.exitCode, 0);
          assert.equal(existsSync(hook), false, "a hook was planted in .git");
          assert.equal(git.sandbox.denied, true, git.stderr);
          assert.equal(inside.sandbox.enforcement?.filesystem, "full");
          assert.equal(gaps.includes(METADATA_GAP), false);
          assert.equal(gaps.some((gap) => gap.startsWith("`.git` can be")), false);
        } else {
          // Landlock cannot narrow a subtree: .git stays writable, and says so.
          assert.equal(git.exitCode, 0, git.stderr);
          assert.equal(existsSync(hook), true);
          assert.equal(inside.sandbox.enforcement?.filesystem, "partial");
          assert.ok(gaps.includes(METADATA_GAP), "the metadata gap is named");
          const reason = setup === "bare"
            ? '"unshare" was not found on PATH; install util-linux'
            : namespaces.stderr.text.trim();
          assert.ok(
            gaps.some((gap) =>
              gap.startsWith(protectedPathsGap(DEFAULT_PROTECTED_PATHS, "").split(" (")[0]!) &&
              (setup !== "bare" || gap.endsWith(`${reason})`))
            ),
            gaps.join("\n"),
          );
        }

        const network = fact("network");
        assert.notEqual(network.exitCode, 0);
        assert.equal(network.sandbox.denial, "network", network.stderr);
      }
      assert.equal(accepted(), 0, "the listener saw a connection");
    } finally {
      await closeServer(server);
    }
  });
});
