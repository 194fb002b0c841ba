import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { SandboxUnavailableError } from "../../seam/mod.ts";
import {
  type SandboxBackendName,
  type SandboxBackendStatus,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
} from "../../sandbox/mod.ts";
import { LAUNCHER_STANDBY_FLAG } from "../../sandbox/backends/landlock/_launcher_protocol.ts";
import { type Runtime, runtime } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { pause, processesWith } from "../local/_helpers.ts";

/**
 * glibc's "unsecure" environment variables (`sysdeps/generic/unsecvars.h`),
 * which it drops for set-user-ID programs: what makes a program load or read
 * files its caller names.
 */
export const GLIBC_UNSECURE_ENV: readonly string[] = [
  "GCONV_PATH",
  "GETCONF_DIR",
  "GLIBC_TUNABLES",
  "HOSTALIASES",
  "LD_AUDIT",
  "LD_DEBUG",
  "LD_DEBUG_OUTPUT",
  "LD_DYNAMIC_WEAK",
  "LD_HWCAP_MASK",
  "LD_LIBRARY_PATH",
  "LD_ORIGIN_PATH",
  "LD_PRELOAD",
  "LD_PROFILE",
  "LD_SHOW_AUXV",
  "LD_USE_LOAD_BIAS",
  "LOCALDOMAIN",
  "LOCPATH",
  "MALLOC_TRACE",
  "NIS_PATH",
  "NLSPATH",
  "RESOLV_HOST_CONF",
  "RES_OPTIONS",
  "TMPDIR",
  "TZDIR",
];

/** A workspace `root` inside a private `base` directory (so "beside the workspace" exists). */
export interface Workspace extends Disposable {
  /** The private directory holding the workspace. */
  base: string;
  /** The workspace root (canonical). */
  root: string;
}

/** Creates a fresh workspace; disposing it removes everything. */
export function tempWorkspace(): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "shellseam-sbx-")));
  const root = join(base, "ws");
  mkdirSync(root);
  return {
    base,
    root,
    [Symbol.dispose]: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** What probing each backend found, by backend. */
export type Probed = Record<SandboxBackendName, SandboxBackendStatus>;

/**
 * The environment variable through which a test runner that probed once
 * (`scripts/test_all.ts`, with {@linkcode probeNow}) hands each test file it
 * starts what it found, as JSON: the files run on the same machine, as the
 * same user, with the same search path, so they would find the same, and
 * each saves the probe's executor (about 0.3 s of CPU).
 */
export const PROBED_ENV = "SHELLSEAM_TEST_PROBED";

/**
 * What probing each backend found here, once per test module: what the
 * runner handed through {@linkcode PROBED_ENV}, or else probed here.
 */
export async function probeHere(): Promise<Probed> {
  const handed = process.env[PROBED_ENV];
  return handed === undefined ? await probeNow() : parseProbed(handed);
}

/** Probes each backend here, in this process, with a default executor over a fresh workspace. */
export async function probeNow(): Promise<Probed> {
  using workspace = tempWorkspace();
  await using executor = new SandboxBashExecutor({ workspaceRoot: workspace.root });
  const statuses = await executor.probeBackends();
  return Object.fromEntries(statuses.map((s) => [s.backend, s])) as Probed;
}

/** `text` (the value of {@linkcode PROBED_ENV}) read back; throws when it is not what probing finds. */
function parseProbed(text: string): Probed {
  let probed: unknown;
  try {
    probed = JSON.parse(text);
  } catch {
    probed = undefined;
  }
  const found = (backend: string): boolean => {
    const status = typeof probed === "object" && probed !== null
      ? (probed as Record<string, unknown>)[backend]
      : undefined;
    return typeof status === "object" && status !== null &&
      (status as Record<string, unknown>).backend === backend &&
      typeof (status as Record<string, unknown>).works === "boolean";
  };
  if (!SANDBOX_BACKENDS.every(found)) {
    throw new Error(
      `${PROBED_ENV} is "${text.slice(0, 80)}", not a status for each of ` +
        `${SANDBOX_BACKENDS.join(" and ")}; unset it to probe in this process`,
    );
  }
  return probed as Probed;
}

/** `false` when `backend` works here, else a skip message naming what is missing. */
export function skipUnless(
  statuses: Record<SandboxBackendName, SandboxBackendStatus>,
  backend: SandboxBackendName,
): string | false {
  const status = statuses[backend];
  return status.works
    ? false
    : `the ${backend} sandbox backend does not work here: ${status.reason}`;
}

let pythonSkip: string | false | undefined;

/**
 * `false` when `python3` runs here, else a skip message naming it (some
 * escape probes need ctypes). Asked once a process, and only by files that
 * need it: a python3 behind a version manager's shim (pyenv here) costs
 * about 0.7 s of CPU to start.
 */
export function skipWithoutPython(): string | false {
  pythonSkip ??= spawnSync("python3", ["-c", "import ctypes"], { stdio: "ignore" }).status === 0
    ? false
    : "python3 with ctypes is not installed here; install python3 to run this test";
  return pythonSkip;
}

/** An executor confined by exactly one backend, over `workspace`. */
export function executorFor(
  backend: SandboxBackendName,
  workspace: Workspace,
  config: Partial<SandboxBashExecutorConfig> = {},
): SandboxBashExecutor {
  return new SandboxBashExecutor({
    workspaceRoot: workspace.root,
    backends: [backend],
    ...config,
  });
}

/**
 * A search path of one folder, `dir` (made here), holding links to `names`
 * as found on PATH and nothing else: a Landlock backend that looks there
 * finds no perl, so the Deno launcher runs.
 */
export function linkedPrograms(dir: string, names: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    const path = findOnPath(name, process.env.PATH ?? "");
    if (path !== null) symlinkSync(path, join(dir, name));
  }
  return dir;
}

