/**
 * The MCP server: the bash and task tools over the Model Context Protocol,
 * on the official SDK's low-level `Server` (the tool layer's JSON Schemas are
 * served as they are).
 *
 * @module
 */
import { resolve } from "node:path";
import process from "node:process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { BashExecutor } from "@shellseam/bash";
import { taskOwner, TaskRegistry } from "@shellseam/bash/tasks";
import {
  type ApproveEscalation,
  BASH_TOOL_GUIDANCE,
  type BashTools,
  type CommandDecision,
  type CommandRule,
  createBashTools,
  toMcpTool,
  type ToolUpdate,
} from "@shellseam/bash/tool";
import { modeFlag, networkFlag, parseFlags, SANDBOX_FLAGS } from "./_args.ts";
import { cliExecutor } from "./_executor.ts";
import { type CliIo, processIo } from "./_io.ts";
import { readRulesFile } from "./_rules.ts";
import { CLI_VERSION } from "./_version.ts";

/**
 * The CLI package's version (cli/deno.json `version`, which a test holds it
 * to): what `shellseam --version` prints and the MCP server reports.
 */
export const SHELLSEAM_CLI_VERSION: string = CLI_VERSION;

/**
 * What {@linkcode createMcpServer} serves.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { McpServerOptions } from "@shellseam/cli/mcp";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * await using tasks = new TaskRegistry();
 * const options: McpServerOptions = { executor, tasks, enableRunInBackground: false };
 * assert.equal(options.enableRunInBackground, false);
 * ```
 */
export interface McpServerOptions {
  /** Runs the commands; a `SandboxBashExecutor` confines them. */
  executor: BashExecutor;
  /** Holds the background commands of the one client this server serves. */
  tasks: TaskRegistry<unknown>;
  /** Offer `run_in_background` and the task tools (default true). */
  enableRunInBackground?: boolean;
  /**
   * Offer `terminal` on `bash` and the `task_input` tool, which types into a
   * command's terminal and reads its screen (default false; see `createBashTools`).
   */
  enableTerminal?: boolean;
  /** Command rules (see `createBashTools`); `ask` is answered through elicitation. */
  rules?: CommandRule[];
  /** The decision for commands no rule matches (default `"ask"` with rules). */
  unmatchedCommands?: CommandDecision;
}

/**
 * An MCP server for one client: `tools/list` serves `bash`, `task_output`,
 * `task_list` and `task_kill` with the tool layer's schemas and
 * descriptions; `tools/call` runs them, renders the result as the model
 * sees it (a failed command is `isError`) and appends the completion notices
 * of background tasks that are due. `BASH_TOOL_GUIDANCE` is the server's
 * `instructions`. A call the client cancels kills its command. Escalation
 * (`sandbox_permissions`) is offered only to a client that supports
 * elicitation, and each one is asked of the user through it; a decline, a
 * cancel or an error runs nothing. Connect it to a transport with
 * `server.connect(transport)`; closing it does not dispose the executor nor
 * the registry.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createMcpServer } from "@shellseam/cli/mcp";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry } from "@shellseam/bash/tasks";
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const server = createMcpServer({ executor, tasks });
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(clientSide);
 * const result = await client.callTool({
 *   name: "bash",
 *   arguments: { command: "echo hi", description: "Say hi" },
 * });
 * assert.deepEqual(result.content, [{ type: "text", text: "hi\n[exit code: 0]" }]);
 * await client.close();
 * ```
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: "shellseam", version: SHELLSEAM_CLI_VERSION },
    { capabilities: { tools: {} }, instructions: BASH_TOOL_GUIDANCE },
  );
  const approve: ApproveEscalation = async (request) => {
    const why = [
      ...(request.rule === undefined ? [] : [`A command rule asks first: ${request.rule.reason}.`]),
      ...(request.mode === undefined
        ? []
        : [`It asks to run under "${request.mode}": ${request.justification}`]),
    ];
    const answer = await server.elicitInput({
      message: `The agent asks to run one command:\n\n${request.command}\n\n${why.join("\n")}`,
      requestedSchema: {
        type: "object",
        properties: {
          allow: {
            type: "boolean",
            title: "Allow this one command",
            description: request.mode === undefined
              ? "Run it once"
              : `Run it once under "${request.mode}"`,
          },
        },
        required: ["allow"],
      },
    }, request.signal === undefined ? {} : { signal: request.signal });
    return answer.action === "accept" && answer.content?.allow === true ? "allow-once" : "reject";
  };
  // The tools depend on whether the client can answer an elicitation, which
  // is known once it has initialised.
  let session: BashTools | undefined;
  const tools = (): BashTools =>
    session ??= createBashTools({
      executor: options.executor,
      tasks: options.tasks,
      owner: taskOwner("mcp-client"),
      enableRunInBackground: options.enableRunInBackground ?? true,
      ...(options.enableTerminal === undefined ? {} : { enableTerminal: options.enableTerminal }),
      ...(server.getClientCapabilities()?.elicitation === undefined ? {} : { approve }),
      ...(options.rules === undefined ? {} : { rules: options.rules }),
      ...(options.unmatchedCommands === undefined
        ? {}
        : { unmatchedCommands: options.unmatchedCommands }),
    });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools().tools.map(toMcpTool) }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (
      request: CallToolRequest,
      extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    ): Promise<CallToolResult> => {
      const { tools: offered, takeNotices } = tools();
      const tool = offered.find((candidate) => candidate.name === request.params.name);
      if (tool === undefined) {
        const names = offered.map((candidate) => `"${candidate.name}"`).join(", ");
        return {
          content: [{
            type: "text",
            text: `Unknown tool "${request.params.name}"; call one of ${names}`,
          }],
          isError: true,
        };
      }
      const result = await tool.execute(request.params.arguments ?? {}, {
        signal: extra.signal,
        ...progressUpdates(request, extra),
      });
      const notices = takeNotices();
      const text = notices.length === 0 ? result.text : `${result.text}\n\n${notices.join("\n\n")}`;
      return { content: [{ type: "text", text }], isError: result.isError };
    },
  );
  return server;
}

/** The most characters of output one progress notification carries (its last ones). */
const PROGRESS_MESSAGE_CHARS = 4000;

