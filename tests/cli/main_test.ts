// The `shellseam` command end to end: exit codes, output, `--json` shapes and
// bad flags. What the command line prints and decides is checked by calling
// its `main()` in this process (its streams captured, its cwd given); what
// is about the process (the exit code a shell sees, bytes on real pipes, a
// terminal, the Deno permissions granted, the installed bin) runs it as a
// subprocess.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import process from "node:process";
import { shellQuote } from "../../seam/mod.ts";
import { probeHere, tempWorkspace } from "../sandbox/_fixtures.ts";
import { findBridgeTools } from "../../sandbox/network/_bridge.ts";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
/** The CLI package's version, read when a test needs it (the Node leg's copy has no cli/deno.json). */
function cliVersion(): string {
  const path = fileURLToPath(new URL("../../cli/deno.json", import.meta.url));
  return JSON.parse(readFileSync(path, "utf8")).version;
}
const statuses = await probeHere();
const sandboxSkip = statuses.bwrap.works || statuses.landlock.works
  ? false
  : "no sandbox backend works here (install bubblewrap, or Deno on a Landlock kernel)";
const bridgeSkip = sandboxSkip ||
  ("reason" in findBridgeTools(process.env.PATH ?? "", process.getuid?.() === 0)
    ? "the network allow-list bridge (socat, ip, unshare) is not installed here"
    : false);
const denoSkip = "Deno" in globalThis
  ? false
  : "runs the Deno entry from a checkout (the Node bin is tested by the MCP test)";

