import { resolve as resolvePath } from "node:path";
import { isSandboxMode, widerSandboxModes } from "../seam/sandbox.ts";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecutor,
  type BashProcess,
  type SandboxMode,
} from "../seam/mod.ts";
import {
  LiveUpdates,
  renderBackgroundStart,
  type RenderRunOptions,
  renderRunResult,
  renderTaskOutput,
  scrubbedSecrets,
} from "./render/mod.ts";
import { screenTaskHooks } from "./task_hooks.ts";
import { ScreenFeed } from "./_screen_feed.ts";
import { messageOf } from "../seam/message.ts";
import { failure } from "./_result.ts";
import { readTask } from "./_task_read.ts";
import { taskFailure } from "./_task_tools.ts";
import type { AgentTool, ToolCallContext, ToolResult } from "./tool.ts";
import type { BashToolsOptions } from "./options.ts";
import {
  BASH_CHECKS,
  bashInputSchema,
  MODE_MEANINGS,
  toolStandardSchema,
  validateToolArguments,
} from "./schemas/mod.ts";
import type { EscalationRequest } from "./escalation.ts";
import { checkCommandRules, type CommandRuleVerdict, interactiveEditor } from "./rules/mod.ts";
import { type TerminalTasks, TOOL_SCROLLBACK_ROWS, TOOL_TERMINAL_SIZE } from "./_task_input.ts";
import { TextScreen } from "./screen.ts";
import { DEFAULT_INPUT_WAIT_MS } from "./schemas/mod.ts";

interface BashArgs {
  command: string;
  description: string;
  timeout_ms?: number;
  workdir?: string;
  run_in_background?: boolean;
  sandbox_permissions?: SandboxMode;
  justification?: string;
  terminal?: boolean;
  rows?: number;
  cols?: number;
}

const CANCELLED = "The tool call was cancelled, so the command was not run";

/** Builds the `bash` tool over an executor; see `createBashTools`. */
export function createBashTool(
  options: BashToolsOptions,
  runInBackground: boolean,
  escalationModes: readonly SandboxMode[],
  terminals?: TerminalTasks,
): AgentTool {
  const defaultMode = options.executor.sandboxMode;
  const timeouts = timeoutLimits(options.executor);
  const inputSchema = bashInputSchema({
    escalationModes,
    runInBackground,
    timeouts,
    terminal: terminals !== undefined,
  });
  const render: RenderRunOptions = { escalationModes, runInBackground };
  const lines = [
    "Run a bash command and return its output.",
    "- Each call runs `bash -c <command>` in a fresh non-interactive shell with no terminal and empty stdin; cd, exports and variables do not carry over to the next call. Chain dependent steps with && and set workdir instead of using cd.",
    "- The result is stdout, then a [stderr] section, or (no output) when both are empty. Marker lines follow: [timed out after N ms] when the time limit stopped the command, then [killed by signal: SIGX] or [exit code: N]. Check them before you trust the output.",
    "- Long output keeps its beginning and its end; [output truncated: N bytes omitted; full output: <path>] names a file that holds all of it (search it with grep, head or tail; files of old results may be deleted to save disk space, so read what you need soon). Color codes and progress-bar redraws are removed.",
    "- Processes the command leaves running are stopped when it ends; a [stopped N background process(es) ...] line says so.",
  ];
  if (runInBackground) {
    lines.push(
      "- For servers, watchers and other commands that do not exit on their own, set run_in_background: true. The reply is at once: started background task <id>. Read the task's output with task_output and stop it with task_kill.",
    );
  }
  if (terminals !== undefined) {
    lines.push(
      "- For a program that needs a terminal or asks questions (a REPL, a debugger, a y/N prompt, vi, less, top), set terminal: true: it starts in the background in a terminal (24x80, or rows and cols) with TERM=xterm-256color, colours, pagers and editors as a person has them (git and gh still never ask for credentials), and the reply shows its first screen. Type into it and resize it with task_input, and make it exit (or stop it with task_kill) when done. Prefer plain commands when they do the job (a non-interactive flag, a heredoc, sed for edits).",
    );
  }
  if (defaultMode !== undefined) {
    lines.push(
      `- Commands run in a sandbox, by default in "${defaultMode}" mode: ${
        MODE_MEANINGS[defaultMode]
      }. A command the sandbox blocked gets a [sandbox: ...] line.`,
    );
  }
  if (escalationModes.length > 0) {
    lines.push(
      "- If a blocked command truly needs more access, run it again once with sandbox_permissions and a justification; a person approves or rejects that one call.",
    );
  }

  return {
    name: "bash",
    description: lines.join("\n"),
    inputSchema,
    standardSchema: toolStandardSchema("bash", inputSchema, BASH_CHECKS),
    execute: async (args, context) => {
      const check = validateToolArguments("bash", inputSchema, args, BASH_CHECKS);
      if (!check.ok) return failure(check.message);
      return await runBash(
        options,
        check.value as unknown as BashArgs,
        render,
        context,
        terminals,
      );
    },
  };
}

