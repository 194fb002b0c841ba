/**
 * The Node side of the benchmarks, run by bench/_node.ts with the pinned
 * Node (`bench/node/node_modules/.bin/node runner.ts '<request json>'`;
 * Node strips the types). It times the arms of one comparison in-process,
 * interleaved, and prints `{ samples, unavailable?, extra? }` as one JSON
 * line on stdout. The library comes from the Node build in `npm/`; execa
 * and the sandbox runtime from this folder's `node_modules`. The imports go
 * through variables so that `deno check` does not try to resolve them.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { interleave } from "../_interleave.ts";
import { peakGrowth } from "../_memory.ts";
import { type Outcome, session, toolOutcome } from "../_outcome.ts";

/** What bench/_node.ts asks for. */
interface Request {
  kind: "foreground" | "throughput" | "srt" | "srt-cli" | "srt-session";
  warmup: number;
  iterations: number;
  /** throughput: bytes of stdout per run. */
  bytes?: number;
  /** srt, srt-cli: the workspace the sandboxes run in. */
  workspace?: string;
  /** srt-cli: the settings file with the equivalent policy. */
  settings?: string;
  /** srt-session: the agent session's commands. */
  commands?: string[];
  /** srt-session: a JSON file of what each command left under raw `bash -c`. */
  floorFile?: string;
}

type LocalModule = typeof import("../../local/mod.ts");
type SandboxModule = typeof import("../../sandbox/mod.ts");
type TasksModule = typeof import("../../tasks/mod.ts");
type ToolModule = typeof import("../../tool/mod.ts");
type Execa = (file: string, args: string[]) => Promise<unknown>;
interface SrtManager {
  checkDependencies(): { errors: string[] };
  initialize(config: unknown): Promise<void>;
  wrapWithSandbox(command: string): Promise<string>;
  reset(): Promise<void>;
}

const load = (specifier: string): Promise<unknown> => import(specifier);
const npmBuild = (path: string): string => new URL(`../../npm/${path}`, import.meta.url).href;

/** Resolves when `child` has exited and its pipes are closed; bytes read from stdout. */
function settled(child: ChildProcess): Promise<number> {
  let bytes = 0;
  child.stdout?.on("data", (chunk: Uint8Array) => bytes += chunk.length);
  child.stderr?.resume();
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", () => resolve(bytes));
  });
}

/** `bash -c <command>` by `spawn`, in a new session when `detached`, both pipes read. */
function rawBash(command: string, detached = true): Promise<number> {
  return settled(spawn("bash", ["-c", command], {
    detached,
    stdio: ["ignore", "pipe", "pipe"],
  }));
}

/** Runs `body` with `executor`, then disposes of it (Node 22 has no `await using`). */
async function using<E extends AsyncDisposable, T>(
  executor: E,
  body: (e: E) => Promise<T>,
): Promise<T> {
  try {
    return await body(executor);
  } finally {
    await executor[Symbol.asyncDispose]();
  }
}

async function foreground(request: Request): Promise<unknown> {
  const { LocalBashExecutor } = await load(npmBuild("local/mod.js")) as LocalModule;
  const { execa } = await load("execa") as { execa: Execa };
  return await using(new LocalBashExecutor(), async (executor) => ({
    samples: await interleave({
      ours: () => executor.run(executor.resolve({ command: "true" })),
      raw: () => rawBash("true"),
      execa: () => execa("bash", ["-c", "true"]),
    }, request),
  }));
}

async function throughput(request: Request): Promise<unknown> {
  const { LocalBashExecutor } = await load(npmBuild("local/mod.js")) as LocalModule;
  const bytes = request.bytes ?? 0;
  const command = `head -c ${bytes} /dev/zero`;
  const growths: number[] = [];
  const samples = await using(new LocalBashExecutor(), (executor) =>
    interleave({
      ours: async () => {
        const { value, growth } = await peakGrowth(() =>
          executor.run(executor.resolve({ command }))
        );
        growths.push(growth);
        if (value.stdout.totalBytes !== bytes) {
          throw new Error(`run() saw ${value.stdout.totalBytes} bytes of ${bytes}`);
        }
      },
      raw: async () => {
        const seen = await rawBash(command, false);
        if (seen !== bytes) throw new Error(`The raw read saw ${seen} bytes of ${bytes}`);
      },
      rawSession: async () => {
        const seen = await rawBash(command, true);
        if (seen !== bytes) throw new Error(`The raw read saw ${seen} bytes of ${bytes}`);
      },
    }, request));
  const timed = growths.slice(request.warmup).sort((a, b) => a - b);
  return { samples, extra: { peak_rss_growth_median: timed[Math.floor(timed.length / 2)]! } };
}

/** srt's sandbox manager, or the answer that says why srt cannot run here. */
async function srtManager(): Promise<SrtManager | { samples: object; unavailable: object }> {
  const { SandboxManager } = await load("@anthropic-ai/sandbox-runtime") as {
    SandboxManager: SrtManager;
  };
  const { errors } = SandboxManager.checkDependencies();
  return errors.length === 0
    ? SandboxManager
    : { samples: {}, unavailable: { srt: `srt cannot run here: ${errors.join(", ")}` } };
}

