import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { SandboxMode } from "../../seam/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  type ApproveEscalation,
  type CommandRule,
  createBashTools,
  type EscalationRequest,
} from "../../tool/mod.ts";
import { widerSandboxModes } from "../../seam/mod.ts";
import { FakeSandboxExecutor } from "./_fakes.ts";

const WRITE = { command: "touch out.txt", description: "Create a file" };
const ESCALATED = {
  ...WRITE,
  sandbox_permissions: "workspace-write",
  justification: "The task asks for out.txt in the workspace",
};

function setup(
  options: {
    approve?: ApproveEscalation;
    sessionMode?: () => SandboxMode | undefined;
    mode?: SandboxMode;
  } = {},
) {
  const executor = new FakeSandboxExecutor(options.mode ?? "read-only");
  const tasks = new TaskRegistry();
  const owner = taskOwner("session-1");
  const { approve, sessionMode } = options;
  const tools = createBashTools({
    executor,
    tasks,
    owner,
    ...(approve ? { approve } : {}),
    ...(sessionMode ? { sessionMode } : {}),
  });
  return { executor, tasks, owner, ...tools };
}

function recordingApprover(answer: "allow-once" | "reject") {
  const asked: EscalationRequest[] = [];
  const approve: ApproveEscalation = (request) => {
    asked.push(request);
    return Promise.resolve(answer);
  };
  return { asked, approve };
}

describe("widerSandboxModes", () => {
  it("lists the modes wider than the given one, narrowest first", () => {
    assert.deepEqual(widerSandboxModes("read-only"), ["workspace-write", "danger-full-access"]);
    assert.deepEqual(widerSandboxModes("workspace-write"), ["danger-full-access"]);
    assert.deepEqual(widerSandboxModes("danger-full-access"), []);
  });
});

