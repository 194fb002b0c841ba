// Every default protected path (the files other programs run or obey later,
// unconfined) can be neither written, replaced nor created by a confined
// command, at a writable root or in a nested package, nor can the folder a
// repository's core.hooksPath names: over each backend, as root and as
// nobody, checked from the host afterwards.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import type { BashSandboxInfo } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { DEFAULT_PROTECTED_PATHS } from "../../sandbox/mod.ts";
import type { GitCommitResult } from "../../git/mod.ts";
import { probeHere, SANDBOX_BACKENDS, skipUnless, tempWorkspace } from "../sandbox/_fixtures.ts";
import { testGit } from "../_git.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOBODY = 65534;
const statuses = await probeHere();
const deno = findDeno(process.env.PATH);
const needs = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : "reason" in deno
  ? deno.reason
  : findOnPath("git", process.env.PATH) === null
  ? "git is not installed here; install git"
  : false;
const nobodyNeeds = process.getuid?.() !== 0 ||
    findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : false;

/** The default names that are folders in a real workspace; the others are files. */
const FOLDERS = new Set([
  ".git",
  ".config/git",
  ".husky",
  ".vscode",
  ".idea",
  ".claude",
  ".codex",
  ".shellseam",
  ".ssh",
]);

/** The executor's side, run as the user under test: one workspace-write call, printed as JSON. */
const CHILD = `
import { SandboxBashExecutor } from ${JSON.stringify(join(ROOT, "sandbox/mod.ts"))};
import { gitCommit } from ${JSON.stringify(join(ROOT, "git/mod.ts"))};
const { backend, root, command } = JSON.parse(Deno.args[0]);
await using executor = new SandboxBashExecutor({
  workspaceRoot: root,
  defaultMode: "workspace-write",
  backends: [backend],
});
const result = await executor.run(executor.resolve({ command }));
// The harness commits what the command changed, on the host.
const commit = await gitCommit({
  workspaceRoot: root,
  cwd: root + "/app",
  paths: ["file.txt"],
  message: "From the sandbox",
  author: { name: "Agent", email: "agent@example.com" },
});
console.log(JSON.stringify({ exitCode: result.exitCode, stdout: result.stdout.text, sandbox: result.sandbox, commit }));
`;

/** git as the test runs it (as root, before the workspace is given away): nothing planted runs. */
function git(cwd: string, ...args: string[]): string {
  return testGit(cwd, ["safe.directory=*"], args);
}

/** What `path` holds, as the host sees it: a file's text, or a folder's entries and `keep`. */
function contents(path: string): string {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) {
    return `${stat.isSymbolicLink() ? "link" : "file"} ${readFileSync(path)}`;
  }
  return `dir ${readdirSync(path).sort().join(",")} ${readFileSync(join(path, "keep"))}`;
}

/** The workspace (owned by `uid`) and the command that attacks it. */
function prepare(root: string): { command: string; existing: string[]; missing: string[] } {
  const existing: string[] = [];
  const missing: string[] = [];
  const attempts: string[] = [];
  mkdirSync(join(root, "pkg"));
  for (const name of DEFAULT_PROTECTED_PATHS) {
    const path = join(root, name);
    if (FOLDERS.has(name)) {
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, "keep"), "safe\n");
      // Write into it, replace a file in it, replace it whole, rename it away.
      attempts.push(
        `echo evil >> ${name}/keep`,
        `echo evil > ${name}/new`,
        `rm -rf ${name}`,
        `mv ${name} ${name}.old`,
        `mkdir -p ${name}`,
      );
    } else {
      writeFileSync(path, "safe\n");
      attempts.push(
        `echo evil >> ${name}`,
        `echo evil > ${name}.tmp && mv -f ${name}.tmp ${name}`,
        `rm -f ${name}`,
        `ln -sf /etc/passwd ${name}`,
      );
    }
    existing.push(path);
    // Missing in a nested package: created, as a folder or a file.
    missing.push(join(root, "pkg", name));
    attempts.push(
      FOLDERS.has(name)
        ? `mkdir -p pkg/${name} && echo evil > pkg/${name}/keep`
        : `echo evil > pkg/${name}`,
    );
  }
  // A repository nested in the workspace whose hooks live in its working tree
  // (existing), and one whose hooks folder does not exist yet.
  for (const [repo, hooks, exists] of [["app", "tools/hooks", true], ["lib", ".hooks", false]]) {
    const dir = join(root, repo as string);
    mkdirSync(dir);
    git(dir, "init", "-q", "-b", "main");
    writeFileSync(join(dir, "file.txt"), "first\n");
    git(dir, "add", "file.txt");
    git(dir, "commit", "-q", "-m", "first");
    git(dir, "config", "core.hooksPath", hooks as string);
    const folder = join(dir, hooks as string);
    if (exists) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "keep"), "safe\n");
      existing.push(folder);
    } else missing.push(folder);
    attempts.push(
      `mkdir -p ${repo}/${hooks} && printf '#!/bin/sh\\ntouch canary\\n' > ${repo}/${hooks}/pre-commit`,
    );
  }
  // Change a file, and plant hooks where git looks by default: .git is read-only.
  attempts.push(
    "echo changed > app/file.txt",
    `printf '#!/bin/sh\\ntouch canary\\n' > app/.git/hooks/post-commit`,
    "chmod +x app/.git/hooks/*",
    "echo attempted",
  );
  return { command: attempts.join("; "), existing, missing };
}