/** The executor's default and greatest time limits, as its `limits` give them. */
function timeoutLimits(executor: BashExecutor): { defaultMs: number; maxMs: number | undefined } {
  const { defaultTimeoutMs, maxTimeoutMs } = executor.limits;
  return { defaultMs: defaultTimeoutMs, maxMs: maxTimeoutMs ?? undefined };
}

/**
 * The mode this call runs under: an approved escalation, else the session's
 * override, else `undefined` (the executor's default). A person is asked only
 * when the mode asked for is wider than the one the session already runs
 * under. A refusal is the error result to return instead of running anything.
 */
async function chooseMode(
  options: BashToolsOptions,
  args: BashArgs,
  rule: CommandRuleVerdict | undefined,
  signal: AbortSignal | undefined,
): Promise<{ mode: SandboxMode | undefined } | { refusal: ToolResult }> {
  let session: SandboxMode | undefined;
  try {
    session = options.sessionMode?.();
  } catch (error) {
    return {
      refusal: failure(
        `The session's sandbox mode could not be read (${
          messageOf(error)
        }), so the command was not run; tell the user`,
      ),
    };
  }
  if (session !== undefined && !isSandboxMode(session)) {
    return {
      refusal: failure(
        `The session's sandbox mode ${
          JSON.stringify(session)
        } is not a known mode, so the command was not run; tell the user, who can set the mode again`,
      ),
    };
  }
  const asked = args.sandbox_permissions;
  const current = session ?? options.executor.sandboxMode;
  const widens = asked !== undefined &&
    (current === undefined || widerSandboxModes(current).includes(asked));
  const mode = asked ?? session;
  const ruleAsks = rule?.decision === "ask" ? rule : undefined;
  if (!widens && ruleAsks === undefined) return { mode };
  if (!options.approve) {
    // Escalation fields are offered only with an approver, so only a rule gets here.
    return {
      refusal: failure(
        `${policyLine(ruleAsks, "needs approval")}, and no one can approve it in this session; ` +
          "not run]",
      ),
    };
  }
  const request: EscalationRequest = {
    command: args.command,
    justification: args.justification ?? "",
  };
  if (widens) request.mode = asked;
  if (ruleAsks !== undefined) request.rule = ruleAsks;
  if (signal !== undefined) request.signal = signal;
  let decision: unknown;
  try {
    decision = await options.approve(request);
  } catch (error) {
    return {
      refusal: failure(
        `Asking for approval${widens ? ` of sandbox_permissions "${asked}"` : ""} failed (${
          messageOf(error)
        }), so the command was not run. ${
          widens ? "Run it without sandbox_permissions, or ask" : "Ask"
        } the user to run it`,
      ),
    };
  }
  if (decision !== "allow-once") {
    return {
      refusal: failure(
        widens
          ? `The user did not approve running this command with sandbox_permissions "${asked}", so it was not run. Do not ask again for the same command; continue without that access, or ask the user how to proceed`
          : `${
            policyLine(ruleAsks, "was not approved")
          }; not run]\nDo not ask again for the same command; continue without it, or ask the user how to proceed`,
      ),
    };
  }
  return { mode };
}

/** `[policy: "git push" <what> (<reason>)` (the caller closes the bracket). */
function policyLine(verdict: CommandRuleVerdict | undefined, what: string): string {
  const subject = verdict?.command === undefined ? "this command line" : `"${verdict.command}"`;
  return `[policy: ${subject} ${what} (${verdict?.reason ?? "no reason given"})`;
}

