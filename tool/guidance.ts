/**
 * System-prompt guidance for a model that has the bash and task tools: check
 * the exit marker, do not busy-poll, collect background tasks before
 * answering, and when to use a terminal and how to leave its programs.
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
- Each bash call runs in a fresh non-interactive shell: no terminal, empty stdin, and no cd, export or variable carries over to the next call. Chain dependent steps with && and use workdir instead of cd.
- Check the marker lines at the end of every bash result before you trust the output: [timed out after N ms] when the time limit stopped the command, then [exit code: N] (0 means success) or [killed by signal: SIGX]. [output truncated: N bytes omitted; full output: <path>] means the full output is in that file: search it with grep, head or tail rather than printing all of it.
- Commands that do not exit on their own (servers, watchers, long builds) need run_in_background: true. A foreground command's leftover processes are stopped when it ends.
- Do not busy-poll a background task. Call task_output with wait: true (and a timeout_ms) to block until it finishes, or do other work meanwhile: when a task you have not looked at finishes, you get a notice.
- Before you give your final answer, collect every background task you started: read its output with task_output, or stop it with task_kill if you no longer need it. task_list shows them all.
- When the bash tool offers terminal, use terminal: true only for programs that need one or wait for input (REPLs, debuggers, y/N prompts, vi, less, top); otherwise prefer a non-interactive flag or a heredoc. Type into it with task_input ("\\r" is Enter) and resize it with task_input's rows and cols. Quit what you started: q for less, top and man; "\\u001b:q!\\r" for vi (or :wq to save); exit() or "\\u0004" (Ctrl-D) for a REPL; "\\u0003" (Ctrl-C) to stop a command; task_kill if nothing else works. In a terminal, colours, pagers and editors are on, but git and gh still never ask for credentials (GIT_TERMINAL_PROMPT=0, git's ssh in batch mode: they fail instead) and apt stays non-interactive.
- If a bash command was blocked by the sandbox ([sandbox: ...]) and truly needs more access, you may run it again once with sandbox_permissions and a justification, when the bash tool offers them; a person approves or rejects that call.`;
