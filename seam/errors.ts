/**
 * The machine-readable reason a {@linkcode BashError} was thrown.
 *
 * @example
 * ```ts
 * import { BashError, type BashErrorCode } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * function codeOf(error: unknown): BashErrorCode | undefined {
 *   return error instanceof BashError ? error.code : undefined;
 * }
 * assert.equal(codeOf(new BashError("spawn", "No bash; install it")), "spawn");
 * assert.equal(codeOf(new Error("other")), undefined);
 * ```
 */
export type BashErrorCode =
  | "config"
  | "spawn"
  | "sandbox-unavailable"
  | "unknown-task"
  | "task-ownership"
  | "expired-task"
  | "disposed-task"
  | "task-limit"
  | "git-commit";

/**
 * Base class of every error shellseam throws on purpose. Check `code` (or
 * `instanceof` a subclass) to branch; the message says what to do.
 *
 * @example Branch on the error code
 * ```ts
 * import { BashConfigError, BashError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const error: unknown = new BashConfigError('"timeoutMs" must be a positive finite number; got -1');
 * assert.ok(error instanceof BashError);
 * assert.equal(error.code, "config");
 * ```
 */
export class BashError extends Error {
  /** Which kind of failure this is. */
  readonly code: BashErrorCode;

  /** Creates an error with a code and a message that says what to do. */
  constructor(code: BashErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "BashError";
    this.code = code;
  }
}

/**
 * An executor or a call was given an invalid value (a timeout that is not a
 * positive finite number, an env key in the wrong namespace, ...).
 *
 * @example
 * ```ts
 * import { BashConfigError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const error = new BashConfigError('"timeoutMs" must be a positive finite number; got 0');
 * assert.equal(error.name, "BashConfigError");
 * ```
 */
export class BashConfigError extends BashError {
  /** Creates a config error. */
  constructor(message: string, options?: ErrorOptions) {
    super("config", message, options);
    this.name = "BashConfigError";
  }
}

/**
 * The command could not be started at all: missing workdir, missing shell,
 * pre-aborted signal, disposed executor. A command that ran and failed is not
 * an error; it resolves with its exit code.
 *
 * @example
 * ```ts
 * import { BashSpawnError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const error = new BashSpawnError('Workdir "/nope" does not exist; pass an existing directory');
 * assert.equal(error.code, "spawn");
 * ```
 */
export class BashSpawnError extends BashError {
  /** Creates a spawn error. */
  constructor(message: string, options?: ErrorOptions) {
    super("spawn", message, options);
    this.name = "BashSpawnError";
  }
}

/**
 * A confined sandbox mode was asked for but no backend works on this machine.
 * The command was not run: shellseam never runs unconfined by accident.
 *
 * @example
 * ```ts
 * import { BashSpawnError, SandboxUnavailableError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const error = new SandboxUnavailableError("No sandbox backend works here", [
 *   { backend: "bwrap", reason: '"bwrap" was not found on PATH' },
 * ]);
 * assert.ok(error instanceof BashSpawnError);
 * assert.equal(error.code, "sandbox-unavailable");
 * ```
 */
export class SandboxUnavailableError extends BashSpawnError {
  /** Always `"sandbox-unavailable"`. */
  override readonly code: BashErrorCode = "sandbox-unavailable";
  /** Each backend that was tried, and why it failed. */
  readonly attempts: readonly { backend: string; reason: string }[];

  /** Creates the error; the attempts are appended to the message. */
  constructor(
    message: string,
    attempts: readonly { backend: string; reason: string }[],
    options?: ErrorOptions,
  ) {
    const tried = attempts.map((a) => `${a.backend}: ${a.reason}`).join("; ");
    super(tried ? `${message} (tried ${tried})` : message, options);
    this.name = "SandboxUnavailableError";
    this.attempts = attempts;
  }
}