for (const backend of SANDBOX_BACKENDS) {
  for (const uid of [0, NOBODY]) {
    const user = uid === 0 ? "root" : "nobody";
    const skip = needs || skipUnless(statuses, backend) || (uid !== 0 && nobodyNeeds);
    describe(`default protected paths over ${backend}, as ${user}`, { skip }, () => {
      it("can be neither written, replaced nor created, at the root or nested", async () => {
        assert.ok(!("reason" in deno));
        using workspace = tempWorkspace();
        const { base, root } = workspace;
        const { command, existing, missing } = prepare(root);
        const before = existing.map(contents);
        const home = join(base, "home");
        mkdirSync(home);
        const script = join(base, "child.ts");
        writeFileSync(script, CHILD);
        if (uid !== 0) {
          for (const name of ["", ...readdirSync(base, { recursive: true, encoding: "utf8" })]) {
            lchownSync(join(base, name), NOBODY, NOBODY);
          }
        }
        await using executor = new LocalBashExecutor({ cwd: base });
        const as = uid === 0 ? "" : `setpriv --reuid=${uid} --regid=${uid} --clear-groups `;
        const result = await executor.run(executor.resolve({
          command: `exec ${as}"$DENO" run --no-config --no-lock --allow-all child.ts "$SPEC"`,
          env: {
            DENO: deno.path,
            HOME: home,
            DENO_DIR: join(home, "deno-dir"),
            SPEC: JSON.stringify({ backend, root, command }),
          },
          timeoutMs: 120_000,
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        const outcome = JSON.parse(result.stdout.text) as {
          stdout: string;
          sandbox: BashSandboxInfo;
          commit: GitCommitResult;
        };
        // The command ran to its end (each attempt failed or was undone).
        assert.equal(outcome.stdout, "attempted\n");
        // Existing ones: untouched, same kind, same contents, nothing beside them.
        assert.deepEqual(existing.map(contents), before);
        for (const path of existing) assert.equal(existsSync(`${path}.old`), false, path);
        // Missing ones: moved to the quarantine when the call ended, each named.
        for (const path of missing) assert.equal(existsSync(path), false, path);
        const moved = (outcome.sandbox.violations ?? []).map((v) => v.path).sort();
        assert.deepEqual(moved, [...missing].sort());
        assert.ok(outcome.sandbox.violations?.every((v) => v.quarantinedTo !== null));
        // Nothing the command made at a root name went unnoticed (the .tmp files are ordinary,
        // and so is the .config folder that held .config/git).
        assert.deepEqual(
          readdirSync(join(root, "pkg")).filter((name) => !name.endsWith(".tmp")),
          [".config"],
        );
        assert.deepEqual(readdirSync(join(root, "pkg", ".config")), []);
        // The change is committed by the host-side helper; the planted hook
        // never reached .git, and no hook ran.
        const app = join(root, "app");
        assert.equal(outcome.commit.commit, git(app, "rev-parse", "HEAD").trim());
        assert.equal(git(app, "show", "HEAD:file.txt"), "changed\n");
        assert.equal(existsSync(join(app, ".git", "hooks", "post-commit")), false);
        assert.equal(existsSync(join(app, "canary")), false);
      });
    });
  }
}
