// `shellseam mcp` end to end: the SDK's own Client drives the server, whose
// commands run in the real sandbox. What the server does is checked over an
// in-memory transport to `mcpCommand()` in this process (under Deno) and over
// stdio to the Node build's `bin` (when SHELLSEAM_NODE_CLI names it); what is
// about the process (it ends every command and exits when its client
// closes, on SIGTERM and on SIGINT) over stdio to a real server process: the
// Deno entry, `deno task mcp` and the Node bin.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { BASH_TOOL_GUIDANCE, createBashTools, toMcpTool } from "../../tool/mod.ts";
import { probeHere, tempWorkspace } from "../sandbox/_fixtures.ts";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const statuses = await probeHere();
const sandboxSkip = statuses.bwrap.works || statuses.landlock.works
  ? false
  : "no sandbox backend works here (install bubblewrap, or Deno on a Landlock kernel)";

/**
 * The CLI's `mcpCommand()`, as cli/mcp.ts exports it: serves one client over
 * `transport` until it closes.
 */
type McpCommand = (
  args: string[],
  transport: Transport,
  io: { stdout: typeof process.stderr; stderr: typeof process.stderr; cwd: string },
) => Promise<number>;

/**
 * The CLI's `mcpCommand()`, imported under Deno only (the Node leg has no
 * checkout's cli/ folder, and drives its bin instead); the specifier is a
 * value, so the Node leg's compiler does not follow it either.
 */
const mcpCommand: McpCommand | undefined = "Deno" in globalThis
  ? (await import(pathToFileURL(MAIN.replace(/main\.ts$/, "mcp.ts")).href) as {
    mcpCommand: McpCommand;
  }).mcpCommand
  : undefined;

/**
 * How to reach a server: `mcpCommand()` in this process (`inProcess`), or a
 * process started with `command` and `args` (the Deno entry always, the
 * Node build's bin when built).
 */
interface Entry {
  name: string;
  command: string;
  args: string[];
  skip: string | false;
  inProcess?: true;
}

/** The in-process server, where what the server does is checked under Deno. */
const IN_PROCESS: Entry = {
  name: "in-process",
  command: "",
  args: [],
  skip: mcpCommand === undefined ? "calls mcpCommand() from a checkout (Deno)" : false,
  inProcess: true,
};

/** The server processes: the Deno entry, and the Node build's bin when built. */
const ENTRIES: Entry[] = [
  {
    name: "deno",
    command: process.execPath,
    args: ["run", "--allow-all", MAIN],
    skip: "Deno" in globalThis ? false : "runs the Deno entry from a checkout",
  },
  {
    name: "node",
    command: "node",
    args: [process.env.SHELLSEAM_NODE_CLI ?? ""],
    skip: process.env.SHELLSEAM_NODE_CLI
      ? false
      : "SHELLSEAM_NODE_CLI does not name the Node build's bin (deno task test:node sets it)",
  },
];

type Elicit = (message: string) => ElicitResult;

/**
 * A client connected to a server started as `entry` says, serving
 * `workspace`; `close()` closes the client and, for an in-process server,
 * waits until the server has ended every command and returned 0.
 */
async function connect(
  entry: Entry,
  workspace: string,
  options: { elicit?: Elicit; args?: string[] } = {},
): Promise<{
  client: Client;
  /** The stdio transport to a server process (none in process). */
  transport: StdioClientTransport | undefined;
  asked: string[];
  close: () => Promise<void>;
}> {
  const args = ["mcp", "--workspace", workspace, ...(options.args ?? [])];
  if (entry.inProcess) {
    assert.ok(mcpCommand !== undefined, "mcpCommand() is imported under Deno only");
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // Whatever the server would print shows in the test's log.
    const io = { stdout: process.stderr, stderr: process.stderr, cwd: process.cwd() };
    const served = mcpCommand(args.slice(1), serverSide, io);
    const client = await connectClient(clientSide, options.elicit);
    return {
      ...client,
      transport: undefined,
      close: async () => {
        await client.client.close();
        assert.equal(await served, 0);
      },
    };
  }
  const transport = new StdioClientTransport({
    command: entry.command,
    args: [...entry.args, ...args],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
    stderr: "inherit",
  });
  const client = await connectClient(transport, options.elicit);
  return { ...client, transport, close: () => client.client.close() };
}