/**
 * When the client asked for progress (a `progressToken` in the request's
 * `_meta`), an `onUpdate` that sends each update as `notifications/progress`
 * with the output so far as its message; else nothing.
 */
function progressUpdates(
  request: CallToolRequest,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): { onUpdate?: (update: ToolUpdate) => void } {
  const progressToken = request.params._meta?.progressToken;
  if (progressToken === undefined) return {};
  let progress = 0;
  return {
    onUpdate: ({ text }) => {
      progress++;
      const message = text.length > PROGRESS_MESSAGE_CHARS
        ? text.slice(text.length - PROGRESS_MESSAGE_CHARS)
        : text;
      extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress, message },
      }).catch(() => {
        // The client went away; the call's own answer reports what matters.
      });
    },
  };
}

/** The usage of `shellseam mcp`. */
export const MCP_USAGE: string = `Usage: shellseam mcp [options]

Serves the bash, task_output, task_list and task_kill tools over MCP on stdin
and stdout, every command confined by the sandbox. Stops, killing every
command it started, when stdin closes or on SIGTERM or SIGINT.

Options:
  --mode MODE        read-only | workspace-write (default) | danger-full-access
  --network NET      deny (default) | allow | allow:HOST[,HOST...] (an allow-list
                     reached through the executor's proxy; *.domain wildcards)
  --workspace DIR    the workspace (default: the current directory)
  --no-background    offer no run_in_background and no task tools
  --terminal         offer terminal: true on bash and the task_input tool, for
                     programs that need a terminal (REPLs, prompts, vi, top)
  --rules FILE       command rules (JSON: { "rules": [...], "unmatched": "ask" }); a
                     rule's "ask" is put to the user through elicitation
  -h, --help         show this help
`;

/**
 * `shellseam mcp`: serves one client over `transport` (stdio by default)
 * until it closes (or stdin ends, or SIGTERM or SIGINT), then kills and
 * awaits every command. Returns the exit code. Its help goes to `io`'s
 * stdout, and relative paths start from `io.cwd` (the process's own by
 * default); the stdio transport always speaks on the process's stdin and
 * stdout.
 */
export async function mcpCommand(
  args: string[],
  transport?: Transport,
  io: CliIo = processIo(),
): Promise<number> {
  const { values } = parseFlags(args, {
    ...SANDBOX_FLAGS,
    "no-background": { type: "boolean" },
    terminal: { type: "boolean" },
    rules: { type: "string" },
  }, MCP_USAGE);
  if (values.help) {
    io.stdout.write(MCP_USAGE);
    return 0;
  }
  const mode = modeFlag(values.mode, "workspace-write", MCP_USAGE);
  const network = networkFlag(values.network, MCP_USAGE);
  const rules = values.rules === undefined
    ? {}
    : readRulesFile(resolve(io.cwd, values.rules), resolve(io.cwd, values.workspace ?? "."));
  await using executor = cliExecutor({ mode, network, workspace: values.workspace }, io.cwd);
  await using tasks = new TaskRegistry();
  const server = createMcpServer({
    executor,
    tasks,
    enableRunInBackground: values["no-background"] !== true,
    enableTerminal: values.terminal === true,
    ...rules,
  });
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => stop = resolve);
  server.onclose = stop;
  const signals = ["SIGTERM", "SIGINT"] as const;
  for (const signal of signals) process.on(signal, stop);
  const stdio = transport === undefined;
  if (stdio) {
    process.stdin.on("end", stop);
    process.stdin.on("close", stop);
  }
  try {
    await server.connect(transport ?? new StdioServerTransport());
    await stopped;
  } finally {
    for (const signal of signals) process.off(signal, stop);
    if (stdio) {
      process.stdin.off("end", stop);
      process.stdin.off("close", stop);
    }
    await server.close();
  }
  return 0;
}
