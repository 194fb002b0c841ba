/**
 * System-prompt guidance for a model that has the bash and task tools: read
 * the markers, do not busy-poll, collect background tasks before answering.
 *
 * @example
 * ```ts
 * import { BASH_TOOL_GUIDANCE } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const systemPrompt = `You are a coding agent.\n\n${BASH_TOOL_GUIDANCE}`;
 * assert.match(systemPrompt, /\[exit code: N\]/);
 * ```
 */
export const BASH_TOOL_GUIDANCE: string = `# Running shell commands
- Every bash call starts a fresh non-interactive shell: no terminal, empty stdin, and no cd, export or variable carries over to the next call. Chain dependent steps with && and use workdir instead of cd.
- Check the markers at the end of each result before you trust the output: [exit code: N] (0 is success), [killed by signal: ...], [timed out after N ms], [output truncated: ...] (the full output is in the file it names; read it with grep, head or tail rather than printing all of it), and any [sandbox: ...] line.
- Commands that do not exit on their own (servers, watchers, long builds) need run_in_background: true. A foreground command that leaves processes behind has them stopped when it ends.
- Do not busy-poll a background task. Call task_output with wait: true (and a timeout_ms) to block until it finishes, and do other work in the meantime. A notice tells you when a task you have not looked at finishes.
- Before you give your final answer, collect every background task you started: read its output with task_output, or stop it with task_kill if it is no longer needed. Use task_list to see them.
- Escalating the sandbox with sandbox_permissions asks a person for approval; do it only after a sandbox denial of a command that truly needs the access, and say why in justification.`;