/** The SDK's client over `transport`, answering elicitations with `elicit` when given. */
async function connectClient(
  transport: Transport,
  elicit?: Elicit,
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(
    { name: "shellseam-test", version: "1.0.0" },
    { capabilities: elicit === undefined ? {} : { elicitation: {} } },
  );
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
      const message = "message" in request.params ? String(request.params.message) : "";
      asked.push(message);
      return elicit(message);
    });
  }
  await client.connect(transport);
  return { client, asked };
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  assert.equal(content.length, 1);
  const [first] = content;
  assert.ok(first?.type === "text");
  return first.text;
}

/** Pids of processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) pids.push(Number(name));
    } catch {
      // The process ended while the list was read.
    }
  }
  return pids;
}

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// What the server does: in this process under Deno, the Node bin on the Node leg.
for (const entry of [IN_PROCESS, ...ENTRIES.filter((entry) => entry.name === "node")]) {
  describe(`shellseam mcp (${entry.name} entry)`, { skip: entry.skip || sandboxSkip }, () => {
    // The Node bin runs the cases that cross its transport and its runtime
    // (tools, a confined run, progress, tasks, cancellation); the server's own
    // decisions (escalation, rules, which tools) are the same TypeScript,
    // checked in-process under Deno.
    const decisions = entry.inProcess === true
      ? false
      : "the server's own decisions, checked in-process under Deno";
    it("lists the tool layer's tools with their schemas, and the guidance as instructions", async () => {
      using workspace = tempWorkspace();
      const { client, close } = await connect(entry, workspace.root);
      try {
        const listed = await client.listTools();
        await using executor = new SandboxBashExecutor({
          workspaceRoot: workspace.root,
          defaultMode: "workspace-write",
        });
        await using tasks = new TaskRegistry();
        const expected = createBashTools({ executor, tasks, owner: taskOwner("x") }).tools
          .map(toMcpTool);
        assert.deepEqual(
          listed.tools.map(({ name, description, inputSchema }: Tool) => ({
            name,
            description,
            inputSchema,
          })),
          expected,
        );
        assert.equal(client.getInstructions(), BASH_TOOL_GUIDANCE);
      } finally {
        await close();
      }
    });

    it("runs a command confined, and a failing one is isError", async () => {
      using workspace = tempWorkspace();
      const { client, close } = await connect(entry, workspace.root);
      try {
        const ok = await client.callTool({
          name: "bash",
          arguments: { command: "echo hi > out.txt && cat out.txt", description: "Write a file" },
        });
        assert.equal(textOf(ok), "hi\n[exit code: 0]");
        assert.equal(ok.isError, false);
        const denied = await client.callTool({
          name: "bash",
          arguments: { command: "echo x > /etc/shellseam-mcp-test", description: "Escape" },
        });
        assert.equal(denied.isError, true);
        assert.match(textOf(denied), /\[sandbox: file access denied under workspace-write mode\]/);
        assert.equal(existsSync("/etc/shellseam-mcp-test"), false);
        const unknown = await client.callTool({ name: "nope", arguments: {} });
        assert.equal(unknown.isError, true);
        assert.match(textOf(unknown), /^Unknown tool "nope"; call one of "bash", /);
      } finally {
        await close();
      }
    });

    it("sends progress notifications with the output so far when the client asks for progress", async () => {
      using workspace = tempWorkspace();
      const { client, close } = await connect(entry, workspace.root);
      try {
        const progress: { progress: number; message?: string }[] = [];
        const result = await client.callTool(
          {
            name: "bash",
            arguments: {
              command: "for i in 1 2 3 4 5 6 7 8; do echo tick$i; sleep 0.25; done",
              description: "Print over two seconds",
            },
          },
          undefined,
          { onprogress: (update: { progress: number; message?: string }) => progress.push(update) },
        );
        assert.equal(result.isError, false);
        assert.ok(progress.length >= 2, `expected several notifications, got ${progress.length}`);
        assert.match(progress[0]?.message ?? "", /^tick1/);
        assert.match(progress.at(-1)?.message ?? "", /tick8$/);
        for (let i = 1; i < progress.length; i++) {
          assert.ok(progress[i]!.progress > progress[i - 1]!.progress);
        }
        const quiet = await client.callTool({
          name: "bash",
          arguments: { command: "echo once", description: "No progress asked" },
        });
        assert.equal(textOf(quiet), "once\n[exit code: 0]");
      } finally {
        await close();
      }
    });

    it("starts a background task, delivers its notice on a later call, reads and kills tasks", async () => {
      using workspace = tempWorkspace();
      const marker = `mcp-kill-${crypto.randomUUID()}`;
      const { client, close } = await connect(entry, workspace.root);
      try {
        const started = textOf(
          await client.callTool({
            name: "bash",
            arguments: { command: "echo done-once", description: "Echo", run_in_background: true },
          }),
        );
        const id = /bash-\d+/.exec(started)?.[0];
        assert.ok(id !== undefined, started);
        const long = textOf(
          await client.callTool({
            name: "bash",
            arguments: {
              command: `sleep 300; : ${marker}`,
              description: "Sleep",
              run_in_background: true,
            },
          }),
        );
        const longId = /bash-\d+/.exec(long)?.[0];
        assert.ok(longId !== undefined && longId !== id, long);
        // A later call carries the first task's completion notice: the second
        // start's own, when the first task ended while it ran, or one after it.
        let later = long;
        for (let i = 0; i < 100 && !later.includes(id); i++) {
          later = textOf(
            await client.callTool({
              name: "bash",
              arguments: { command: "sleep 0.05", description: "Wait" },
            }),
          );
        }
        assert.ok(later.includes(id), later);
        const output = textOf(
          await client.callTool({ name: "task_output", arguments: { task_id: id } }),
        );
        assert.match(output, /done-once/);
        const killed = await client.callTool({
          name: "task_kill",
          arguments: { task_id: longId },
        });
        assert.equal(killed.isError, false, textOf(killed));
        await eventually(() => processesWith(marker).length === 0, "the killed task is gone");
      } finally {
        await close();
      }
    });

    it("kills the command of a call the client cancels", async () => {
      using workspace = tempWorkspace();
      const marker = `mcp-cancel-${crypto.randomUUID()}`;
      const { client, close } = await connect(entry, workspace.root);
      try {
        const controller = new AbortController();
        const call = client.callTool(
          { name: "bash", arguments: { command: `sleep 300; : ${marker}`, description: "Sleep" } },
          undefined,
          { signal: controller.signal },
        );
        await eventually(() => processesWith(marker).length > 0, "the command runs");
        controller.abort();
        await assert.rejects(call);
        await eventually(() => processesWith(marker).length === 0, "the cancelled command is gone");
      } finally {
        await close();
      }
    });

    it("asks the user through elicitation for an escalation, and runs only what was allowed", {
      skip: decisions,
    }, async () => {
      using workspace = tempWorkspace();
      let allow = true;
      const { client, asked, close } = await connect(entry, workspace.root, {
        args: ["--mode", "read-only"],
        elicit: () => ({ action: "accept", content: { allow } }),
      });
      try {
        const tools = await client.listTools();
        const bash = tools.tools.find((tool: Tool) => tool.name === "bash");
        assert.ok(bash?.inputSchema.properties?.sandbox_permissions !== undefined);
        const call = (file: string) =>
          client.callTool({
            name: "bash",
            arguments: {
              command: `echo x > ${file}`,
              description: "Write",
              sandbox_permissions: "workspace-write",
              justification: "The task needs the file",
            },
          });
        const allowed = await call("allowed.txt");
        assert.equal(allowed.isError, false, textOf(allowed));
        assert.equal(existsSync(`${workspace.root}/allowed.txt`), true);
        allow = false;
        const rejected = await call("rejected.txt");
        assert.equal(rejected.isError, true);
        assert.equal(existsSync(`${workspace.root}/rejected.txt`), false);
        assert.equal(asked.length, 2);
        assert.match(asked[0] ?? "", /echo x > allowed\.txt/);
        assert.match(asked[0] ?? "", /The task needs the file/);
      } finally {
        await close();
      }
    });

    it("offers no escalation to a client without elicitation, so it fails closed", {
      skip: decisions,
    }, async () => {
      using workspace = tempWorkspace();
      const { client, close } = await connect(entry, workspace.root, {
        args: ["--mode", "read-only"],
      });
      try {
        const tools = await client.listTools();
        const bash = tools.tools.find((tool: Tool) => tool.name === "bash");
        assert.equal(bash?.inputSchema.properties?.sandbox_permissions, undefined);
        const result = await client.callTool({
          name: "bash",
          arguments: {
            command: "echo x > out.txt",
            description: "Write",
            sandbox_permissions: "workspace-write",
            justification: "Needed",
          },
        });
        assert.equal(result.isError, true);
        assert.equal(existsSync(`${workspace.root}/out.txt`), false);
      } finally {
        await close();
      }
    });

    it(
      "applies --rules: a denied command never runs, an ask goes to the user",
      { skip: decisions },
      async () => {
        using workspace = tempWorkspace();
        const rulesFile = `${workspace.base}/rules.json`;
        writeFileSync(
          rulesFile,
          JSON.stringify({
            rules: [
              { decision: "deny", pattern: "^touch denied" },
              { decision: "ask", program: "mkdir" },
              { decision: "allow", program: "touch" },
            ],
            unmatched: "deny",
          }),
        );
        let allow = true;
        const { client, asked, close } = await connect(entry, workspace.root, {
          args: ["--rules", rulesFile],
          elicit: () => ({ action: "accept", content: { allow } }),
        });
        try {
          const call = (command: string) =>
            client.callTool({ name: "bash", arguments: { command, description: "Touch" } });
          const denied = await call("touch denied.txt");
          assert.equal(denied.isError, true);
          assert.match(textOf(denied), /^\[policy: "touch denied\.txt" is not allowed here/);
          const allowed = await call("mkdir asked");
          assert.equal(allowed.isError, false, textOf(allowed));
          allow = false;
          const declined = await call("mkdir declined");
          assert.equal(declined.isError, true);
          assert.match(textOf(declined), /was not approved/);
          const unmatched = await call("ls");
          assert.equal(unmatched.isError, true);
          assert.deepEqual(
            ["denied.txt", "asked", "declined"].map((f) => existsSync(`${workspace.root}/${f}`)),
            [false, true, false],
          );
          assert.equal(asked.length, 2);
          assert.match(asked[0] ?? "", /mkdir asked/);
          assert.match(asked[0] ?? "", /A command rule asks first/);
        } finally {
          await close();
        }
      },
    );

    it(
      "applies --rules after git's global options and behind xargs",
      { skip: decisions },
      async () => {
        using workspace = tempWorkspace();
        const rulesFile = `${workspace.base}/rules.json`;
        writeFileSync(
          rulesFile,
          JSON.stringify({
            rules: [
              { decision: "deny", prefix: ["git", "push", "--force"] },
              { decision: "ask", prefix: ["git", "push"] },
            ],
            unmatched: "allow",
          }),
        );
        const { client, asked, close } = await connect(entry, workspace.root, {
          args: ["--rules", rulesFile],
          elicit: () => ({ action: "accept", content: { allow: false } }),
        });
        try {
          const call = (command: string) =>
            client.callTool({ name: "bash", arguments: { command, description: "Push" } });
          // Each line first leaves a marker: a line that is refused leaves none.
          for (
            const [marker, push] of [["dir", "-C ."], ["pager", "--no-pager"], ["c", "-c x.y=z"]]
          ) {
            const denied = await call(`touch ${marker} && git ${push} push --force`);
            assert.equal(denied.isError, true);
            assert.match(textOf(denied), /^\[policy: "git .* push --force" is not allowed here/);
          }
          const piped = await call("touch piped && echo push | xargs git");
          assert.equal(piped.isError, true);
          assert.match(textOf(piped), /was not approved/);
          const plain = await call("touch plain && git -C . status");
          assert.doesNotMatch(textOf(plain), /^\[policy/);
          assert.deepEqual(
            ["dir", "pager", "c", "piped", "plain"].map((f) =>
              existsSync(`${workspace.root}/${f}`)
            ),
            [false, false, false, false, true],
          );
          assert.equal(asked.length, 1);
          assert.match(asked[0] ?? "", /xargs git/);
        } finally {
          await close();
        }
      },
    );

    it("--no-background offers only bash", { skip: decisions }, async () => {
      using workspace = tempWorkspace();
      const { client, close } = await connect(entry, workspace.root, { args: ["--no-background"] });
      try {
        const tools = await client.listTools();
        assert.deepEqual(tools.tools.map((tool: Tool) => tool.name), ["bash"]);
      } finally {
        await close();
      }
    });
  });
}

/**
 * A client of a server process started as `entry` that runs a background
 * command (`sleep 300`, its command line marked): the server's pid and the
 * marker. The client is closed when this fails.
 */
