import { BashConfigError } from "../seam/mod.ts";
import { checkEnv } from "./_env.ts";
import { checkEnvSizes } from "./_exec.ts";
import { checkLimits } from "./_limits.ts";
import { checkKnownKeys, fitsTimer, kindOf, positiveFinite } from "../seam/_checks.ts";

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
  "env",
  "managedEnv",
  "sandboxPolicy",
  "limits",
  "onOutput",
];

/**
 * Checks the values a request and a spec share, before anything is spawned:
 * no unknown key, the command, the idle clock, stdin, `keepStdinOpen`, the
 * abort signal and both env maps. Throws `BashConfigError` naming the field.
 */
export function checkCallValues(call: {
  command: unknown;
  idleTimeoutMs?: unknown;
  stdin?: unknown;
  keepStdinOpen?: unknown;
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
