import { posix } from "node:path";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  type BashExecutorLimits,
  type SandboxPolicy,
} from "../seam/mod.ts";
import { MAX_OUTPUT_BYTES, outputBudget } from "./_config.ts";
import { checkEnv } from "./_env.ts";
import { checkEnvSizes } from "./_exec.ts";
import { checkLimits } from "./_limits.ts";
import {
  checkKnownKeys,
  checkTerminalSize,
  fitsTimer,
  kindOf,
  positiveFinite,
} from "../seam/checks.ts";

/** Throws `BashConfigError` unless `value` is a string that an argument or path can carry. */
export function checkText(field: string, value: unknown, what: string): string {
  if (typeof value !== "string") {
    throw new BashConfigError(`"${field}" must be a string; got ${kindOf(value)}; pass ${what}`);
  }
  if (value.includes("\0")) {
    throw new BashConfigError(
      `"${field}" holds a NUL byte, which no program can receive; remove it`,
    );
  }
  return value;
}

/** The keys of a `BashExecRequest` (and of a `BashExecSpec`). */
export const REQUEST_KEYS: readonly string[] = [
  "command",
  "workdir",
  "timeoutMs",
  "idleTimeoutMs",
  "stdoutMaxBytes",
  "signal",
  "stdin",
  "keepStdinOpen",
  "terminal",
  "env",
  "managedEnv",
  "sandboxPolicy",
  "limits",
  "onOutput",
];

/**
 * Checks the values a request and a spec share, before anything is spawned:
 * no unknown key, the command, the idle clock, stdin, `keepStdinOpen`, the
 * terminal's size, the abort signal and both env maps. Throws `BashConfigError` naming the field.
 */
export function checkCallValues(call: {
  command: unknown;
  idleTimeoutMs?: unknown;
  stdin?: unknown;
  keepStdinOpen?: unknown;
  terminal?: unknown;
  limits?: unknown;
  signal?: unknown;
  env?: unknown;
  managedEnv?: unknown;
  onOutput?: unknown;
}): void {
  if (call === null || typeof call !== "object") {
    throw new BashConfigError(
      `The request must be an object with a "command"; got ${
        kindOf(call)
      }; pass { command: "..." }`,
    );
  }
  checkKnownKeys("The request", call, REQUEST_KEYS);
  checkText("command", call.command, "the bash source as a string");
  if (call.idleTimeoutMs !== undefined) {
    fitsTimer("idleTimeoutMs", positiveFinite("idleTimeoutMs", call.idleTimeoutMs));
  }
  const { stdin, signal } = call;
  if (stdin !== undefined && typeof stdin !== "string" && !(stdin instanceof Uint8Array)) {
    throw new BashConfigError(
      `"stdin" must be a string or a Uint8Array; got ${kindOf(stdin)}; encode it first`,
    );
  }
  if (call.keepStdinOpen !== undefined && typeof call.keepStdinOpen !== "boolean") {
    throw new BashConfigError(
      `"keepStdinOpen" must be true or false; got ${kindOf(call.keepStdinOpen)}; pass a boolean`,
    );
  }
  if (call.terminal !== undefined) checkTerminalSize("terminal", call.terminal);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new BashConfigError(
      `"signal" must be an AbortSignal; got ${kindOf(signal)}; pass an AbortController's signal`,
    );
  }
  if (call.onOutput !== undefined && typeof call.onOutput !== "function") {
    throw new BashConfigError(
      `"onOutput" must be a function; got ${
        kindOf(call.onOutput)
      }; pass (chunk) => ... to follow the output, or omit it`,
    );
  }
  checkLimits("limits", call.limits);
  checkEnv(call.env, call.managedEnv);
  checkEnvSizes("env", call.env as Record<string, string> | undefined);
  checkEnvSizes("managedEnv", call.managedEnv as Record<string, string> | undefined);
}

/** The parts of an executor's config that fill a request in. */
export interface RequestDefaults {
  /** Absolute directory that relative workdirs resolve against. */
  cwd: string;
  timeoutMs: number;
  maxTimeoutMs: number;
  maxOutputBytes: number;
  maxSpillBytes: number;
}

/**
 * Fills a request from an executor's defaults, for its `resolve()` (which
 * marks the result): the values checked, workdir resolved against `cwd`
 * (POSIX paths, the same on the host and on a remote one), `timeoutMs`
 * defaulted and capped, `stdoutMaxBytes` defaulted, and the policy from
 * `resolvePolicy`. Throws `BashConfigError` naming the field.
 */
export function fillRequest(
  request: BashExecRequest,
  defaults: RequestDefaults,
  resolvePolicy: (policy: SandboxPolicy | null | undefined) => SandboxPolicy | null,
): BashExecSpec {
  checkCallValues(request);
  const timeoutMs = Math.min(
    positiveFinite("timeoutMs", request.timeoutMs ?? defaults.timeoutMs),
    defaults.maxTimeoutMs,
  );
  const stdoutMaxBytes = outputBudget(
    "stdoutMaxBytes",
    request.stdoutMaxBytes ?? defaults.maxOutputBytes,
  );
  const workdir = checkText("workdir", request.workdir ?? ".", "a directory path");
  if (request.terminal !== undefined && request.keepStdinOpen === false) {
    throw new BashConfigError(
      `"keepStdinOpen: false" cannot go with a "terminal", whose input stays open for write(); leave "keepStdinOpen" out`,
    );
  }
  return {
    ...request,
    // A terminal's input stays open, for the executor and its confiner alike.
    ...(request.terminal === undefined ? {} : { keepStdinOpen: true }),
    workdir: posix.resolve(defaults.cwd, workdir),
    timeoutMs,
    stdoutMaxBytes,
    sandboxPolicy: resolvePolicy(request.sandboxPolicy),
  };
}

/** An executor's limits on the seam, from the same defaults. */
export function executorLimits(defaults: RequestDefaults): BashExecutorLimits {
  return {
    defaultTimeoutMs: defaults.timeoutMs,
    maxTimeoutMs: defaults.maxTimeoutMs,
    outputBytes: defaults.maxOutputBytes,
    maxStdoutBytes: MAX_OUTPUT_BYTES,
    maxSpillBytes: defaults.maxSpillBytes,
  };
}

/** Throws `BashConfigError` for what only a foreground call can take (`onOutput`). */
export function checkBackground(spec: BashExecSpec): void {
  if (spec.onOutput !== undefined) {
    throw new BashConfigError(
      `"onOutput" applies to run() only; read a background process's output with process.output()`,
    );
  }
}

/** Throws `BashConfigError` for what only a background call can take (`terminal`). */
export function checkForeground(spec: BashExecSpec): void {
  if (spec.terminal !== undefined) {
    throw new BashConfigError(
      `"terminal" applies to start() only (a terminal waits for input, which run() cannot give); start the command with start({ command, terminal }) and write to it`,
    );
  }
}
