import type { ToolResult } from "./tool.ts";

/**
 * A tool call that failed (its result has `isError: true`), thrown by the
 * framework adapters because the frameworks take a throw as a failed call.
 * The message is the result's whole text, so the model reads the command's
 * output and markers as it would from `execute`; `result` is the result.
 *
 * @example
 * ```ts
 * import { ToolCallError } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const error = new ToolCallError("bash", { text: "oops\n[exit code: 1]", isError: true });
 * assert.equal(error.message, "oops\n[exit code: 1]");
 * assert.equal(error.toolName, "bash");
 * assert.equal(error.result.isError, true);
 * assert.equal(String(error), "oops\n[exit code: 1]");
 * ```
 */
export class ToolCallError extends Error {
  /** The tool that failed. */
  readonly toolName: string;
  /** The failed call's result. */
  readonly result: ToolResult;

  /** `result` is the failed call's result, whose text becomes the message. */
  constructor(toolName: string, result: ToolResult) {
    super(result.text);
    this.name = "ToolCallError";
    this.toolName = toolName;
    this.result = result;
  }

  /**
   * The message alone, without the usual `ToolCallError: ` before it: a
   * framework that sends the model `String(error)` (the AI SDK does) sends
   * the text as the tool wrote it.
   */
  override toString(): string {
    return this.message;
  }
}
