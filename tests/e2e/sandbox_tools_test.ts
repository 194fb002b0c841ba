// The model-facing bash tool over the real sandbox: denial rendering, and an
// escalation that a person approves, rejects, or cannot be asked about.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { findOnPath } from "../../engine/_session.ts";
import { type ApproveEscalation, createBashTools, type EscalationRequest } from "../../tool/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  effectiveSandboxMode,
  type SandboxModeEvent,
  sandboxModeEvent,
} from "../../sandbox/mod.ts";
import {
  closeServer,
  executorFor,
  listener,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
} from "../sandbox/_fixtures.ts";

const statuses = await probeHere();
const DENIAL = "[sandbox: file access denied under read-only mode]";
const NETWORK_DENIAL = "[sandbox: network access denied under read-only mode]";

for (const backend of SANDBOX_BACKENDS) {
  describe(
    `the bash tool over the ${backend} sandbox`,
    { skip: skipUnless(statuses, backend) },
    () => {
      it("offers escalation only for modes wider than the default", async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        await using tasks = new TaskRegistry();
        const approve: ApproveEscalation = () => Promise.resolve("allow-once");
        const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s"), approve });
        assert.deepEqual(bash.inputSchema.properties.sandbox_permissions?.enum, [
          "workspace-write",
          "danger-full-access",
        ]);
        assert.ok(bash.inputSchema.properties.justification);
      });

      it("a denial renders the marker and the hint; an approved retry lands, for that call only", async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        await using tasks = new TaskRegistry();
        const asked: EscalationRequest[] = [];
        const approve: ApproveEscalation = (request) => {
          asked.push(request);
          return Promise.resolve("allow-once");
        };
        const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s"), approve });
        const command = "echo hi > out.txt";

        const denied = await bash.execute({ command, description: "Write out.txt" });
        assert.equal(denied.isError, true);
        assert.ok(denied.text.includes(DENIAL), denied.text);
        assert.match(
          denied.text,
          /retry it once with sandbox_permissions "workspace-write" or "danger-full-access"/,
        );
        assert.equal(existsSync(join(workspace.root, "out.txt")), false);
        assert.deepEqual(asked, []);

        const justification = "The user asked for out.txt in the workspace";
        const granted = await bash.execute({
          command,
          description: "Write out.txt",
          sandbox_permissions: "workspace-write",
          justification,
        });
        assert.deepEqual(granted, { text: "(no output)\n[exit code: 0]", isError: false });
        assert.equal(readFileSync(join(workspace.root, "out.txt"), "utf8"), "hi\n");
        assert.deepEqual(asked, [{ command, mode: "workspace-write", justification }]);

        const again = await bash.execute({
          command: "echo hi > again.txt",
          description: "Write again.txt",
        });
        assert.ok(again.text.includes(DENIAL), "the grant covered one call");
        assert.equal(existsSync(join(workspace.root, "again.txt")), false);
      });

      it("a protected path is written only by an approved unconfined retry", async () => {
        using workspace = tempWorkspace();
        const settings = join(workspace.root, ".vscode", "settings.json");
        mkdirSync(join(workspace.root, ".vscode"));
        writeFileSync(settings, "{}\n");
        await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
        await using tasks = new TaskRegistry();
        const asked: EscalationRequest[] = [];
        const approve: ApproveEscalation = (request) => {
          asked.push(request);
          return Promise.resolve("allow-once");
        };
        const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s"), approve });
        const hint = 'sandbox_permissions "danger-full-access" and a justification';
        // An existing one: refused outright, a file denial with the hint.
        const command = "echo '{\"a\": 1}' > .vscode/settings.json";
        const denied = await bash.execute({ command, description: "Edit settings" });
        assert.ok(denied.text.includes("[sandbox: file access denied under workspace-write mode]"));
        assert.ok(denied.text.includes(hint), denied.text);
        assert.equal(readFileSync(settings, "utf8"), "{}\n");
        // A missing one: moved away when the call ended, with the hint.
        const envrc = await bash.execute({ command: "echo x > .envrc", description: "Add .envrc" });
        assert.ok(envrc.text.includes("which commands may not write"), envrc.text);
        assert.ok(envrc.text.includes(hint), envrc.text);
        assert.equal(existsSync(join(workspace.root, ".envrc")), false);
        // Approved, unconfined, for that call.
        const justification = "The user asked to change the editor settings";
        const granted = await bash.execute({
          command,
          description: "Edit settings",
          sandbox_permissions: "danger-full-access",
          justification,
        });
        assert.deepEqual(granted, { text: "(no output)\n[exit code: 0]", isError: false });
        assert.equal(readFileSync(settings, "utf8"), '{"a": 1}\n');
        assert.deepEqual(asked, [{ command, mode: "danger-full-access", justification }]);
      });

      it("a refused connection renders the network marker, hinting only danger-full-access", async () => {
        using workspace = tempWorkspace();
        const { port, accepted, server } = await listener();
        try {
          await using executor = executorFor(backend, workspace, { network: "deny" });
          await using tasks = new TaskRegistry();
          const approve: ApproveEscalation = () => Promise.resolve("allow-once");
          const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s"), approve });
          const denied = await bash.execute({
            command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
            description: "Connect to the test listener",
          });
          assert.equal(denied.isError, true);
          assert.ok(denied.text.includes(NETWORK_DENIAL), denied.text);
          assert.doesNotMatch(denied.text, /file access denied|"workspace-write"/);
          assert.match(
            denied.text,
            /retry it once with sandbox_permissions "danger-full-access" and/,
          );

          // workspace-write does not open the network either.
          const wider = createBashTools({
            executor,
            tasks,
            owner: taskOwner("s"),
            approve,
            sessionMode: () => "workspace-write",
          });
          const writing = await wider.bash.execute({
            command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
            description: "Connect to the test listener",
          });
          assert.ok(
            writing.text.includes("[sandbox: network access denied under workspace-write mode]"),
            writing.text,
          );
          assert.match(writing.text, /retry it once with sandbox_permissions "danger-full-access"/);

          // Without an approver nothing is offered, so no hint.
          const unattended = createBashTools({ executor, tasks, owner: taskOwner("s") });
          const unhinted = await unattended.bash.execute({
            command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
            description: "Connect to the test listener",
          });
          assert.ok(unhinted.text.includes(NETWORK_DENIAL), unhinted.text);
          assert.doesNotMatch(unhinted.text, /retry|sandbox_permissions/);
          assert.equal(accepted(), 0, "the listener saw a connection");
        } finally {
          await closeServer(server);
        }
      });

      it("curl and a Python name lookup failing under network deny render the network marker", {
        skip: ["curl", "python3"].every((name) => findOnPath(name, process.env.PATH))
          ? false
          : "curl or python3 is not on PATH",
      }, async () => {
        using workspace = tempWorkspace();
        const { port, accepted, server } = await listener();
        try {
          await using executor = executorFor(backend, workspace, { network: "deny" });
          await using tasks = new TaskRegistry();
          const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
          for (
            const command of [
              `curl -sS http://127.0.0.1:${port}/`,
              "curl -sS http://example.invalid/",
              `python3 -c "import socket; socket.getaddrinfo('example.com', 80)"`,
            ]
          ) {
            const result = await bash.execute({ command, description: "Reach the network" });
            assert.equal(result.isError, true);
            assert.ok(result.text.includes(NETWORK_DENIAL), `${command}\n${result.text}`);
          }
          assert.equal(accepted(), 0, "the listener saw a connection");
        } finally {
          await closeServer(server);
        }
      });

      it("a rejected escalation fails closed: nothing runs", async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        await using tasks = new TaskRegistry();
        const { bash } = createBashTools({
          executor,
          tasks,
          owner: taskOwner("s"),
          approve: () => Promise.resolve("reject"),
        });
        const result = await bash.execute({
          command: "echo hi > out.txt",
          description: "Write out.txt",
          sandbox_permissions: "danger-full-access",
          justification: "Needs it",
        });
        assert.equal(result.isError, true);
        assert.match(result.text, /did not approve .* so it was not run/);
        assert.equal(existsSync(join(workspace.root, "out.txt")), false);
      });

      it("an approver that fails, and no approver at all, fail closed", async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        await using tasks = new TaskRegistry();
        const args = {
          command: "echo hi > out.txt",
          description: "Write out.txt",
          sandbox_permissions: "workspace-write",
          justification: "Needs it",
        };
        const failing = createBashTools({
          executor,
          tasks,
          owner: taskOwner("s"),
          approve: () => Promise.reject(new Error("the person went away")),
        });
        const broken = await failing.bash.execute(args);
        assert.equal(broken.isError, true);
        assert.match(broken.text, /the person went away\), so the command was not run/);

        const unattended = createBashTools({ executor, tasks, owner: taskOwner("s") });
        const missing = await unattended.bash.execute(args);
        assert.equal(missing.isError, true);
        assert.match(missing.text, /unknown field "sandbox_permissions"/);
        assert.equal(existsSync(join(workspace.root, "out.txt")), false);
      });

      it("two overlapping background tasks in different modes keep their own facts", async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        await using tasks = new TaskRegistry();
        const { bash, taskOutput } = createBashTools({
          executor,
          tasks,
          owner: taskOwner("s"),
          approve: () => Promise.resolve("allow-once"),
        });
        const narrow = await bash.execute({
          command: "sleep 0.3; echo a > a.txt",
          description: "Write a.txt later",
          run_in_background: true,
        });
        const wide = await bash.execute({
          command: "echo b > b.txt; sleep 0.1",
          description: "Write b.txt",
          run_in_background: true,
          sandbox_permissions: "workspace-write",
          justification: "The user asked for b.txt",
        });
        assert.deepEqual([narrow.text, wide.text], [
          "started background task bash-1",
          "started background task bash-2",
        ]);
        const [first, second] = await Promise.all(
          ["bash-1", "bash-2"].map((task_id) => taskOutput.execute({ task_id, wait: true })),
        );
        assert.ok(first!.text.includes(DENIAL), first!.text);
        assert.match(first!.text, /\[status: completed, exit code: 1\]$/);
        assert.equal(second!.text, "(no new output)\n[status: completed, exit code: 0]");
        assert.equal(existsSync(join(workspace.root, "a.txt")), false);
        assert.equal(readFileSync(join(workspace.root, "b.txt"), "utf8"), "b\n");
      });

      it("the session's sandbox/mode override applies, and an approved escalation outranks it", async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        await using tasks = new TaskRegistry();
        const events: SandboxModeEvent[] = [sandboxModeEvent("workspace-write")];
        const { bash } = createBashTools({
          executor,
          tasks,
          owner: taskOwner("s"),
          sessionMode: () => effectiveSandboxMode(events),
          approve: () => Promise.resolve("allow-once"),
        });
        const wide = await bash.execute({ command: "echo a > a.txt", description: "Write a.txt" });
        assert.equal(wide.isError, false, wide.text);
        assert.equal(existsSync(join(workspace.root, "a.txt")), true);

        events.push(sandboxModeEvent("read-only"));
        const narrow = await bash.execute({
          command: "echo b > b.txt",
          description: "Write b.txt",
        });
        assert.ok(narrow.text.includes(DENIAL), narrow.text);
        const escalated = await bash.execute({
          command: "echo b > b.txt",
          description: "Write b.txt",
          sandbox_permissions: "workspace-write",
          justification: "Needs b.txt",
        });
        assert.equal(escalated.isError, false, escalated.text);
        assert.equal(existsSync(join(workspace.root, "b.txt")), true);
      });
    },
  );
}
