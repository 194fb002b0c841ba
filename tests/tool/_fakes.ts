import {
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashExecutorLimits,
  type BashOutputEvent,
  type BashProcess,
  type BashProcessRead,
  type BashRunResult,
  type BashSandboxInfo,
  type CollectedOutput,
  type SandboxMode,
  type SandboxPolicy,
} from "../../seam/mod.ts";

/** One collected stream holding `text`, untruncated unless `extra` says otherwise. */
export function stream(text: string, extra: Partial<CollectedOutput> = {}): CollectedOutput {
  return {
    text,
    truncated: false,
    totalBytes: text.length,
    omittedBytes: 0,
    spillComplete: false,
    invalidUtf8Bytes: 0,
    ...extra,
  };
}

/** A foreground result: a clean exit 0 with no output, unless `extra` says otherwise. */
export function runResult(extra: Partial<BashRunResult> = {}): BashRunResult {
  return {
    exitCode: 0,
    signal: null,
    timedOut: false,
    idledOut: false,
    aborted: false,
    timeoutMs: 120_000,
    durationMs: 5,
    stdout: stream(""),
    stderr: stream(""),
    strays: { killed: 0, survivors: [] },
    scrubbedEnv: [],
    ...extra,
  };
}

/** One stream of a read with nothing new. */
const QUIET_STREAM = { text: "", truncated: false, omittedBytes: 0, spillComplete: false };

/** A settled fake background process that printed `stdout`. */
export function fakeProcess(
  spec: BashExecSpec,
  extra: {
    stdout?: string;
    sandbox?: BashSandboxInfo;
    status?: "completed" | "killed";
    exitCode?: number;
  } = {},
): BashProcess & { kills: number; releases: number } {
  const printed = extra.stdout ?? "";
  let pending = printed;
  const status = extra.status ?? "completed";
  const process = {
    command: spec.command,
    pid: 4242,
    status,
    exitCode: status === "completed" ? extra.exitCode ?? 0 : null,
    signal: status === "killed" ? "SIGTERM" : null,
    done: Promise.resolve(),
    kills: 0,
    releases: 0,
    readOutput(): BashProcessRead {
      const stdout = pending;
      pending = "";
      return {
        stdout: { ...QUIET_STREAM, text: stdout },
        stderr: QUIET_STREAM,
        status,
        exitCode: process.exitCode,
        signal: process.signal,
      };
    },
    async *output(): AsyncGenerator<BashOutputEvent> {
      if (printed !== "") yield { stream: "stdout", text: printed };
    },
    write: () => Promise.resolve(),
    resize: () => Promise.resolve(),
    closeStdin: () => Promise.resolve(),
    kill: () => {
      process.kills++;
      return Promise.resolve(process.kills === 1);
    },
    release: () => {
      process.releases++;
      return Promise.resolve();
    },
  };
  return extra.sandbox ? Object.assign(process, { sandbox: extra.sandbox }) : process;
}

/**
 * A background process that runs until killed: `kill()` resolves at once,
 * and the process settles as killed by SIGTERM `settleMs` later.
 */
export function lingeringProcess(spec: BashExecSpec, settleMs: number): BashProcess {
  let settle = (): void => {};
  const done = new Promise<void>((resolve) => settle = resolve);
  const process: BashProcess = {
    command: spec.command,
    pid: 4243,
    status: "running",
    exitCode: null,
    signal: null,
    done,
    readOutput: () => ({
      stdout: QUIET_STREAM,
      stderr: QUIET_STREAM,
      status: process.status,
      exitCode: process.exitCode,
      signal: process.signal,
    }),
    async *output(): AsyncGenerator<BashOutputEvent> {
      await done;
      yield* [];
    },
    write: () => Promise.resolve(),
    resize: () => Promise.resolve(),
    closeStdin: () => Promise.resolve(),
    kill: () => {
      if (process.status !== "running") return Promise.resolve(false);
      setTimeout(() => {
        Object.assign(process, { status: "killed", signal: "SIGTERM" });
        settle();
      }, settleMs);
      return Promise.resolve(true);
    },
    release: () => Promise.resolve(),
  };
  return process;
}

/**
 * A sandboxing executor that runs nothing: it records each spec and answers
 * as a sandbox would, denying writes under read-only mode, in the foreground
 * and in the background.
 */
export class FakeSandboxExecutor extends BashExecutor {
  readonly runs: BashExecSpec[] = [];
  readonly starts: BashExecSpec[] = [];
  /** What `start` returns; replace it to start another kind of process. */
  startProcess: (spec: BashExecSpec) => BashProcess = (spec) => {
    const mode = spec.sandboxPolicy?.mode;
    if (!mode) return fakeProcess(spec, { stdout: "started\n" });
    const denied = mode === "read-only";
    const sandbox: BashSandboxInfo = { mode, backend: "bwrap", denied };
    return fakeProcess(spec, { stdout: "started\n", sandbox, exitCode: denied ? 1 : 0 });
  };
  readonly #mode: SandboxMode | undefined;

  /** `null` makes an executor that does not sandbox. */
  constructor(mode: SandboxMode | null = "read-only") {
    super();
    this.#mode = mode ?? undefined;
  }

  override get sandboxMode(): SandboxMode | undefined {
    return this.#mode;
  }

  readonly limits: BashExecutorLimits = {
    defaultTimeoutMs: 120_000,
    maxTimeoutMs: 600_000,
    outputBytes: 64_000,
    maxStdoutBytes: 256 * 1024 * 1024,
    maxSpillBytes: 1024 ** 3,
  };

  override get defaultSandboxPolicy(): SandboxPolicy | undefined {
    return this.#mode ? { mode: this.#mode, workspaceRoot: "/ws", network: "deny" } : undefined;
  }

  resolve(request: BashExecRequest): BashExecSpec {
    const { workdir, timeoutMs, stdoutMaxBytes, sandboxPolicy, ...rest } = request;
    return this.markResolved({
      ...rest,
      workdir: workdir ?? "/ws",
      timeoutMs: timeoutMs ?? 120_000,
      stdoutMaxBytes: stdoutMaxBytes ?? 64_000,
      sandboxPolicy: sandboxPolicy ?? this.defaultSandboxPolicy ?? null,
    });
  }

  run(request: BashExecRequest): Promise<BashRunResult> {
    const spec = this.specOf(request);
    this.runs.push(spec);
    const mode = spec.sandboxPolicy?.mode;
    const denied = mode === "read-only";
    const out = { truncated: false, omittedBytes: 0, spillComplete: false, invalidUtf8Bytes: 0 };
    const result: BashRunResult = {
      exitCode: denied ? 1 : 0,
      signal: null,
      timedOut: false,
      idledOut: false,
      aborted: false,
      timeoutMs: spec.timeoutMs,
      durationMs: 1,
      stdout: { ...out, text: denied ? "" : `ran under ${mode ?? "no sandbox"}\n`, totalBytes: 0 },
      stderr: { ...out, text: denied ? "touch: Read-only file system\n" : "", totalBytes: 0 },
      strays: { killed: 0, survivors: [] },
      scrubbedEnv: [],
    };
    if (mode) result.sandbox = { mode, backend: "bwrap", denied };
    return Promise.resolve(result);
  }

  start(request: BashExecRequest): Promise<BashProcess> {
    const spec = this.specOf(request);
    this.starts.push(spec);
    return Promise.resolve(this.startProcess(spec));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return Promise.resolve();
  }
}
