import type { ToolResult } from "./tool.ts";

/** An error result with a text for the model. */
export function failure(text: string): ToolResult {
  return { text, isError: true };
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