async function sandboxes(request: Request): Promise<unknown> {
  const SandboxManager = await srtManager();
  if ("unavailable" in SandboxManager) return SandboxManager;
  const { SandboxBashExecutor } = await load(npmBuild("sandbox/mod.js")) as SandboxModule;
  const workspace = request.workspace!;
  const executor = new SandboxBashExecutor({
    workspaceRoot: workspace,
    backends: ["bwrap"],
    defaultMode: "read-only",
    network: "deny",
  });
  return await using(executor, () => compareSandboxes(request, executor, SandboxManager));
}

async function compareSandboxes(
  request: Request,
  executor: InstanceType<SandboxModule["SandboxBashExecutor"]>,
  SandboxManager: SrtManager,
): Promise<unknown> {
  const workspace = request.workspace!;
  const check = await executor.run(executor.resolve({ command: "true" }));
  if (check.exitCode !== 0 || check.sandbox?.backend !== "bwrap") {
    throw new Error(`Our bwrap run("true") failed: ${JSON.stringify(check)}`);
  }
  const ours = () => executor.run(executor.resolve({ command: "true" }));
  if (request.kind === "srt-cli") {
    const cli = new URL("./node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js", import.meta.url)
      .pathname;
    const srtCli = async () => {
      const child = spawn(process.execPath, [cli, "--settings", request.settings!, "-c", "true"], {
        cwd: workspace,
        stdio: ["ignore", "pipe", "pipe"],
      });
      await settled(child);
      if (child.exitCode !== 0) throw new Error(`srt CLI exited with ${child.exitCode}`);
    };
    return { samples: await interleave({ ours, srt_cli: srtCli }, request) };
  }
  const initializing = performance.now();
  await SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  });
  const initializeMs = performance.now() - initializing;
  try {
    const srt = async () => {
      const wrapped = await SandboxManager.wrapWithSandbox("true");
      const child = spawn(wrapped, {
        shell: true,
        cwd: workspace,
        stdio: ["ignore", "pipe", "pipe"],
      });
      await settled(child);
      if (child.exitCode !== 0) {
        throw new Error(`srt's wrapped command exited with ${child.exitCode}`);
      }
    };
    const samples = await interleave({ ours, srt }, request);
    return { samples, extra: { srt_initialize_ms: initializeMs } };
  } finally {
    await SandboxManager.reset();
  }
}

/** `command` through srt's in-process sandbox: its exit code and stdout. */
async function srtCommand(manager: SrtManager, command: string, cwd: string): Promise<Outcome> {
  const child = spawn(await manager.wrapWithSandbox(command), {
    shell: true,
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: Uint8Array[] = [];
  child.stdout?.on("data", (chunk: Uint8Array) => chunks.push(chunk));
  await settled(child);
  return { code: child.exitCode ?? 128, stdout: Buffer.concat(chunks).toString("utf8") };
}

/**
 * The agent session (`bench/cases/agent_session.ts`) through the bash tool
 * over our bwrap sandbox and through srt's in-process sandbox, both in this
 * Node process and both in workspace-write with the network denied, each
 * command's outcome checked against raw `bash -c`'s.
 */
async function srtSession(request: Request): Promise<unknown> {
  const SandboxManager = await srtManager();
  if ("unavailable" in SandboxManager) return SandboxManager;
  const { SandboxBashExecutor } = await load(npmBuild("sandbox/mod.js")) as SandboxModule;
  const { TaskRegistry, taskOwner } = await load(npmBuild("tasks/mod.js")) as TasksModule;
  const { createBashTools } = await load(npmBuild("tool/mod.js")) as ToolModule;
  const workspace = request.workspace!;
  const commands = request.commands!;
  const floor = JSON.parse(readFileSync(request.floorFile!, "utf8")) as Outcome[];
  const executor = new SandboxBashExecutor({
    workspaceRoot: workspace,
    backends: ["bwrap"],
    defaultMode: "workspace-write",
    network: "deny",
  });
  return await using(executor, () =>
    using(new TaskRegistry(), async (tasks) => {
      const { bash } = createBashTools({ executor, tasks, owner: taskOwner("bench") });
      await SandboxManager.initialize({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [workspace], denyWrite: [] },
      });
      try {
        const ours = session("the bash tool over bwrap (Node)", commands, async (command) => {
          const result = await bash.execute({ command, description: "agent session" });
          return toolOutcome(result.text);
        }, floor);
        const srt = session(
          "srt in-process",
          commands,
          (command) => srtCommand(SandboxManager, command, workspace),
          floor,
        );
        return { samples: await interleave({ ours, srt }, request) };
      } finally {
        await SandboxManager.reset();
      }
    }));
}

const request = JSON.parse(process.argv[2] ?? "{}") as Request;
const kinds = {
  foreground,
  throughput,
  srt: sandboxes,
  "srt-cli": sandboxes,
  "srt-session": srtSession,
};
const handler = kinds[request.kind];
if (handler === undefined) throw new Error(`Unknown request kind "${request.kind}"`);
process.stdout.write(JSON.stringify(await handler(request)) + "\n");