/** What a run of the command line printed, and its exit code. */
interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `shellseam args` as a subprocess in `cwd` (by default this process's). */
function spawnShellseam(args: string[], cwd?: string): Ran {
  const result = spawnSync(process.execPath, ["run", "--allow-all", MAIN, ...args], {
    cwd: cwd ?? process.cwd(),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A stream of the CLI's `io` (see cli/_io.ts), written to a list of chunks. */
interface Capture {
  write(chunk: string | Uint8Array): void;
  chunks: Buffer[];
}

/** The CLI's `main()` with its streams and cwd given, as cli/main.ts exports it. */
type Main = (
  args: string[],
  io: { stdout: Capture; stderr: Capture; cwd: string },
) => Promise<number>;

/**
 * The CLI's `main()`, imported under Deno only (the Node leg has no
 * checkout's cli/ folder: its bin is tested by the MCP test); the specifier
 * is a value, so the Node leg's compiler does not follow it either.
 */
const cliMain: Main | undefined = denoSkip
  ? undefined
  : (await import(pathToFileURL(MAIN).href) as { main: Main }).main;

function capture(): Capture {
  const chunks: Buffer[] = [];
  return { write: (chunk) => void chunks.push(Buffer.from(chunk)), chunks };
}

/**
 * Runs `shellseam args` in this process (its `main()`, with `cwd`, by
 * default this process's) and returns the bytes it wrote and its exit code.
 */
async function shellseamBytes(
  args: string[],
  cwd?: string,
): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
  assert.ok(cliMain !== undefined, "main() is imported under Deno only");
  const [stdout, stderr] = [capture(), capture()];
  const code = await cliMain(args, { stdout, stderr, cwd: cwd ?? process.cwd() });
  return { code, stdout: Buffer.concat(stdout.chunks), stderr: Buffer.concat(stderr.chunks) };
}

/** Runs `shellseam args` in this process (see {@linkcode shellseamBytes}), its output as text. */
async function shellseam(args: string[], cwd?: string): Promise<Ran> {
  const { code, stdout, stderr } = await shellseamBytes(args, cwd);
  return { code, stdout: stdout.toString("utf8"), stderr: stderr.toString("utf8") };
}

describe("shellseam usage", { skip: denoSkip }, () => {
  it("answers a bad command line with one line and the usage on stderr, exit 2", async () => {
    const table: [string[], RegExp, RegExp][] = [
      [[], /^shellseam: a command is required\n\nUsage: shellseam COMMAND/, /Commands:/],
      [["launch"], /^shellseam: unknown command "launch"\n\nUsage: shellseam COMMAND/, /Commands:/],
      [
        ["run", "--bogus", "--", "true"],
        /^shellseam: Unknown option '--bogus'\n\nUsage: shellseam run/,
        /--timeout MS/,
      ],
      [
        ["run", "--timeout"],
        /^shellseam: Option '--timeout <value>' argument missing\n\nUsage: shellseam run/,
        /--json/,
      ],
      [
        ["run", "--timeout", "soon", "--", "true"],
        /^shellseam: --timeout must be a positive whole number of milliseconds; got "soon"\n/,
        /Usage: shellseam run/,
      ],
      [
        ["run", "--mode", "root", "--", "true"],
        /^shellseam: --mode must be read-only, workspace-write or danger-full-access; got "root"\n/,
        /Usage: shellseam run/,
      ],
      [
        ["run", "--network", "some", "--", "true"],
        /^shellseam: --network must be deny, allow or allow:HOST\[,HOST\.\.\.\]; got "some"\n/,
        /Usage: shellseam run/,
      ],
      ...["allow:", "allow:,"].map((value): [string[], RegExp, RegExp] => [
        ["run", "--network", value, "--", "true"],
        new RegExp(
          `^shellseam: --network allow: needs at least one host, as in allow:example\\.com; got "${value}" \\(use deny for no network\\)\\n`,
        ),
        /Usage: shellseam run/,
      ]),
      [
        ["run"],
        /^shellseam: a command is required after -- \(or -c 'COMMAND LINE'\)\n/,
        /Usage: shellseam run/,
      ],
      [
        ["run", "-c", "echo hi", "extra"],
        /^shellseam: -c takes the whole command line; drop the words after it \("extra"\.\.\.\)/,
        /Usage: shellseam run/,
      ],
      [
        ["run", "-c", " "],
        /^shellseam: the command line after -c is empty\n/,
        /Usage: shellseam run/,
      ],
      [["doctor", "extra"], /^shellseam: Unexpected argument 'extra'\n/, /Usage: shellseam doctor/],
      [
        ["doctor", "--mode", "danger-full-access"],
        /^shellseam: --mode must be a confined mode: read-only or workspace-write\n/,
        /Usage: shellseam doctor/,
      ],
      [
        ["mcp", "--background"],
        /^shellseam: Unknown option '--background'\n/,
        /Usage: shellseam mcp/,
      ],
      [["demo", "--fast"], /^shellseam: Unknown option '--fast'\n/, /Usage: shellseam demo/],
    ];
    const check = ({ code, stdout, stderr }: Ran, [args, first, usage]: typeof table[number]) => {
      assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
      assert.match(stderr, first, args.join(" "));
      assert.match(stderr, usage, args.join(" "));
      assert.equal(stdout, "", args.join(" "));
    };
    for (const row of table) check(await shellseam(row[0]), row);
    // The program itself: the same answer on its stderr, and the exit code a shell sees.
    check(spawnShellseam(table[1]![0]), table[1]!);
  });

  it("prints each command's help on stdout, exit 0", async () => {
    const table: [string[], RegExp][] = [
      [["--help"], /^Usage: shellseam COMMAND/],
      [["run", "--help"], /^Usage: shellseam run \[options\] -- PROGRAM \[ARG\.\.\.\]/],
      [["doctor", "-h"], /^Usage: shellseam doctor/],
      [["mcp", "--help"], /^Usage: shellseam mcp/],
      [["demo", "--help"], /^Usage: shellseam demo/],
      [["--version"], new RegExp(`^shellseam ${cliVersion().replaceAll(".", "\\.")}\n$`)],
    ];
    const check = ({ code, stdout }: Ran, [args, usage]: typeof table[number]) => {
      assert.equal(code, 0, args.join(" "));
      assert.match(stdout, usage, args.join(" "));
    };
    for (const row of table) check(await shellseam(row[0]), row);
    // The program itself: `shellseam --version` as a shell runs it.
    check(spawnShellseam(table[5]![0]), table[5]!);
  });
});

it("loads a command only when it runs: the program's own modules hold no executor nor MCP server", () => {
  const info = spawnSync(process.execPath, ["info", "--json", MAIN], { encoding: "utf8" });
  assert.equal(info.status, 0, info.stderr);
  type Dependency = { code?: { specifier: string }; isDynamic?: boolean };
  const graph = JSON.parse(info.stdout) as {
    modules: { specifier: string; dependencies?: Dependency[] }[];
  };
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  // The modules that load with main.ts: its static imports, followed to their end.
  const loaded = new Set<string>();
  const visit = (specifier: string) => {
    if (loaded.has(specifier)) return;
    loaded.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (dependency.code !== undefined && dependency.isDynamic !== true) {
        visit(dependency.code.specifier);
      }
    }
  };
  visit(pathToFileURL(MAIN).href);
  const heavy = [...loaded].filter((specifier) =>
    /modelcontextprotocol|\/(local|sandbox|tool|tasks|engine)\/|\/cli\/(run|mcp|demo|doctor)\.ts$/
      .test(specifier)
  );
  assert.deepEqual(heavy, []);
  // Each command is still reached, through the import made when it runs.
  for (const command of ["run", "mcp", "demo", "doctor"]) {
    assert.ok(modules.has(new URL(`../../cli/${command}.ts`, import.meta.url).href), command);
  }
});

describe("shellseam run", { skip: denoSkip || sandboxSkip }, () => {
  it("streams the output, prints the markers the model would see on stderr and exits with the command's code", () => {
    using workspace = tempWorkspace();
    // The program itself: its own stdout and stderr, and the exit code a shell sees.
    const { code, stdout, stderr } = spawnShellseam(
      ["run", "--", "echo hi > out.txt && cat out.txt; echo oops >&2; printf end; exit 3"],
      workspace.root,
    );
    assert.equal(code, 3);
    assert.equal(stdout, "hi\nend");
    assert.equal(stderr, "oops\n[exit code: 3]\n");
    assert.equal(existsSync(`${workspace.root}/out.txt`), true);
  });

  it("confines the command to the workspace by default, and says so", async () => {
    using workspace = tempWorkspace();
    const outside = `${workspace.base}/outside.txt`;
    const { code, stderr } = await shellseam(["run", "--", `echo x > ${outside}`], workspace.root);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /\[sandbox: file access denied under workspace-write mode\]\n\[exit code: 1\]\n$/,
    );
    assert.equal(existsSync(outside), false);
    const readOnly = await shellseam(
      ["run", "--mode", "read-only", "--", "touch inside.txt"],
      workspace.root,
    );
    assert.equal(readOnly.code, 1);
    assert.equal(existsSync(`${workspace.root}/inside.txt`), false);
  });

  it("exits 124 when the timeout stops the command", async () => {
    using workspace = tempWorkspace();
    const { code, stderr } = await shellseam(
      ["run", "--timeout", "300", "--", "sleep 30"],
      workspace.root,
    );
    assert.equal(code, 124);
    assert.match(stderr, /\[timed out after 300 ms\]/);
  });

  it("runs in --workdir the words after -- as words, one string after -- or -c as a command line", async () => {
    using workspace = tempWorkspace();
    const words = await shellseam(
      ["run", "--workspace", workspace.root, "--workdir", "/", "--", "echo", "a  b", "$HOME", "*"],
    );
    assert.deepEqual([words.code, words.stdout], [0, "a  b $HOME *\n"]);
    const line = await shellseam(
      ["run", "--workspace", workspace.root, "--workdir", "/", "--", 'pwd && echo "two  words"'],
    );
    assert.deepEqual([line.code, line.stdout], [0, "/\ntwo  words\n"]);
    const dashC = await shellseam(["run", "-c", "echo $((6 * 7)) | tr 4 x"], workspace.root);
    assert.deepEqual([dashC.code, dashC.stdout], [0, "x2\n"]);
  });

  it("exits with the code of a program run as words", async () => {
    using workspace = tempWorkspace();
    const { code, stderr } = await shellseam(["run", "--", "sh", "-c", "exit 7"], workspace.root);
    assert.equal(code, 7);
    assert.equal(stderr, "[exit code: 7]\n");
  });

  it("exits 128 + N for any signal N, as numbered on this machine", async () => {
    using workspace = tempWorkspace();
    for (const [signal, code] of [["USR1", 138], ["TERM", 143], ["USR2", 140], ["WINCH", 156]]) {
      // Unconfined, bash itself dies of the signal (the sandbox's wrapper turns it into a code).
      const run = await shellseam(
        ["run", "--mode", "danger-full-access", "--", `kill -${signal} $$`],
        workspace.root,
      );
      // SIGWINCH is ignored by default: bash goes on and exits 0.
      assert.equal(run.code, signal === "WINCH" ? 0 : code, `${signal}: ${run.stderr}`);
      if (signal !== "WINCH") {
        assert.match(run.stderr, new RegExp(`killed by signal: SIG${signal}`));
      }
    }
  });

  it("leaves stdout to the command's output alone: a copy through it is exact", () => {
    using workspace = tempWorkspace();
    const content = "line\r\n\x00nul\ttab \x1b[31mred\x1b[0m é漢\x7f\nno newline at the end";
    writeFileSync(`${workspace.root}/f`, content);
    const result = spawnSync(process.execPath, [
      "run",
      "--allow-all",
      MAIN,
      "run",
      "--",
      "cat",
      "f",
    ], {
      cwd: workspace.root,
      timeout: 60_000,
    });
    assert.equal(result.status, 0, String(result.stderr));
    assert.deepEqual(result.stdout, Buffer.from(content));
    assert.match(String(result.stderr), /\[exit code: 0\]\n$/);
  });

  it("copies binary output exactly, byte for byte, on stdout and on stderr", () => {
    using workspace = tempWorkspace();
    // Every byte value, then a UTF-16 byte-order mark first (which text decoding would transcode).
    const every = Uint8Array.from({ length: 256 }, (_, index) => index);
    writeFileSync(`${workspace.root}/every`, every);
    writeFileSync(`${workspace.root}/marked`, Buffer.concat([Buffer.from([0xff, 0xfe]), every]));
    // One run for both streams: the files on stdout, then every byte value on stderr.
    const copy = spawnSync(process.execPath, [
      "run",
      "--allow-all",
      MAIN,
      "run",
      "-c",
      "cat marked every /bin/true; cat every >&2",
    ], { cwd: workspace.root, timeout: 60_000 });
    assert.equal(copy.status, 0, String(copy.stderr));
    const expected = Buffer.concat([
      readFileSync(`${workspace.root}/marked`),
      every,
      readFileSync("/bin/true"),
    ]);
    assert.equal(copy.stdout.length, expected.length);
    assert.ok(Buffer.compare(copy.stdout, expected) === 0, "stdout differs from the files' bytes");
    // The bytes as written, then the markers on a line of their own (the output had no newline).
    const markers = copy.stderr.subarray(every.length);
    assert.ok(Buffer.compare(copy.stderr.subarray(0, every.length), every) === 0);
    assert.equal(String(markers), "\n[exit code: 0]\n");
  });

  it("names no spill file that is gone when it exits; --json keeps them in a folder it names", async () => {
    using workspace = tempWorkspace();
    writeFileSync(`${workspace.root}/every`, Uint8Array.from({ length: 256 }, (_, index) => index));
    // Binary on stdout, and more text on stderr than the result keeps (both spill to a file).
    const line = "seq 1 100000 >&2; cat every";
    const plain = await shellseam(["run", "-c", line], workspace.root);
    assert.equal(plain.code, 0, plain.stderr);
    assert.ok(plain.stderr.endsWith("100000\n[exit code: 0]\n"), plain.stderr.slice(-300));
    assert.doesNotMatch(plain.stderr, /saved to|full output|\/tmp\//);
    const json = await shellseam(["run", "--json", "-c", line], workspace.root);
    assert.equal(json.code, 0, json.stderr);
    const result = JSON.parse(json.stdout);
    const folder =
      /^shellseam: the whole output is kept in (\S+) \(stdout\.out, stderr\.out\); remove the folder when done\n$/
        .exec(json.stderr)?.[1];
    assert.ok(folder !== undefined, json.stderr);
    try {
      assert.equal(result.stdout.spillPath, `${folder}/stdout.out`);
      assert.equal(result.stderr.spillPath, `${folder}/stderr.out`);
      assert.deepEqual(
        readFileSync(result.stdout.spillPath),
        readFileSync(`${workspace.root}/every`),
      );
      const seq = Array.from({ length: 100000 }, (_, index) => `${index + 1}\n`).join("");
      assert.equal(readFileSync(result.stderr.spillPath, "utf8"), seq);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("prints the structured result with --json", async () => {
    using workspace = tempWorkspace();
    const { code, stdout } = await shellseam(["run", "--json", "--", "echo hi"], workspace.root);
    assert.equal(code, 0);
    const result = JSON.parse(stdout);
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.text, "hi\n");
    assert.equal(result.timedOut, false);
    assert.equal(result.sandbox.mode, "workspace-write");
    assert.ok(["bwrap", "landlock"].includes(result.sandbox.backend));
  });

  it("says what is wrong with a workspace that does not exist, exit 2", async () => {
    using workspace = tempWorkspace();
    const missing = `${workspace.base}/missing`;
    const { code, stdout, stderr } = await shellseam(["run", "--workspace", missing, "--", "true"]);
    assert.equal(code, 2);
    assert.equal(stdout, "");
    assert.equal(
      stderr,
      `shellseam: Workspace root "${missing}" does not exist; create it or pass an existing directory\n`,
    );
  });

  it("runs under a network allow-list given as allow:HOST,..., and refuses a bad entry, exit 2", {
    skip: bridgeSkip,
  }, async () => {
    using workspace = tempWorkspace();
    const run = await shellseam(
      [
        "run",
        "--json",
        "--network",
        "allow:example.test,*.example.test",
        "--",
        "printenv HTTPS_PROXY",
      ],
      workspace.root,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      JSON.parse(run.stdout).stdout.text,
      /^http:\/\/shellseam:[0-9a-f]{32}@127\.0\.0\.1:3128\n$/,
    );
    const bad = await shellseam(
      ["run", "--network", "allow:example.test/path", "--", "true"],
      workspace.root,
    );
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /^shellseam: Sandbox network "allow" entry "example\.test\/path" is not a host name/,
    );
    const doctor = await shellseam(["doctor", "--network", "allow:example.test"], workspace.root);
    assert.equal(doctor.code, 2);
    assert.match(
      doctor.stderr,
      /--network must be deny or allow \(the doctor checks allow-lists itself\)/,
    );
  });
});

const scriptSkip = denoSkip || sandboxSkip ||
  (spawnSync("script", ["--version"]).status === 0 ? false : "util-linux script is not installed");

/**
 * Runs `shellseam args` on a terminal (util-linux `script`, stdout and stderr
 * both the pty) and returns what the terminal received.
 */
function onTerminal(args: string[], cwd: string, env: Record<string, string> = {}) {
  const command = shellQuote([process.execPath, "run", "--allow-all", MAIN, ...args]);
  const result = spawnSync("script", ["-qec", command, "/dev/null"], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: "", ...env },
  });
  return { code: result.status ?? -1, screen: result.stdout };
}

/** The seconds each status line showed, in order. */
function statusSeconds(screen: string, prefix: string): number[] {
  return [...screen.matchAll(new RegExp(`${prefix}[^\\r\\n]*?(\\d+) s`, "g"))].map((m) =>
    Number(m[1])
  );
}

/** Whether `text` holds a colour or another SGR code (an escape, then `[`, digits and `m`). */
function hasSgr(text: string): boolean {
  return text.split("\x1b").slice(1).some((after) => /^\[[0-9;]*m/.test(after));
}

describe("shellseam on a terminal", { skip: scriptSkip }, () => {
  it("shows a status line on stderr while a command runs, and colours the markers", () => {
    using workspace = tempWorkspace();
    // The command says when it started; the status line counts from the call, so it shows at
    // least the seconds the command then sleeps.
    const { code, screen } = onTerminal(
      ["run", "--", "echo started; sleep 3.5; echo done; exit 3"],
      workspace.root,
    );
    assert.equal(code, 3, screen);
    const seconds = statusSeconds(screen, "\\r\\x1b\\[2K\\x1b\\[2mshellseam: running for ");
    assert.ok(seconds.length >= 2, screen);
    assert.deepEqual(seconds, [...seconds].sort((a, b) => a - b), screen);
    assert.ok(seconds.at(-1)! >= 3, screen);
    assert.match(screen, /started\r\n(.|\r)*done\r\n/);
    assert.ok(screen.includes("\x1b[31m[exit code: 3]\x1b[39m"), screen);
  });

  it("honours NO_COLOR, and never draws over a line the command left unfinished", () => {
    using workspace = tempWorkspace();
    const { code, screen } = onTerminal(
      ["run", "--", "printf 'Continue? '; sleep 2.5; echo yes"],
      workspace.root,
      { NO_COLOR: "1" },
    );
    assert.equal(code, 0, screen);
    assert.equal(hasSgr(screen), false, screen);
    // After the prompt, nothing but the rest of its line.
    assert.match(screen, /Continue\? yes\r\n/);
    assert.match(screen, /\[exit code: 0\]\r\n$/);
  });

  it("shows the demo's progress on stderr, and its section titles in bold", () => {
    const { code, screen } = onTerminal(["demo"], process.cwd());
    assert.equal(code, 0, screen);
    const seconds = statusSeconds(screen, "\\r\\x1b\\[2K\\x1b\\[2mshellseam demo: ");
    assert.ok(seconds.length >= 2, screen);
    assert.ok(screen.includes("\x1b[1m== A command, its output and its exit code\x1b[22m"), screen);
  });
});

describe("deno install from a checkout", { skip: denoSkip || sandboxSkip }, () => {
  it("installs the command the README's line gives, and it runs from any folder", () => {
    using workspace = tempWorkspace();
    const root = `${workspace.base}/install-root`;
    const checkout = fileURLToPath(new URL("../../", import.meta.url));
    const install = spawnSync(process.execPath, [
      "install",
      "-g",
      "-A",
      "-n",
      "shellseam",
      "--config",
      "cli/deno.json",
      "cli/main.ts",
    ], {
      cwd: checkout,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, DENO_INSTALL_ROOT: root, NO_COLOR: "1" },
    });
    assert.equal(install.status, 0, install.stderr);
    const bin = `${root}/bin/shellseam`;
    const version = spawnSync(bin, ["--version"], { cwd: workspace.base, encoding: "utf8" });
    assert.equal(version.stdout, `shellseam ${cliVersion()}\n`, version.stderr);
    const run = spawnSync(bin, ["run", "--", "echo", "a  b"], {
      cwd: workspace.root,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.deepEqual([run.status, run.stdout], [0, "a  b\n"], run.stderr);
  });
});

describe("shellseam mcp --rules", { skip: denoSkip }, () => {
  it("refuses a rules file it cannot apply, saying why, exit 2", async () => {
    using workspace = tempWorkspace();
    const table: [string, RegExp][] = [
      ["not json", /^shellseam: The rules file ".*" cannot be read as JSON/],
      [
        '{"rules": 3}',
        /^shellseam: The rules file ".*" must hold an object with a "rules" list\n$/,
      ],
      [
        '{"rules": [{"decision": "deny", "pattern": "("}]}',
        /has a pattern that is not a regular expression/,
      ],
      [
        '{"rules": [{"decision": "nope", "program": "rm"}]}',
        /^shellseam: Command rule 0 has decision "nope"/,
      ],
    ];
    for (const [text, message] of table) {
      const file = `${workspace.base}/rules.json`;
      writeFileSync(file, text);
      const { code, stderr } = await shellseam([
        "mcp",
        "--rules",
        file,
        "--workspace",
        workspace.root,
      ]);
      assert.equal(code, 2, text);
      assert.match(stderr, message, text);
    }
    // `..rules.json` is inside the workspace too, though its relative path starts with "..".
    for (const name of ["rules.json", "..rules.json"]) {
      const inside = `${workspace.root}/${name}`;
      writeFileSync(inside, '{"rules": []}');
      const { code, stderr } = await shellseam([
        "mcp",
        "--rules",
        inside,
        "--workspace",
        workspace.root,
      ]);
      assert.equal(code, 2, name);
      assert.match(stderr, /^shellseam: The rules file ".*" lies in the workspace/, name);
    }
  });
});

describe("shellseam doctor", { skip: denoSkip }, () => {
  it("reports each backend and what the selected one enforces, as text and as JSON", async () => {
    using workspace = tempWorkspace();
    // Side by side: each makes its own executors.
    const [text, json] = await Promise.all([
      shellseam(["doctor", "--workspace", workspace.root]),
      shellseam(["doctor", "--json", "--workspace", workspace.root]),
    ]);
    const report = JSON.parse(json.stdout);
    assert.deepEqual(report.backends.map((b: { backend: string }) => b.backend), [
      "bwrap",
      "landlock",
    ]);
    assert.equal(report.mode, "workspace-write");
    assert.equal(report.network, "deny");
    assert.match(text.stdout, /^shellseam doctor \(linux\)\n/);
    assert.match(text.stdout, /\n {2}bwrap: (works|does not work)/);
    assert.match(text.stdout, /\nspill folder: .* budget 1\.0 GiB per executor\n$/);
    assert.equal(report.spill.budgetBytes, 1024 ** 3);
    if (report.selected === null) {
      assert.equal(text.code, 1);
      assert.match(text.stdout, /confined commands fail closed/);
    } else {
      assert.equal(text.code, 0);
      assert.equal(json.code, 0);
      assert.match(text.stdout, new RegExp(`confined commands use: ${report.selected}\\n`));
      // How the default limits of a confined command are held here.
      const processes = report.limits.mechanisms.processes;
      assert.match(processes, /^(cgroup v[12]|rlimit)$/);
      assert.match(
        text.stdout,
        new RegExp(`\\nresource limits of confined commands: processes by ${processes}, `),
      );
    }
  });
});

describe("shellseam doctor: the Deno permissions in effect", { skip: denoSkip }, () => {
  it("reports what this process was granted, scope by scope", () => {
    using workspace = tempWorkspace();
    const result = spawnSync(process.execPath, [
      "run",
      "--allow-run=bash,setsid,bwrap,deno,unshare",
      "--allow-env",
      "--allow-read",
      "--allow-write=/tmp",
      "--allow-sys=uid",
      MAIN,
      "doctor",
      "--json",
      "--workspace",
      workspace.root,
    ], { encoding: "utf8", timeout: 60_000 });
    const report = JSON.parse(result.stdout);
    assert.equal(report.runtime, "deno");
    // Granted whole; granted in part (not the whole scope) or not at all.
    assert.equal(report.permissions.read, "granted");
    assert.equal(report.permissions.env, "granted");
    for (const name of ["write", "run", "sys", "net", "ffi"]) {
      assert.notEqual(report.permissions[name], "granted", name);
    }
    assert.equal(result.status, report.selected === null ? 1 : 0);
  });
});

describe("shellseam doctor --spill-dir", { skip: denoSkip }, () => {
  it("reports the folder given, and refuses one that does not exist", async () => {
    using workspace = tempWorkspace();
    const shm = await shellseam([
      "doctor",
      "--json",
      "--workspace",
      workspace.root,
      "--spill-dir",
      "/dev/shm",
    ]);
    const report = JSON.parse(shm.stdout);
    assert.deepEqual(
      [report.spill.dir, report.spill.filesystem, report.spill.ramBacked],
      ["/dev/shm", "tmpfs", true],
    );
    const missing = await shellseam([
      "doctor",
      "--workspace",
      workspace.root,
      "--spill-dir",
      "/no/such/dir",
    ]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /"spillDir" must be the absolute path of an existing directory/);
  });
});

describe("shellseam demo", { skip: denoSkip }, () => {
  it("runs the tour and exits 0, with no status line nor colour off a terminal", async () => {
    const { code, stdout, stderr } = await shellseam(["demo"]);
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "");
    assert.equal(stdout.includes("\x1b"), false);
    assert.match(stdout, /== A command, its output and its exit code/);
    assert.match(stdout, /== A foreground command leaves nothing behind/);
    assert.match(stdout, /instanceof BashSpawnError: true/);
  });
});
