import { ToolCallError } from "./call_error.ts";
import type { AgentTool } from "./tool.ts";

/**
 * Runs `tool` on `input` (with the framework's abort signal, when it gave
 * one) and returns its text, or throws its failed result as a
 * {@linkcode ToolCallError}: the frameworks that take a throw as a failed
 * call (the AI SDK, the OpenAI Agents SDK) get it that way.
 */
export async function textOrThrow(
  tool: AgentTool,
  input: unknown,
  signal: AbortSignal | undefined,
): Promise<string> {
  const result = await tool.execute(input, signal ? { signal } : {});
  if (result.isError) throw new ToolCallError(tool.name, result);
  return result.text;
}
