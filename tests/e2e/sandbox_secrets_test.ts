// Secrets stay unread and Unix sockets stay closed, over each backend, as
// root (this process) and as nobody (a Deno process started with setpriv):
// every default denyRead path in a fake home, an allowRead carve-out, a Unix
// socket server that the test runs, and the common tools that must keep
// working with Unix sockets refused. Then the tool's rendering: a withheld
// read and the redaction of scrubbed values.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { findOnPath } from "../../engine/_session.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { DEFAULT_DENY_READ } from "../../sandbox/mod.ts";
import { LATE_SOCKETS_GAP } from "../../sandbox/backends/_backend.ts";
import { LISTED_SECRETS_GAP } from "../../sandbox/backends/landlock/_landlock.ts";
import { createBashTools } from "../../tool/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  closeServer,
  executorFor,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  skipWithoutPython,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";
import {
  connectCommand,
  DENIED_FOLDERS,
  type Fact,
  NODE_TEST,
  probeSecrets,
  secretFile,
  type SecretsSetup,
} from "./_secrets_probe.ts";
import type { SandboxBackendName } from "../../sandbox/mod.ts";

const statuses = await probeHere();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOBODY = 65534;
const deno = findDeno(process.env.PATH);
const nobodySkip = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0 || findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : "reason" in deno
  ? deno.reason
  : false;
const needsTools = skipWithoutPython() ||
  (findOnPath("node", process.env.PATH) === null
    ? "node is not installed here; install it to run the Unix socket and tool probes"
    : false);

/** The secret a denied path holds: a marker that must never show in a command's output. */
const contentOf = (path: string): string => `SECRET-CONTENT-${path}`;

/** A fake home with every default denied path, a plain file and a carve-out. */
function fakeHome(workspace: Workspace): string {
  const home = join(workspace.base, "home");
  for (const path of DEFAULT_DENY_READ) {
    const file = secretFile(home, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, contentOf(path));
  }
  writeFileSync(join(home, ".ssh", "known_hosts"), "known-hosts-content");
  writeFileSync(join(home, "plain"), "plain-content");
  writeFileSync(join(workspace.root, "probe.test.mjs"), NODE_TEST);
  return home;
}

/** A Unix socket server at `path`, open to every user, counting what it accepts. */
async function unixServer(path: string): Promise<{ server: Server; accepted: () => number }> {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    socket.end();
  });
  await new Promise<void>((done) => server.listen(path, done));
  chmodSync(path, 0o777);
  return { server, accepted: () => accepted };
}

/** Asserts what the probe found; `nobody` when an ordinary user ran it. */
function assertFacts(
  backend: SandboxBackendName,
  home: string,
  facts: Record<string, Fact>,
  accepted: { listed: number; unlisted: number },
  nobody: boolean,
): void {
  const withheld = (name: string, fact: Fact | undefined) => {
    assert.ok(fact, name);
    const shown = `${name}: ${JSON.stringify(fact)}`;
    assert.notEqual(fact.exitCode, 0, shown);
    assert.doesNotMatch(fact.stdout, /SECRET-CONTENT/, shown);
    assert.match(fact.stderr, /Permission denied/, shown);
    assert.doesNotMatch(fact.stderr, /No such file/, shown);
    assert.equal(fact.sandbox?.denied, true, shown);
    assert.equal(fact.sandbox?.denial, "secret", shown);
  };
  for (const path of DEFAULT_DENY_READ) withheld(`read ${path}`, facts[`read ${path}`]);
  withheld("read under workspace-write", facts["read under workspace-write"]);
  withheld("beside the carve-out", facts["beside the carve-out"]);
  // Landlock without a mount view (another user, no user namespace here)
  // grants listing by subtree, and says so; everything else masks.
  const listable = facts["read ~/.ssh"]!.sandbox?.enforcement?.gaps.includes(LISTED_SECRETS_GAP) ??
    false;
  if (listable) assert.ok(backend === "landlock" && nobody, "only Landlock for another user");
  const inWorkspace = facts["read in a workspace that is the home"]!;
  if (listable) {
    // Landlock grants a writable root's reads whole: a named gap.
    assert.ok(
      inWorkspace.sandbox?.enforcement?.gaps.some((gap) =>
        gap.startsWith(
          `${realpathSync(secretFile(home, "~/.ssh")).replace(/\/secret$/, "")} readable`,
        )
      ),
      JSON.stringify(inWorkspace),
    );
  } else {
    withheld("read in a workspace that is the home", inWorkspace);
  }
  for (const path of DENIED_FOLDERS) {
    const fact = facts[`list ${path}`]!;
    if (listable) {
      assert.ok(fact.sandbox?.enforcement?.gaps.includes(LISTED_SECRETS_GAP), path);
      assert.doesNotMatch(fact.stdout, /SECRET-CONTENT/);
    } else {
      assert.notEqual(fact.exitCode, 0, `list ${path}: ${JSON.stringify(fact)}`);
      assert.equal(fact.stdout, "", path);
      assert.equal(fact.sandbox?.denial, "secret", `list ${path}: ${JSON.stringify(fact)}`);
    }
  }
  const plain = facts["read a file beside the secrets"]!;
  assert.equal(plain.stdout, "plain-content", JSON.stringify(plain));
  const carved = facts["carved out"]!;
  assert.equal(carved.exitCode, 0, JSON.stringify(carved));
  assert.equal(carved.stdout, "known-hosts-content");

  const refused = facts["connect under deny"]!;
  assert.notEqual(refused.exitCode, 0, JSON.stringify(refused));
  assert.doesNotMatch(refused.stdout, /connected/);
  assert.equal(refused.sandbox?.denial, "network", JSON.stringify(refused));
  assert.equal(refused.sandbox?.enforcement?.gaps.includes("Unix sockets not confined"), false);
  const listed = facts["connect to a listed socket"]!;
  assert.equal(listed.exitCode, 0, JSON.stringify(listed));
  assert.equal(listed.stdout, "connected\n");
  const unlisted = facts["connect to an unlisted socket"]!;
  const gaps = unlisted.sandbox?.enforcement?.gaps ?? [];
  if (listable) {
    // Landlock for an ordinary user cannot mask the others, and says so.
    assert.ok(gaps.includes("Unix sockets not confined"), `${gaps}`);
    assert.deepEqual(accepted, { listed: 1, unlisted: 1 });
  } else {
    assert.notEqual(unlisted.exitCode, 0, JSON.stringify(unlisted));
    assert.equal(unlisted.sandbox?.denial, "network", JSON.stringify(unlisted));
    assert.ok(gaps.includes(LATE_SOCKETS_GAP), `${gaps}`);
    assert.deepEqual(accepted, { listed: 1, unlisted: 0 });
  }

  for (const name of ["git", "npm", "python", "nodeTestRunner", "getaddrinfo"]) {
    const fact = facts[`tool ${name}`]!;
    assert.equal(fact.exitCode, 0, `${name}: ${JSON.stringify(fact)}`);
  }
  assert.equal(facts["tool git"]!.stdout, "1\n", JSON.stringify(facts["tool git"]));
  assert.equal(facts["tool python"]!.stdout, "b'x' 0\n", JSON.stringify(facts["tool python"]));
  assert.match(facts["tool getaddrinfo"]!.stdout, /localhost/);
}