async function runBash(
  options: BashToolsOptions,
  args: BashArgs,
  render: RenderRunOptions,
  context: ToolCallContext | undefined,
  terminals: TerminalTasks | undefined,
): Promise<ToolResult> {
  const signal = context?.signal;
  if (signal?.aborted) return failure(CANCELLED);
  // An editor waits on a person: in a terminal, the model is that person.
  const editor = args.terminal === true ? undefined : interactiveEditor(args.command);
  if (editor !== undefined) return failure(editor);
  if (options.rules === undefined && options.unmatchedCommands === undefined) {
    return await runApproved(options, args, undefined, render, context, terminals);
  }
  const rule = checkCommandRules(
    args.command,
    options.rules ?? [],
    options.unmatchedCommands ?? "ask",
  );
  const result = rule.decision === "deny"
    ? failure(
      `${
        policyLine(rule, "is not allowed here")
      }; not run]\nDo not retry it or work around it; continue without it, or ask the user`,
    )
    : await runApproved(options, args, rule, render, context, terminals);
  return { ...result, rules: rule };
}

/** A refused value was not run; anything else could not be (a spawn failure). */
function notRun(error: unknown, verb: string): string {
  return error instanceof BashConfigError
    ? "The command was not run"
    : `The command could not be ${verb}`;
}

/** Runs a call the rules did not deny, once approved where it must be. */
async function runApproved(
  options: BashToolsOptions,
  args: BashArgs,
  rule: CommandRuleVerdict | undefined,
  render: RenderRunOptions,
  context: ToolCallContext | undefined,
  terminals: TerminalTasks | undefined,
): Promise<ToolResult> {
  const { executor, tasks, owner } = options;
  const signal = context?.signal;
  const choice = await chooseMode(options, args, rule, signal);
  if ("refusal" in choice) return choice.refusal;
  // The call may have been cancelled while a person was asked.
  if (signal?.aborted) return failure(CANCELLED);
  const { mode } = choice;

  const terminal = args.terminal === true && terminals !== undefined;
  const background = args.run_in_background === true || terminal;
  const request: BashExecRequest = { command: args.command };
  const size = {
    rows: args.rows ?? TOOL_TERMINAL_SIZE.rows,
    cols: args.cols ?? TOOL_TERMINAL_SIZE.cols,
  };
  if (terminal) request.terminal = size;
  const workdir = args.workdir === undefined
    ? options.workdir
    : options.workdir === undefined
    ? args.workdir
    : resolvePath(options.workdir, args.workdir);
  if (workdir !== undefined) request.workdir = workdir;
  if (args.timeout_ms !== undefined) request.timeoutMs = args.timeout_ms;
  if (!background && signal) request.signal = signal;

  // The chosen mode: the executor's default policy in that mode.
  const policy = executor.defaultSandboxPolicy;
  if (mode !== undefined && policy !== undefined) request.sandboxPolicy = { ...policy, mode };

  if (!background) {
    const onUpdate = context?.onUpdate;
    const live = typeof onUpdate === "function"
      ? new LiveUpdates(onUpdate, executor.limits.outputBytes, render.secrets ?? scrubbedSecrets())
      : undefined;
    if (live !== undefined) request.onOutput = live.take;
    try {
      return renderRunResult(await executor.run(request), render);
    } catch (error) {
      return failure(`${notRun(error, "run")}: ${messageOf(error)}`);
    } finally {
      live?.finish();
    }
  }
  try {
    tasks.checkCapacity(owner);
  } catch (error) {
    return failure(`The command was not started: ${taskFailure(error)}`);
  }
  let process: BashProcess;
  try {
    process = await executor.start(request);
  } catch (error) {
    return failure(`${notRun(error, "started")}: ${messageOf(error)}`);
  }
  try {
    const feed = !terminal ? undefined : new ScreenFeed(
      process,
      options.screen !== undefined
        ? options.screen({ ...size })
        : new TextScreen(size.rows, size.cols, TOOL_SCROLLBACK_ROWS),
    );
    const hooks = screenTaskHooks(process, feed);
    const { id } = tasks.register({ kind: "bash", label: args.command, owner, hooks });
    if (feed === undefined) return { text: renderBackgroundStart(id), isError: false };
    terminals?.add(id, { process, feed, size }, hooks.done);
    // The first screen, as task_input shows it after typing.
    await feed.awaitAnswer("", DEFAULT_INPUT_WAIT_MS, signal);
    return {
      text: `${
        renderBackgroundStart(id)
      } in a ${size.rows}x${size.cols} terminal; type into it with task_input\n${
        renderTaskOutput(await readTask(tasks, id, owner), render)
      }`,
      isError: false,
    };
  } catch (error) {
    await process.kill();
    await process.done;
    return failure(
      `The background command was stopped because it could not be registered: ${messageOf(error)}`,
    );
  }
}