/**
 * A `program` script in the workspace's node_modules/.bin (which `npm run`
 * puts first on the search path), as a confined command of an earlier
 * session could plant it: it touches `canary`, outside the workspace.
 */
export function plantedProgram(
  workspace: Workspace,
  program: string,
): { bin: string; planted: string; canary: string } {
  const bin = join(workspace.root, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  const canary = join(workspace.base, "canary");
  const planted = join(bin, program);
  writeFileSync(planted, `#!/bin/sh\ntouch ${canary}\n`, { mode: 0o755 });
  return { bin, planted, canary };
}

/** A directory holding an executable `name` script with `body`, to put first on a search path. */
export function fakeProgram(workspace: Workspace, name: string, body: string): string {
  const dir = join(workspace.base, "fake-bin");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return dir;
}

/**
 * The Linux backends, which the sandbox tests built for Linux run over, one
 * body per backend; Seatbelt's (macOS) are their own files
 * (`tests/e2e/sandbox_seatbelt_test.ts`, `tests/sandbox/seatbelt_test.ts`).
 */
export const SANDBOX_BACKENDS: readonly ("bwrap" | "landlock")[] = ["bwrap", "landlock"];

/**
 * The backends a sandbox test other than the conformance suite runs over on
 * this runtime: both under Deno, bwrap alone under Node. What Landlock adds
 * to bwrap's path is its launcher, which perl (or Deno) runs whatever runtime
 * hosts the executor, and TypeScript the Deno leg runs; the host's side (the spawn and
 * the launch's input, the standby, the private folder, the proxy's server) is
 * the same code over the same runtime as bwrap's. The conformance suite runs
 * over both under Node too, so Node still finds and starts the launcher.
 */
export const SANDBOX_BACKENDS_HERE: readonly ("bwrap" | "landlock")[] = "Deno" in globalThis
  ? SANDBOX_BACKENDS
  : ["bwrap"];

/** A TCP listener on 127.0.0.1 that counts the connections it accepted. */
export async function listener(): Promise<
  { port: number; accepted: () => number; server: Server }
> {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return { port: address.port, accepted: () => accepted, server };
}

/**
 * Asserts that `command`, run under workspace-write by a one-backend
 * `executor`, is refused because `runner` (which runs before the sandbox
 * applies) lies in the workspace.
 */
export async function assertRunnerRefused(
  executor: SandboxBashExecutor,
  workspace: Workspace,
  command: string,
  runner: string,
): Promise<void> {
  await assert.rejects(
    executor.run(executor.resolve({
      command,
      sandboxPolicy: { mode: "workspace-write", workspaceRoot: workspace.root, network: "deny" },
    })),
    (error: unknown) =>
      error instanceof SandboxUnavailableError && error.attempts.length === 1 &&
      error.attempts[0]!.reason.startsWith(`"${runner}" runs before the sandbox applies`),
  );
}

/** Closes `server` and waits until it has. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((done) => server.close(() => done()));
}

/** A mask file for policies built by hand (backend unit tests that never mount it). */
export const MASK_FILE = "/nonexistent/mask";

/**
 * What only a standby of `backend` has on its command line (in what the
 * executor spawns, and while it waits): bwrap's, the standby's reporter,
 * which takes its command from bwrap's options (a reporter that runs one
 * inside has it too: see {@linkcode isStandbyOf}).
 */
export const STANDBY_TOKENS: Record<"bwrap" | "landlock", string> = {
  bwrap: "${SHELLSEAM_STANDBY_LIMITS:---}",
  // After the Deno launcher's file, or after perl's "--" that ends its options.
  landlock: `\0${LAUNCHER_STANDBY_FLAG}\0`,
};

/**
 * Whether `pid`, a process with `backend`'s standby token, is a standby of
 * the executors of the process `host`, starting or waiting: its command line
 * names their folders (a launcher, or bwrap's wrapper while it starts), or,
 * once the wrapper exec'd bwrap, bwrap in their cgroups still holds the
 * descriptor it reads its options from (once handed them, it closed it, and
 * the reporter it runs never had it).
 */
export function isStandbyOf(backend: "bwrap" | "landlock", pid: number, host: number): boolean {
  if (processesWith(`shellseam-exec-${host}-`).includes(pid)) return true;
  try {
    return backend === "bwrap" &&
      readFileSync(`/proc/${pid}/cgroup`, "utf8").includes(`shellseam-exec-${host}-`) &&
      existsSync(`/proc/${pid}/fd/4`);
  } catch {
    // It ended while we looked.
    return false;
  }
}

/** What only the command line of a bwrap standby set up ahead holds (its reporter's). */
export const SET_UP_TOKEN = "read -r -d '' w";

/**
 * The bwrap standbys of the executors of the process `host` set up ahead
 * (see `SET_UP_REPORTER`) whose reporter waits for its command, reading its
 * stdin: bwrap's pids (the reporter is its child, the namespace's pid 1).
 */
export function setUpStandbys(host: number = process.pid): number[] {
  return processesWith(SET_UP_TOKEN).flatMap((pid) => {
    try {
      const waits = readFileSync(`/proc/${pid}/syscall`, "latin1").startsWith("0 0x0 ") &&
        readFileSync(`/proc/${pid}/cgroup`, "utf8").includes(`shellseam-exec-${host}-`);
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      return waits ? [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])] : [];
    } catch {
      // It ended while we looked.
      return [];
    }
  });
}

