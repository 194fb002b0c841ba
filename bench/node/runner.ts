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
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { interleave } from "../_interleave.ts";
import { peakGrowth } from "../_memory.ts";

/** What bench/_node.ts asks for. */
interface Request {
  kind: "foreground" | "throughput" | "srt" | "srt-cli";
  warmup: number;
  iterations: number;
  /** An untimed pause before every step (see `InterleaveOptions.pauseMs`). */
  pauseMs?: number;
  /** throughput: bytes of stdout per run. */
  bytes?: number;
  /** srt, srt-cli: the workspace the sandboxes run in. */
  workspace?: string;
  /** srt-cli: the settings file with the equivalent policy. */
  settings?: string;
}

type LocalModule = typeof import("../../local/mod.ts");
type SandboxModule = typeof import("../../sandbox/mod.ts");
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

async function sandboxes(request: Request): Promise<unknown> {
  const { SandboxManager } = await load("@anthropic-ai/sandbox-runtime") as {
    SandboxManager: SrtManager;
  };
  const { errors } = SandboxManager.checkDependencies();
  if (errors.length > 0) {
    return { samples: {}, unavailable: { srt: `srt cannot run here: ${errors.join(", ")}` } };
  }
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

const request = JSON.parse(process.argv[2] ?? "{}") as Request;
const kinds = { foreground, throughput, srt: sandboxes, "srt-cli": sandboxes };
const handler = kinds[request.kind];
if (handler === undefined) throw new Error(`Unknown request kind "${request.kind}"`);
process.stdout.write(JSON.stringify(await handler(request)) + "\n");