describe("bash escalation", () => {
  it("runs an approved call under the wider policy, keeping the rest of the policy", async () => {
    const { asked, approve } = recordingApprover("allow-once");
    const { bash, executor } = setup({ approve });
    const result = await bash.execute(ESCALATED);
    assert.deepEqual(result, { text: "ran under workspace-write\n[exit code: 0]", isError: false });
    assert.deepEqual(asked, [{
      command: "touch out.txt",
      mode: "workspace-write",
      justification: "The task asks for out.txt in the workspace",
    }]);
    assert.deepEqual(executor.runs[0]?.sandboxPolicy, {
      mode: "workspace-write",
      workspaceRoot: "/ws",
      network: "deny",
    });
  });

  it("fails closed on rejection: nothing runs", async () => {
    const { asked, approve } = recordingApprover("reject");
    const { bash, executor } = setup({ approve });
    const result = await bash.execute(ESCALATED);
    assert.equal(result.isError, true);
    assert.match(
      result.text,
      /did not approve running this command with sandbox_permissions "workspace-write", so it was not run/,
    );
    assert.equal(asked.length, 1);
    assert.equal(executor.runs.length, 0);
  });

  it("offers no escalation fields without an approver, and rejects them as unknown", async () => {
    const { bash, executor } = setup();
    assert.equal("sandbox_permissions" in bash.inputSchema.properties, false);
    assert.equal("justification" in bash.inputSchema.properties, false);
    const result = await bash.execute(ESCALATED);
    assert.equal(result.isError, true);
    assert.match(result.text, /unknown field "sandbox_permissions"/);
    assert.equal(executor.runs.length, 0);
    const approve = recordingApprover("reject").approve;
    const offered = setup({ approve }).bash.inputSchema.properties.sandbox_permissions;
    assert.deepEqual(offered?.enum, ["workspace-write", "danger-full-access"]);
  });

  it("fails closed when the approver throws or answers something else", async () => {
    const table: [ApproveEscalation, string][] = [
      [
        () => Promise.reject(new Error("prompt closed")),
        'Asking for approval of sandbox_permissions "workspace-write" failed (prompt closed), so the command was not run. Run it without sandbox_permissions, or ask the user to run it',
      ],
      [
        (() => Promise.resolve("yes")) as unknown as ApproveEscalation,
        'The user did not approve running this command with sandbox_permissions "workspace-write", so it was not run. Do not ask again for the same command; continue without that access, or ask the user how to proceed',
      ],
    ];
    for (const [approve, text] of table) {
      const { bash, executor } = setup({ approve });
      assert.deepEqual(await bash.execute(ESCALATED), { text, isError: true });
      assert.equal(executor.runs.length, 0);
    }
  });

  it("grants one call only: the next call runs under the default mode again", async () => {
    const { asked, approve } = recordingApprover("allow-once");
    const { bash, executor } = setup({ approve });
    await bash.execute(ESCALATED);
    const after = await bash.execute(WRITE);
    assert.equal(executor.runs[1]?.sandboxPolicy?.mode, "read-only");
    assert.match(after.text, /\[sandbox: file access denied under read-only mode\]/);
    await bash.execute(ESCALATED);
    assert.equal(asked.length, 2, "a second escalation asks again");
  });

  it("requires sandbox_permissions and justification together, and a non-blank justification", async () => {
    const { asked, approve } = recordingApprover("allow-once");
    const { bash, executor } = setup({ approve });
    const { justification: _, ...withoutJustification } = ESCALATED;
    const onlyMode = await bash.execute(withoutJustification);
    assert.deepEqual(onlyMode, {
      text:
        "Invalid arguments for bash: sandbox_permissions and justification go together: give both to ask for wider access, or neither",
      isError: true,
    });
    const onlyJustification = await bash.execute({ ...WRITE, justification: "because" });
    assert.equal(onlyJustification.text, onlyMode.text);
    const blank = await bash.execute({ ...ESCALATED, justification: "   " });
    assert.equal(
      blank.text,
      'Invalid arguments for bash: justification must be a non-blank string; got "   "',
    );
    assert.equal(asked.length, 0);
    assert.equal(executor.runs.length, 0);
  });

  it("offers only wider modes: the default mode itself is not accepted", async () => {
    const { asked, approve } = recordingApprover("allow-once");
    const { bash } = setup({ approve, mode: "workspace-write" });
    const result = await bash.execute(ESCALATED);
    assert.equal(
      result.text,
      'Invalid arguments for bash: sandbox_permissions must be one of "danger-full-access"; got "workspace-write"',
    );
    assert.equal(asked.length, 0);
  });

  it("applies the session override, and an approved escalation outranks it", async () => {
    const { approve } = recordingApprover("allow-once");
    const { bash, executor } = setup({ approve, sessionMode: () => "workspace-write" });
    await bash.execute(WRITE);
    assert.equal(executor.runs[0]?.sandboxPolicy?.mode, "workspace-write");
    await bash.execute({ ...ESCALATED, sandbox_permissions: "danger-full-access" });
    assert.equal(executor.runs[1]?.sandboxPolicy?.mode, "danger-full-access");
  });

  it("asks no one for a mode the session already runs under or exceeds", async () => {
    const { asked, approve } = recordingApprover("reject");
    const { bash, executor } = setup({ approve, sessionMode: () => "danger-full-access" });
    for (const mode of ["workspace-write", "danger-full-access"]) {
      const result = await bash.execute({ ...ESCALATED, sandbox_permissions: mode });
      assert.deepEqual(result, { text: `ran under ${mode}\n[exit code: 0]`, isError: false });
    }
    assert.deepEqual(executor.runs.map((spec) => spec.sandboxPolicy?.mode), [
      "workspace-write",
      "danger-full-access",
    ]);
    assert.deepEqual(asked, []);
  });

  it("fails closed when the session's mode is not a known mode", async () => {
    const { bash, executor } = setup({ sessionMode: () => "full" as SandboxMode });
    const result = await bash.execute(WRITE);
    assert.deepEqual(result, {
      text:
        'The session\'s sandbox mode "full" is not a known mode, so the command was not run; tell the user, who can set the mode again',
      isError: true,
    });
    assert.equal(executor.runs.length, 0);
  });

  it("fails closed when the session's mode cannot be read", async () => {
    const { bash, executor } = setup({
      sessionMode: () => {
        throw new Error("event log unreadable");
      },
    });
    assert.deepEqual(await bash.execute(WRITE), {
      text:
        "The session's sandbox mode could not be read (event log unreadable), so the command was not run; tell the user",
      isError: true,
    });
    assert.equal(executor.runs.length, 0);
  });

  it("uses the executor default when the session has no override", async () => {
    const { bash, executor } = setup({ sessionMode: () => undefined });
    await bash.execute(WRITE);
    assert.equal(executor.runs[0]?.sandboxPolicy?.mode, "read-only");
  });

  it("hints at escalation after a denial only when an approver is configured", async () => {
    const withApprover = setup({ approve: recordingApprover("reject").approve });
    const hinted = await withApprover.bash.execute(WRITE);
    assert.deepEqual(hinted.text.split("\n").slice(-3), [
      "[sandbox: file access denied under read-only mode]",
      '[if the command needs that access, retry it once with sandbox_permissions "workspace-write" or "danger-full-access" and a justification; a person approves or rejects the retry]',
      "[exit code: 1]",
    ]);
    const without = await setup().bash.execute(WRITE);
    assert.doesNotMatch(without.text, /retry/);
    assert.match(
      without.text,
      /\[sandbox: file access denied under read-only mode\]\n\[exit code: 1\]$/,
    );
  });

  it("escalates a background command for that one start", async () => {
    const { approve } = recordingApprover("allow-once");
    const { bash, executor, tasks } = setup({ approve });
    const started = await bash.execute({ ...ESCALATED, run_in_background: true });
    assert.equal(started.text, "started background task bash-1");
    assert.equal(executor.starts[0]?.sandboxPolicy?.mode, "workspace-write");
    await tasks[Symbol.asyncDispose]();
  });

  it("shows a background task's denial through task_output, with the hint only when escalation is possible", async () => {
    const denial = "[sandbox: file access denied under read-only mode]";
    const status = "[status: completed, exit code: 1]";
    const { bash, taskOutput, tasks } = setup({ approve: recordingApprover("reject").approve });
    const started = await bash.execute({ ...WRITE, run_in_background: true });
    assert.equal(started.text, "started background task bash-1");
    const read = await taskOutput.execute({ task_id: "bash-1", wait: true });
    assert.deepEqual(read, {
      text: [
        "started",
        denial,
        '[if the command needs that access, retry it once with sandbox_permissions "workspace-write" or "danger-full-access" and a justification; a person approves or rejects the retry]',
        status,
      ].join("\n"),
      isError: false,
    });
    await tasks[Symbol.asyncDispose]();

    const unattended = setup();
    await unattended.bash.execute({ ...WRITE, run_in_background: true });
    const plain = await unattended.taskOutput.execute({ task_id: "bash-1", wait: true });
    assert.equal(plain.text, ["started", denial, status].join("\n"));
    await unattended.tasks[Symbol.asyncDispose]();
  });

  it("runs nothing and asks no one when the call is already cancelled", async () => {
    const { asked, approve } = recordingApprover("allow-once");
    const { bash, executor, tasks, owner } = setup({ approve });
    const signal = AbortSignal.abort();
    for (
      const args of [WRITE, { ...WRITE, run_in_background: true }, ESCALATED]
    ) {
      assert.deepEqual(await bash.execute(args, { signal }), {
        text: "The tool call was cancelled, so the command was not run",
        isError: true,
      }, JSON.stringify(args));
    }
    assert.deepEqual(asked, []);
    assert.deepEqual([executor.runs, executor.starts, tasks.list(owner)], [[], [], []]);
  });

  it("runs nothing when the call is cancelled while a person is asked", async () => {
    let controller = new AbortController();
    let asked = 0;
    const approve: ApproveEscalation = (request) => {
      asked++;
      assert.equal(request.signal, controller.signal, "the approver gets the call's signal");
      controller.abort();
      assert.equal(request.signal?.aborted, true);
      return Promise.resolve("allow-once");
    };
    const { bash, executor, tasks, owner } = setup({ approve });
    for (const args of [ESCALATED, { ...ESCALATED, run_in_background: true }]) {
      controller = new AbortController();
      assert.deepEqual(await bash.execute(args, { signal: controller.signal }), {
        text: "The tool call was cancelled, so the command was not run",
        isError: true,
      });
    }
    assert.equal(asked, 2);
    assert.deepEqual([executor.runs, executor.starts, tasks.list(owner)], [[], [], []]);
  });

  it("describes the sandbox, and escalation only when an approver can be asked", () => {
    const without = setup().bash.description;
    assert.match(
      without,
      /by default in "read-only" mode: reads anywhere; writes only to a private temporary directory \(\$TMPDIR\)\. A command the sandbox blocked gets a \[sandbox: \.\.\.\] line\./,
    );
    assert.doesNotMatch(without, /sandbox_permissions/);
    const withApprover = setup({ approve: recordingApprover("reject").approve }).bash.description;
    assert.match(
      withApprover,
      /run it again once with sandbox_permissions and a justification; a person approves or rejects that one call/,
    );
  });
});