/**
 * The standbys of the executors of the process `host` (by default this
 * one): a bwrap waiting for its options or set up ahead, or a launcher.
 */
export const standbys = (backend: "bwrap" | "landlock", host: number = process.pid): number[] => [
  ...processesWith(STANDBY_TOKENS[backend]).filter((pid) => isStandbyOf(backend, pid, host)),
  ...(backend === "bwrap" ? setUpStandbys(host) : []),
];

/**
 * Waits until the process `pid` (a standby) blocks reading its input on
 * descriptor `fd` (a launcher its stdin, bwrap its options on 4): its start
 * (joining the cgroups, closing what it inherited, opening its filter's
 * file) is over then, so its descriptors are the ones it keeps.
 */
export async function readingInput(pid: number, fd = 0): Promise<void> {
  const deadline = Date.now() + 30_000;
  // The system call it waits in, with its first argument: read(fd, ...).
  while (!readFileSync(`/proc/${pid}/syscall`, "latin1").startsWith(`0 0x${fd.toString(16)} `)) {
    assert.ok(Date.now() < deadline, `process ${pid} never read its input`);
    await pause(20);
  }
}

/**
 * Waits until exactly one standby of this process waits (one other than
 * `not`, when given: a standby that gives way ends while its successor starts),
 * and returns its pid.
 */
export async function oneStandby(backend: "bwrap" | "landlock", not?: number): Promise<number> {
  // Long enough for a start on a loaded machine: the wait ends when it is there.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = standbys(backend);
    if (found.length === 1 && found[0] !== not) return found[0] as number;
    assert.ok(Date.now() < deadline, `standbys: ${JSON.stringify(found)}`);
    await pause(20);
  }
}

/**
 * The standby of this process's executors once it stays as it is, and its
 * pid: under bwrap, one set up ahead (a standby waiting for its options
 * gives way to one once the times of its paths are settled, a second after
 * they last changed); under Landlock, the launcher.
 */
export async function settledStandby(backend: "bwrap" | "landlock"): Promise<number> {
  if (backend === "landlock") return await oneStandby(backend);
  await until(
    () => setUpStandbys().length === 1 && standbys(backend).length === 1,
    30_000,
    "a standby set up ahead",
  );
  return setUpStandbys()[0] as number;
}

/** A runtime that records the pid and command line of every spawn. */
export function recording(): { runtime: Runtime; spawned: { pid: number; line: string }[] } {
  const spawned: { pid: number; line: string }[] = [];
  return {
    spawned,
    runtime: {
      ...runtime,
      spawn: async (request) => {
        const child = await runtime.spawn(request);
        spawned.push({ pid: child.pid, line: [request.program, ...request.args].join(" ") });
        return child;
      },
    },
  };
}

/** Resolves once `check` holds (polled every 20 ms), or rejects after `ms`. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((done) => setTimeout(done, 20));
  }
}
