import type { ToolResult } from "./tool.ts";

/** An error result with a text for the model. */
export function failure(text: string): ToolResult {
  return { text, isError: true };
}
