/**
 * The bash seam: the abstract {@linkcode BashExecutor}, the vocabulary every
 * backend and consumer shares, the managed-env namespace and the error types.
 *
 * @example
 * ```ts
 * import { BashExecutor, MANAGED_ENV_PREFIX } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof BashExecutor, "function");
 * assert.equal(MANAGED_ENV_PREFIX, "SHELLSEAM_");
 * ```
 *
 * @module
 */
export * from "./env.ts";
export * from "./errors.ts";
export * from "./executor.ts";
export * from "./limits.ts";
export * from "./output.ts";
export * from "./process.ts";
export * from "./request.ts";
export * from "./result.ts";
export * from "./sandbox.ts";