describe("bash over an executor that does not sandbox", () => {
  it("has no escalation fields, rejects them as unknown, and leaves the policy null", async () => {
    const executor = new FakeSandboxExecutor(null);
    const { bash } = createBashTools({
      executor,
      tasks: new TaskRegistry(),
      owner: taskOwner("s"),
      approve: () => Promise.resolve("allow-once"),
      sessionMode: () => "workspace-write",
    });
    assert.equal("sandbox_permissions" in bash.inputSchema.properties, false);
    assert.equal("justification" in bash.inputSchema.properties, false);
    assert.doesNotMatch(bash.description, /sandbox/);
    const escalated = await bash.execute(ESCALATED);
    assert.equal(escalated.isError, true);
    assert.match(escalated.text, /unknown field "sandbox_permissions"/);
    assert.match(escalated.text, /unknown field "justification"/);
    assert.equal(executor.runs.length, 0);
    const plain = await bash.execute(WRITE);
    assert.equal(plain.text, "ran under no sandbox\n[exit code: 0]");
    assert.equal(executor.runs[0]?.sandboxPolicy, null);
  });
});

describe("command rules in the bash tool", () => {
  const RULES: CommandRule[] = [
    { decision: "deny", program: "rm", reason: "files are removed by hand here" },
    { decision: "ask", prefix: ["git", "push"] },
    { decision: "allow", program: "echo" },
    { decision: "allow", program: "touch" },
  ];
  function withRules(approve?: ApproveEscalation, mode: SandboxMode = "read-only") {
    const executor = new FakeSandboxExecutor(mode);
    const tools = createBashTools({
      executor,
      tasks: new TaskRegistry(),
      owner: taskOwner("s"),
      rules: RULES,
      unmatchedCommands: "deny",
      ...(approve ? { approve } : {}),
    });
    return { executor, ...tools };
  }

  it("never runs a denied command, says why, and names the rule for the harness", async () => {
    const { bash, executor } = withRules(recordingApprover("allow-once").approve);
    const result = await bash.execute({ command: "echo a && rm -rf x", description: "Clean" });
    assert.deepEqual(result, {
      text:
        '[policy: "rm -rf x" is not allowed here (files are removed by hand here); not run]\nDo not retry it or work around it; continue without it, or ask the user',
      isError: true,
      rules: {
        decision: "deny",
        command: "rm -rf x",
        rule: RULES[0],
        reason: "files are removed by hand here",
      },
    });
    const unmatched = await bash.execute({ command: "make", description: "Build" });
    assert.match(
      unmatched.text,
      /^\[policy: "make" is not allowed here \(no rule matched\); not run\]/,
    );
    assert.deepEqual([executor.runs, executor.starts], [[], []]);
  });

  it("asks the approver for an ask rule, runs only what was allowed, and fails closed without one", async () => {
    const allowing = recordingApprover("allow-once");
    const allowed = withRules(allowing.approve, "workspace-write");
    const ran = await allowed.bash.execute({
      command: "git push origin main",
      description: "Push",
    });
    assert.equal(ran.isError, false, ran.text);
    assert.equal(ran.rules?.decision, "ask");
    assert.equal(allowed.executor.runs[0]?.sandboxPolicy?.mode, "workspace-write");
    assert.equal(allowing.asked.length, 1);
    assert.equal(allowing.asked[0]?.command, "git push origin main");
    assert.equal(allowing.asked[0]?.mode, undefined);
    assert.equal(allowing.asked[0]?.rule?.command, "git push origin main");

    const rejecting = recordingApprover("reject");
    const rejected = withRules(rejecting.approve);
    const refused = await rejected.bash.execute({ command: "git push", description: "Push" });
    assert.equal(refused.isError, true);
    assert.match(
      refused.text,
      /^\[policy: "git push" was not approved \(the ask rule for "git push"\); not run\]\nDo not ask again/,
    );
    assert.equal(rejected.executor.runs.length, 0);

    const unattended = withRules();
    const blocked = await unattended.bash.execute({ command: "git push", description: "Push" });
    assert.equal(
      blocked.text,
      '[policy: "git push" needs approval (the ask rule for "git push"), and no one can approve it in this session; not run]',
    );
    assert.equal(unattended.executor.runs.length, 0);
  });

  it("asks once for a rule and a wider mode together, and an allow never widens the mode", async () => {
    const { asked, approve } = recordingApprover("allow-once");
    const { bash, executor } = withRules(approve);
    await bash.execute({
      command: "git push",
      description: "Push",
      sandbox_permissions: "workspace-write",
      justification: "The user asked to publish",
    });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.mode, "workspace-write");
    assert.equal(asked[0]?.rule?.decision, "ask");
    assert.equal(asked[0]?.justification, "The user asked to publish");
    assert.equal(executor.runs[0]?.sandboxPolicy?.mode, "workspace-write");
    await bash.execute({ command: "touch out.txt", description: "Touch" });
    assert.equal(asked.length, 1);
    assert.equal(executor.runs[1]?.sandboxPolicy?.mode, "read-only");
  });

  it("rejects rule sets that cannot be applied when the tools are made", () => {
    assert.throws(
      () =>
        createBashTools({
          executor: new FakeSandboxExecutor(),
          tasks: new TaskRegistry(),
          owner: taskOwner("s"),
          rules: [{ decision: "deny" }],
        }),
      /^BashConfigError: Command rule 0 must match by exactly one of prefix, program or pattern; got 0$/,
    );
  });
});

describe("interactive editors", () => {
  it("answer at once without running anything, wherever they stand in the line", async () => {
    const { bash, executor } = setup();
    for (const command of ["vi notes.txt", "git status && nano x", "sudo vim /etc/hosts"]) {
      const result = await bash.execute({ command, description: "Edit" });
      assert.equal(result.isError, true);
      assert.match(result.text, /^\[not run: "(vi|nano|vim)" is an interactive editor/);
      assert.match(result.text, /sed -i for small changes/);
    }
    assert.equal(executor.runs.length, 0);
  });
});