async function serverWithTask(
  entry: Entry,
  workspace: string,
  name: string,
): Promise<{ client: Client; transport: StdioClientTransport; pid: number; marker: string }> {
  const marker = `mcp-${name}-${crypto.randomUUID()}`;
  const { client, transport, close } = await connect(entry, workspace);
  try {
    assert.ok(transport !== undefined);
    const pid = transport.pid;
    assert.ok(pid !== null);
    await client.callTool({
      name: "bash",
      arguments: {
        command: `sleep 300; : ${marker}`,
        description: "Sleep",
        run_in_background: true,
      },
    });
    await eventually(() => processesWith(marker).length > 0, "the task runs");
    return { client, transport, pid, marker };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Waits until the server process `pid` has exited and no process of `marker` is left. */
async function assertAllGone(pid: number, marker: string): Promise<void> {
  await eventually(() => !existsSync(`/proc/${pid}`), "the server exits");
  // The server awaited each command's leader; a sandbox's inner processes die with it, a
  // moment later (bwrap's pid namespace is torn down by the kernel).
  await eventually(() => processesWith(marker).length === 0, "no command is left", 5_000);
}

// The server as a process: the Deno entry, and the Node bin on the Node leg.
for (const entry of ENTRIES) {
  describe(`shellseam mcp as a process (${entry.name} entry)`, {
    skip: entry.skip || sandboxSkip,
  }, () => {
    it("kills every command when the client closes, then exits", async () => {
      using workspace = tempWorkspace();
      const { client, pid, marker } = await serverWithTask(entry, workspace.root, "close");
      await client.close();
      await assertAllGone(pid, marker);
    });

    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      it(`kills every command on ${signal}, then exits`, async () => {
        using workspace = tempWorkspace();
        const { client, transport, pid, marker } = await serverWithTask(
          entry,
          workspace.root,
          signal,
        );
        const exited = new Promise<void>((resolve) => {
          transport.onclose = () => resolve();
        });
        try {
          process.kill(pid, signal);
          await exited;
          await assertAllGone(pid, marker);
        } finally {
          await client.close();
        }
      });
    }
  });
}

describe("deno task mcp (from a checkout)", {
  skip: ENTRIES[0]?.skip || sandboxSkip,
}, () => {
  it("starts the same server, which lists the tools and runs a command in the workspace", async () => {
    using workspace = tempWorkspace();
    const marker = `mcp-task-${crypto.randomUUID()}`;
    const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
    const entry = { name: "task", command: process.execPath, args: ["task", "--config", config] };
    const { client } = await connect({ ...entry, skip: false }, workspace.root);
    try {
      const listed = await client.listTools();
      assert.deepEqual(
        listed.tools.map((tool: Tool) => tool.name),
        ["bash", "task_output", "task_list", "task_kill"],
      );
      const result = await client.callTool({
        name: "bash",
        arguments: { command: `echo ${marker} > out.txt; cat out.txt`, description: "Echo" },
      });
      assert.equal(result.isError, false);
      assert.match(textOf(result), new RegExp(marker));
      assert.equal(readFileSync(`${workspace.root}/out.txt`, "utf8"), `${marker}\n`);
    } finally {
      await client.close();
    }
  });
});

describe("shellseam mcp --terminal", { skip: IN_PROCESS.skip || sandboxSkip }, () => {
  it("offers task_input, and a prompt in a terminal is answered through it", async () => {
    using workspace = tempWorkspace();
    const { client, close } = await connect(IN_PROCESS, workspace.root, { args: ["--terminal"] });
    try {
      const listed = await client.listTools();
      assert.deepEqual(
        listed.tools.map((tool: Tool) => tool.name),
        ["bash", "task_output", "task_list", "task_kill", "task_input"],
      );
      // The size fields come through the tools' own schemas.
      const fields = (name: string) =>
        Object.keys(
          listed.tools.find((tool: Tool) => tool.name === name)?.inputSchema.properties ?? {},
        );
      assert.deepEqual(fields("task_input"), ["task_id", "input", "wait_ms", "rows", "cols"]);
      assert.deepEqual(fields("bash").filter((name) => ["rows", "cols"].includes(name)), [
        "rows",
        "cols",
      ]);
      const started = textOf(
        await client.callTool({
          name: "bash",
          arguments: {
            command: "read -p 'Continue? [y/N] ' a; echo \"answered $a\"",
            description: "Ask",
            terminal: true,
            rows: 30,
            cols: 100,
          },
        }),
      );
      const id = started.match(/^started background task (bash-\d+) in a 30x100 terminal/)?.[1];
      assert.ok(id !== undefined, started);
      let read = started;
      for (let tries = 0; !/Continue\? \[y\/N\]/.test(read) && tries < 40; tries++) {
        read = textOf(
          await client.callTool({ name: "task_input", arguments: { task_id: id, input: "" } }),
        );
      }
      let answered = textOf(
        await client.callTool({
          name: "task_input",
          arguments: { task_id: id, input: "y\r", wait_ms: 1000 },
        }),
      );
      for (let tries = 0; !/status: completed/.test(answered) && tries < 40; tries++) {
        answered = textOf(
          await client.callTool({ name: "task_input", arguments: { task_id: id, input: "" } }),
        );
      }
      assert.match(answered, /answered y\n[\s\S]*\[status: completed, exit code: 0\]$/);
    } finally {
      await close();
    }
  });
});
