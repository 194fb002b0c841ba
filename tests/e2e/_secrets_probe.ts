// The commands of the secrets and Unix-socket e2e tests, run by one backend
// for whoever runs this module: the test process (root) or, for the
// ordinary user, a Deno process started as nobody that prints the facts as
// JSON. Everything the probe touches is made by the test beforehand.
import type { BashSandboxInfo } from "../../seam/mod.ts";
import {
  DEFAULT_DENY_READ,
  type SandboxBackendName,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
} from "../../sandbox/mod.ts";

/** The default denied paths made as folders (holding a `secret` file); the others are files. */
export const DENIED_FOLDERS: ReadonlySet<string> = new Set([
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.kube",
  "~/.config/gh",
  "~/.password-store",
  "~/.local/share/keyrings",
]);

/** What the probe runs against. */
export interface SecretsSetup {
  backend: SandboxBackendName;
  workspaceRoot: string;
  /** The fake home holding every default denied path. */
  home: string;
  /** A Unix socket the test listens on (and one more it never lists). */
  socket: string;
  otherSocket: string;
}

/** How one command ended. */
export interface Fact {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  sandbox: BashSandboxInfo | undefined;
}

/** The file a denied path's secret lives in (the `secret` file of a folder). */
export function secretFile(home: string, path: string): string {
  const full = `${home}/${path.slice(2)}`;
  return DENIED_FOLDERS.has(path) ? `${full}/secret` : full;
}

/** A command that connects to the Unix socket `path` and says whether it did. */
export function connectCommand(path: string): string {
  return `node -e 'const s = require("net").connect(process.argv[1]); ` +
    `s.on("connect", () => { console.log("connected"); s.end(); }); ' '${path}'`;
}

/**
 * A test file for node's test runner (in the workspace): its child talks
 * back over an IPC channel, a socketpair.
 */
export const NODE_TEST = `import { test } from "node:test";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
if (process.argv[2] === "child") {
  process.send("hi", () => process.disconnect());
} else {
  test("a forked child answers over IPC", async () => {
    const child = fork(fileURLToPath(import.meta.url), ["child"]);
    assert.equal(await new Promise((done) => child.once("message", done)), "hi");
  });
}
`;

/** What the common tools run under network deny (each must exit 0). */
export const TOOLS: Readonly<Record<string, string>> = Object.freeze({
  git: "git init -q repo && git -C repo -c user.name=t -c user.email=t@t commit -q " +
    "--allow-empty -m x && git -C repo log --oneline | wc -l",
  npm: "npm --version",
  python: "python3 -c 'import socket, subprocess; a, b = socket.socketpair(); " +
    'a.send(b"x"); print(b.recv(1), subprocess.run(["true"]).returncode)\'',
  nodeTestRunner: "node --test",
  getaddrinfo: "getent hosts localhost",
});

async function run(
  setup: SecretsSetup,
  config: Partial<SandboxBashExecutorConfig>,
  commands: Record<string, string>,
): Promise<Record<string, Fact>> {
  await using executor = new SandboxBashExecutor({
    workspaceRoot: setup.workspaceRoot,
    backends: [setup.backend],
    homeDir: setup.home,
    ...config,
  });
  const facts: Record<string, Fact> = {};
  for (const [name, command] of Object.entries(commands)) {
    // HOME is the fake home, as it is the agent's home in real use.
    const result = await executor.run(
      executor.resolve({ command, env: { HOME: setup.home }, timeoutMs: 60_000 }),
    );
    facts[name] = {
      exitCode: result.exitCode,
      stdout: result.stdout.text,
      stderr: result.stderr.text,
      sandbox: result.sandbox,
    };
  }
  return facts;
}

/** Runs every probe command; the keys name them. */
export async function probeSecrets(setup: SecretsSetup): Promise<Record<string, Fact>> {
  const { home } = setup;
  const reads = Object.fromEntries(
    DEFAULT_DENY_READ.map((path) => [`read ${path}`, `cat '${secretFile(home, path)}'`]),
  );
  const lists = Object.fromEntries(
    [...DENIED_FOLDERS].map((path) => [`list ${path}`, `ls '${home}/${path.slice(2)}'`]),
  );
  return {
    ...await run(setup, {}, {
      ...reads,
      ...lists,
      "read a file beside the secrets": `cat '${home}/plain'`,
      "connect under deny": connectCommand(setup.socket),
    }),
    ...await run(setup, { defaultMode: "workspace-write" }, {
      "read under workspace-write": `cat '${secretFile(home, "~/.ssh")}'`,
      ...Object.fromEntries(
        Object.entries(TOOLS).map(([name, command]) => [`tool ${name}`, command]),
      ),
    }),
    ...await run(setup, { workspaceRoot: home, defaultMode: "workspace-write" }, {
      "read in a workspace that is the home": `cat '${secretFile(home, "~/.ssh")}'`,
    }),
    ...await run(setup, { allowRead: ["~/.ssh/known_hosts"] }, {
      "carved out": "cat ~/.ssh/known_hosts",
      "beside the carve-out": `cat '${secretFile(home, "~/.ssh")}'`,
    }),
    ...await run(setup, { allowUnixSockets: [setup.socket] }, {
      "connect to a listed socket": connectCommand(setup.socket),
      "connect to an unlisted socket": connectCommand(setup.otherSocket),
    }),
  };
}