/** Everything the probe needs, with the two socket servers; disposing closes them. */
async function prepare(
  backend: SandboxBackendName,
  workspace: Workspace,
): Promise<
  { setup: SecretsSetup; accepted: () => { listed: number; unlisted: number } } & AsyncDisposable
> {
  const home = fakeHome(workspace);
  const socket = join(workspace.base, "listed.sock");
  const otherSocket = join(workspace.base, "unlisted.sock");
  const listed = await unixServer(socket);
  const unlisted = await unixServer(otherSocket);
  return {
    setup: { backend, workspaceRoot: workspace.root, home, socket, otherSocket },
    accepted: () => ({ listed: listed.accepted(), unlisted: unlisted.accepted() }),
    [Symbol.asyncDispose]: async () => {
      await closeServer(listed.server);
      await closeServer(unlisted.server);
    },
  };
}

/** Gives `path` and everything beneath it to nobody. */
function giveToNobody(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const name of readdirSync(path, { recursive: true, encoding: "utf8" })) {
    chownSync(join(path, name), NOBODY, NOBODY);
  }
}

for (const backend of SANDBOX_BACKENDS) {
  const skip = skipUnless(statuses, backend) || needsTools;

  describe(`secrets and Unix sockets over ${backend}`, { skip }, () => {
    it("as root: secrets are withheld, a carve-out reads, only a listed socket answers, tools work", async () => {
      using workspace = tempWorkspace();
      await using prepared = await prepare(backend, workspace);
      const facts = await probeSecrets(prepared.setup);
      assertFacts(backend, prepared.setup.home, facts, prepared.accepted(), false);
    });

    it("a socket in another executor's private folder (hidden from the command) does not stop a launch", async () => {
      using workspace = tempWorkspace();
      await using other = executorFor(backend, workspace);
      const otherTmp = (await other.run({ command: 'printf %s "$TMPDIR"' })).stdout.text;
      assert.match(otherTmp, /shellseam-exec-/);
      const peer = await unixServer(join(otherTmp, "peer.sock"));
      const listed = await unixServer(join(workspace.base, "listed.sock"));
      try {
        await using executor = executorFor(backend, workspace, {
          allowUnixSockets: [join(workspace.base, "listed.sock")],
        });
        const result = await executor.run({ command: "echo ran" });
        assert.equal(result.stdout.text, "ran\n", JSON.stringify(result));
        assert.equal(result.sandbox?.runnerFailed, false);
      } finally {
        await closeServer(peer.server);
        await closeServer(listed.server);
      }
    });

    it("a listed folder keeps every socket below it reachable, and only those", async () => {
      using workspace = tempWorkspace();
      mkdirSync(join(workspace.base, "sockets", "app"), { recursive: true });
      const below = await unixServer(join(workspace.base, "sockets", "app", "below.sock"));
      const beside = await unixServer(join(workspace.base, "beside.sock"));
      try {
        await using executor = executorFor(backend, workspace, {
          allowUnixSockets: [join(workspace.base, "sockets")],
        });
        const reached = await executor.run({
          command: connectCommand(join(workspace.base, "sockets", "app", "below.sock")),
        });
        assert.deepEqual([reached.exitCode, reached.stdout.text], [0, "connected\n"]);
        const refused = await executor.run({
          command: connectCommand(join(workspace.base, "beside.sock")),
        });
        assert.notEqual(refused.exitCode, 0);
        assert.equal(refused.sandbox?.denial, "network", refused.stderr.text);
        assert.deepEqual([below.accepted(), beside.accepted()], [1, 0]);
      } finally {
        await closeServer(below.server);
        await closeServer(beside.server);
      }
    });

    it("as nobody: the same, or a named gap", { skip: nobodySkip }, async () => {
      assert.ok(!("reason" in deno));
      using workspace = tempWorkspace();
      await using prepared = await prepare(backend, workspace);
      const script = join(workspace.base, "probe.ts");
      writeFileSync(
        script,
        `import { probeSecrets } from ${
          JSON.stringify(join(ROOT, "tests/e2e/_secrets_probe.ts"))
        };\nconsole.log(JSON.stringify(await probeSecrets(${JSON.stringify(prepared.setup)})));\n`,
      );
      // Everything here is nobody's, so only the sandbox stands in the way.
      giveToNobody(workspace.base);
      await using runner = new LocalBashExecutor({ cwd: workspace.base });
      const result = await runner.run(runner.resolve({
        command: `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups ` +
          `"$DENO" run --no-config --no-lock --allow-all probe.ts`,
        env: {
          DENO: deno.path,
          HOME: prepared.setup.home,
          DENO_DIR: join(workspace.base, "deno-dir"),
        },
        timeoutMs: 300_000,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      const facts = JSON.parse(result.stdout.text) as Record<string, Fact>;
      assertFacts(backend, prepared.setup.home, facts, prepared.accepted(), true);
    });
  });

  describe(`secrets over ${backend}, after the private folder is gone`, { skip }, () => {
    it("a denied file stays denied when an unconfined command removed the private folder", async () => {
      using workspace = tempWorkspace();
      const home = fakeHome(workspace);
      await using executor = executorFor(backend, workspace, {
        homeDir: home,
        maxOutputBytes: 1000,
      });
      const read = `cat '${secretFile(home, "~/.npmrc")}'`;
      // Ten times: each removal runs right after a call, while the standby
      // for the next one starts (it once wrote deno's caches into the folder
      // then, and the removal failed with "Directory not empty").
      for (let round = 1; round <= 10; round++) {
        const before = await executor.run(executor.resolve({ command: `seq 1 5000; ${read}` }));
        assert.equal(before.sandbox?.denial, "secret", before.stderr.text);
        const privateDir = dirname(before.stdout.spillPath ?? "");
        assert.match(privateDir, /\/shellseam-/);
        const removal = await executor.run(executor.resolve({
          command: `rm -rf '${privateDir}'`,
          sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
        }));
        assert.equal(removal.exitCode, 0, `round ${round}: ${removal.stderr.text}`);
        const after = await executor.run(executor.resolve({ command: read }));
        assert.equal(after.sandbox?.runnerFailed, false, after.stderr.text);
        assert.equal(after.sandbox?.denial, "secret", after.stderr.text);
        assert.doesNotMatch(after.stdout.text, /SECRET-CONTENT/);
        if (backend === "landlock") {
          // The launcher's runtime writes nothing there: the Deno launcher's
          // file is all the folder holds, and the Perl launcher needs none.
          assert.deepEqual(
            readdirSync(join(privateDir, "deno")),
            after.sandbox?.enforcement?.launcher === "deno" ? ["landlock-launcher.mjs"] : [],
          );
        }
      }
    });
  });

  describe(`the bash tool over the ${backend} sandbox, on secrets`, { skip }, () => {
    it("says a withheld read is policy, and redacts the values the scrub removed", async () => {
      using workspace = tempWorkspace();
      const home = fakeHome(workspace);
      const name = "E2E_REDACT_TOKEN";
      const value = `e2e-secret-${process.pid}-value`;
      process.env[name] = value;
      try {
        await using executor = executorFor(backend, workspace, { homeDir: home });
        await using tasks = new TaskRegistry();
        const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
        const withheld = await bash.execute({
          command: `cat '${secretFile(home, "~/.ssh")}'`,
          description: "Read a key",
        });
        assert.equal(withheld.isError, true);
        assert.match(withheld.text, /\[sandbox: read withheld by policy under read-only mode/);
        assert.doesNotMatch(withheld.text, /SECRET-CONTENT/);

        writeFileSync(join(workspace.root, "leak.txt"), `token: ${value}\n`);
        const echoed = await bash.execute({ command: "cat leak.txt", description: "Show it" });
        assert.equal(echoed.text, `token: [redacted: ${name}]\n[exit code: 0]`);
      } finally {
        delete process.env[name];
      }
    });
  });
}
