import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TaskSnapshot } from "../../../tasks/mod.ts";
import type { BashTaskOutput } from "../../../tool/mod.ts";
import {
  renderBackgroundStart,
  renderTaskKill,
  renderTaskList,
  renderTaskNotice,
  renderTaskOutput,
  renderTaskStatus,
} from "../../../tool/render/mod.ts";

function snapshot(extra: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    id: "bash-1",
    kind: "bash",
    label: "make test",
    status: "running",
    exitCode: null,
    signal: null,
    startedAt: 0,
    ...extra,
  };
}

/** Spill files that exist: markers name a spill file only while it does. */
const spillDir = mkdtempSync(join(tmpdir(), "render-task-test-"));
const spillOut = join(spillDir, "o");
const spillErr = join(spillDir, "e");
writeFileSync(spillOut, "out");
writeFileSync(spillErr, "err");
after(() => rmSync(spillDir, { recursive: true, force: true }));

/** A read, written per stream in short: text, bytes dropped (per stream), spill facts. */
interface ShortRead extends Omit<Partial<BashTaskOutput>, "stdout" | "stderr"> {
  stdout?: string;
  stderr?: string;
  /** Bytes stdout dropped. */
  droppedBytes?: number;
  stderrDroppedBytes?: number;
  stdoutSpillPath?: string;
  stderrSpillPath?: string;
  stdoutSpillError?: string;
  stderrSpillError?: string;
}

function read(extra: ShortRead = {}): BashTaskOutput {
  const {
    stdout = "",
    stderr = "",
    droppedBytes = 0,
    stderrDroppedBytes = 0,
    stdoutSpillPath,
    stderrSpillPath,
    stdoutSpillError,
    stderrSpillError,
    ...rest
  } = extra;
  const stream = (text: string, omitted: number, path?: string, error?: string) => ({
    text,
    truncated: omitted > 0,
    omittedBytes: omitted,
    spillComplete: path !== undefined,
    ...(path === undefined ? {} : { spillPath: path }),
    ...(error === undefined ? {} : { spillError: error }),
  });
  return {
    stdout: stream(stdout, droppedBytes, stdoutSpillPath, stdoutSpillError),
    stderr: stream(stderr, stderrDroppedBytes, stderrSpillPath, stderrSpillError),
    status: "running",
    exitCode: null,
    signal: null,
    ...rest,
  };
}

describe("renderTaskStatus", () => {
  it("names the status and, when present, exit code, signal, error and kill reason", () => {
    assert.equal(renderTaskStatus(snapshot()), "status: running");
    assert.equal(
      renderTaskStatus(snapshot({ status: "completed", exitCode: 3 })),
      "status: completed, exit code: 3",
    );
    assert.equal(
      renderTaskStatus(snapshot({ status: "failed", error: "the bwrap sandbox\nfailed" })),
      "status: failed, error: the bwrap sandbox failed",
    );
    assert.equal(
      renderTaskStatus(
        snapshot({ status: "killed", signal: "SIGTERM", killReason: "no longer needed" }),
      ),
      'status: killed, signal: SIGTERM, kill reason: "no longer needed"',
    );
  });
});

describe("renderTaskOutput", () => {
  it("shows new stdout and stderr, then the status last", () => {
    assert.equal(
      renderTaskOutput({
        snapshot: snapshot({ status: "completed", exitCode: 0 }),
        output: read({ stdout: "\x1b[1mbuilt\x1b[0m\n", stderr: "warning\n" }),
      }),
      "built\n[stderr]\nwarning\n[status: completed, exit code: 0]",
    );
  });

  it("redacts the values of scrubbed variables from a bash task's streams", () => {
    assert.equal(
      renderTaskOutput({
        snapshot: snapshot(),
        output: read({ stdout: "key=abcdefgh1234\n", stderr: "abcdefgh1234\n" }),
      }, { secrets: { API_KEY: "abcdefgh1234" } }),
      "key=[redacted: API_KEY]\n[stderr]\n[redacted: API_KEY]\n[status: running]",
    );
  });

  it("says (no new output) when nothing arrived since the last read", () => {
    assert.equal(
      renderTaskOutput({ snapshot: snapshot(), output: read() }),
      "(no new output)\n[status: running]",
    );
    assert.equal(
      renderTaskOutput({ snapshot: snapshot(), output: undefined }),
      "(no new output)\n[status: running]",
    );
  });

  it("says when a wait ran out before the task finished, and only then", () => {
    const ranOut = "[still running after waiting 500 ms; wait again or do other work meanwhile]";
    assert.equal(
      renderTaskOutput({ snapshot: snapshot(), output: read() }, { waitedMs: 500 }),
      `(no new output)\n${ranOut}\n[status: running]`,
    );
    assert.equal(
      renderTaskOutput({ snapshot: snapshot({ status: "stopping" }), output: read() }, {
        waitedMs: 500,
      }),
      "(no new output)\n[still stopping after waiting 500 ms; wait again or do other work meanwhile]\n[status: stopping]",
    );
    assert.equal(
      renderTaskOutput({
        snapshot: snapshot({ status: "completed", exitCode: 0 }),
        output: read({ stdout: "ok\n" }),
      }, { waitedMs: 500 }),
      "ok\n[status: completed, exit code: 0]",
    );
  });

  it("counts and names only the streams that lost bytes in the lossy marker", () => {
    const lost = (bytes: number, files: string) =>
      `[output lost: ${bytes} bytes since the last read were dropped from memory and are missing above; full output: ${files}]`;
    const both = renderTaskOutput({
      snapshot: snapshot(),
      output: read({
        stdout: "tail\n",
        droppedBytes: 70_000,
        stderrDroppedBytes: 5,
        stdoutSpillPath: spillOut,
        stderrSpillPath: spillErr,
      }),
    });
    assert.equal(
      both,
      `tail\n${lost(70_005, `${spillOut} (stdout), ${spillErr} (stderr)`)}\n[status: running]`,
    );
    const stdoutOnly = renderTaskOutput({
      snapshot: snapshot(),
      output: read({
        stdout: "tail\n",
        droppedBytes: 70_000,
        stdoutSpillPath: spillOut,
        stderrSpillPath: spillErr,
      }),
    });
    assert.equal(stdoutOnly, `tail\n${lost(70_000, `${spillOut} (stdout)`)}\n[status: running]`);
    const stderrOnly = renderTaskOutput({
      snapshot: snapshot(),
      output: read({ stderr: "e\n", stderrDroppedBytes: 3, stderrSpillPath: spillErr }),
    });
    assert.equal(
      stderrOnly,
      `[stderr]\ne\n${lost(3, `${spillErr} (stderr)`)}\n[status: running]`,
    );
    const noFiles = renderTaskOutput({
      snapshot: snapshot(),
      output: read({ droppedBytes: 5 }),
    });
    assert.match(noFiles, /full output: \(unavailable\)\]\n\[status: running\]$/);
    const removed = renderTaskOutput({
      snapshot: snapshot(),
      output: read({ droppedBytes: 5, stdoutSpillPath: join(spillDir, "gone") }),
    });
    assert.match(removed, /full output: \(unavailable\)\]\n\[status: running\]$/);
  });

  it("leaves a binary stream out of the lossy marker of a text stream beside it", () => {
    const output = read({
      stderr: "warning\n",
      stderrDroppedBytes: 12,
      stderrSpillPath: spillErr,
      stdoutSpillPath: spillOut,
    });
    output.stdout = {
      ...output.stdout,
      truncated: true,
      omittedBytes: 40_000,
      binary: { totalBytes: 40_000, looksLike: "image/png" },
    };
    assert.deepEqual(renderTaskOutput({ snapshot: snapshot(), output }).split("\n"), [
      `[binary output: 39 KB so far (looks like image/png); saved to ${spillOut}]`,
      "[stderr]",
      "warning",
      `[output lost: 12 bytes since the last read were dropped from memory and are missing above; full output: ${spillErr} (stderr)]`,
      "[status: running]",
    ]);
  });

  it("says why a stream's spill file could not hold everything", () => {
    const text = renderTaskOutput({
      snapshot: snapshot(),
      output: read({
        stdout: "tail\n",
        droppedBytes: 10,
        stdoutSpillError: "ENOSPC: no space left on device",
        stderrSpillError: "the spill file was removed while the command ran",
      }),
    });
    assert.equal(
      text,
      "tail\n[output lost: 10 bytes since the last read were dropped from memory and are missing above; full output: (unavailable)]\n" +
        "[the full stdout could not be saved: ENOSPC: no space left on device]\n" +
        "[the full stderr could not be saved: the spill file was removed while the command ran]\n" +
        "[status: running]",
    );
  });

  it("says after a stream the executor stopped reading before its end that the rest is missing", () => {
    const cut = "nothing came for 1000 ms after the command's processes were stopped";
    const output = read({ stdout: "before\n", status: "completed", exitCode: 0 });
    output.stdout.cut = cut;
    const text = renderTaskOutput({
      snapshot: snapshot({ status: "completed", exitCode: 0 }),
      output,
    });
    assert.equal(
      text,
      "before\n" +
        `[stdout cut short: the executor stopped reading it before its end, so the rest of it is missing: ${cut}]\n` +
        "[status: completed, exit code: 0]",
    );
  });

  it("says when a settled task ran into a resource limit, and how that is known", () => {
    const text = renderTaskOutput({
      snapshot: snapshot(),
      output: read({ limitHit: { limit: "processes", evidence: "stderr", certain: false } }),
    });
    assert.equal(
      text,
      "(no new output)\n[resource limit: the command ran into its process count limit (judged from its stderr)]\n[status: running]",
    );
  });

  it("says when a cgroup counted the limit a task ran into", () => {
    for (
      const [limit, how] of [
        ["processes", "process count limit (its cgroup refused a new process)"],
        ["memory", "memory limit (its cgroup's out-of-memory killer ended a process)"],
      ] as const
    ) {
      const text = renderTaskOutput({
        snapshot: snapshot(),
        output: read({ limitHit: { limit, evidence: "cgroup", certain: true } }),
      });
      assert.equal(
        text,
        `(no new output)\n[resource limit: the command ran into its ${how}]\n[status: running]`,
      );
    }
  });

  it("shows the sandbox denial of a settled task, with the hint when escalation is possible", () => {
    const output = read({
      stderr: "Read-only file system\n",
      status: "completed",
      exitCode: 1,
      sandbox: { mode: "read-only", backend: "bwrap", denied: true },
    });
    const settled = snapshot({ status: "completed", exitCode: 1 });
    assert.equal(
      renderTaskOutput({ snapshot: settled, output }),
      "[stderr]\nRead-only file system\n[sandbox: file access denied under read-only mode]\n[status: completed, exit code: 1]",
    );
    assert.match(
      renderTaskOutput({ snapshot: settled, output }, { escalationModes: ["workspace-write"] }),
      /mode\]\n\[if the command needs that access, retry it once with sandbox_permissions "workspace-write".*\]\n\[status: completed, exit code: 1\]$/,
    );
  });

  it("says where a protected path a read of the running task moved away went", () => {
    const output = read({ violations: [{ path: "/ws/.git", quarantinedTo: "/tmp/q/1-.git" }] });
    assert.equal(
      renderTaskOutput({ snapshot: snapshot(), output }),
      "(no new output)\n[sandbox: the command created or replaced the protected path /ws/.git, which commands may not write; it was moved to /tmp/q/1-.git]\n[status: running]",
    );
  });

  it("says where a protected path the settled task planted was moved", () => {
    const output = read({
      status: "completed",
      exitCode: 0,
      sandbox: {
        mode: "workspace-write",
        backend: "landlock",
        denied: false,
        violations: [{ path: "/ws/.envrc", quarantinedTo: "/tmp/q/1-.envrc" }],
      },
    });
    assert.equal(
      renderTaskOutput({ snapshot: snapshot({ status: "completed", exitCode: 0 }), output }),
      "(no new output)\n[sandbox: the command created or replaced the protected path /ws/.envrc, which commands may not write; it was moved to /tmp/q/1-.envrc]\n[status: completed, exit code: 0]",
    );
  });

  it("orders the output, the lossy marker, the sandbox lines and the status", () => {
    const text = renderTaskOutput({
      snapshot: snapshot({ status: "completed", exitCode: 1 }),
      output: read({
        stdout: "tail\n",
        droppedBytes: 9,
        stdoutSpillPath: spillOut,
        status: "completed",
        exitCode: 1,
        sandbox: { mode: "workspace-write", backend: "landlock", denied: true },
      }),
    }, { escalationModes: ["workspace-write", "danger-full-access"] });
    assert.deepEqual(text.split("\n"), [
      "tail",
      `[output lost: 9 bytes since the last read were dropped from memory and are missing above; full output: ${spillOut} (stdout)]`,
      "[sandbox: file access denied under workspace-write mode]",
      '[if the command needs that access, retry it once with sandbox_permissions "danger-full-access" and a justification; a person approves or rejects the retry]',
      "[status: completed, exit code: 1]",
    ]);
  });

  it("shows a settled task's failed census and its survivors before the status", () => {
    const text = renderTaskOutput({
      snapshot: snapshot({ status: "killed", signal: "SIGTERM" }),
      output: read({
        status: "killed",
        signal: "SIGTERM",
        strays: { killed: 3, survivors: [77], censusFailed: "EMFILE: too many open files" },
      }),
    });
    assert.deepEqual(text.split("\n"), [
      "(no new output)",
      "[1 process(es) left running by the command could not be stopped: pid 77]",
      "[could not check for processes left running by the command (EMFILE: too many open files); " +
      "its process group was killed, but processes that left it may still run]",
      "[status: killed, signal: SIGTERM]",
    ]);
  });

  it("shows other kinds' output as text or JSON", () => {
    assert.equal(
      renderTaskOutput({ snapshot: snapshot({ kind: "agent" }), output: "summary\n" }),
      "summary\n[status: running]",
    );
    assert.equal(
      renderTaskOutput({ snapshot: snapshot({ kind: "agent" }), output: { n: 1 } }),
      '{\n  "n": 1\n}\n[status: running]',
    );
  });
});

describe("renderTaskList", () => {
  it("lists one line per task, labels on one line", () => {
    assert.equal(renderTaskList([]), "(no background tasks)");
    assert.equal(
      renderTaskList([
        snapshot({ id: "bash-1", label: "npm run dev" }),
        snapshot({
          id: "bash-2",
          label: "for i in 1 2; do\n  echo $i\ndone",
          status: "completed",
          exitCode: 0,
        }),
        snapshot({ id: "agent-1", kind: "agent", label: "review", status: "failed" }),
      ]),
      [
        "bash-1 [bash] running — npm run dev",
        "bash-2 [bash] completed — for i in 1 2; do echo $i done",
        "agent-1 [agent] failed — review",
      ].join("\n"),
    );
  });

  it("lists running tasks first, then the most recently ended, then how many are not shown", () => {
    const finished = Array.from({ length: 30 }, (_, i) =>
      snapshot({
        id: `bash-${i + 1}`,
        label: `job ${i + 1}`,
        status: "completed",
        exitCode: 0,
        endedAt: i === 0 ? 1000 : i, // the first ended last
      }));
    const running = snapshot({ id: "bash-31", label: "server" });
    const lines = renderTaskList([...finished, running], { maxFinished: 3 }).split("\n");
    assert.deepEqual(lines, [
      "bash-31 [bash] running — server",
      "bash-1 [bash] completed — job 1",
      "bash-29 [bash] completed — job 29",
      "bash-30 [bash] completed — job 30",
      "(27 older finished tasks not shown)",
    ]);
    const many = Array.from(
      { length: 500 },
      (_, i) => snapshot({ id: `bash-${i}`, status: "killed", endedAt: i }),
    );
    assert.equal(renderTaskList(many).split("\n").length, 21, "20 by default, then the count");
    assert.equal(renderTaskList(many.slice(0, 20)).split("\n").length, 20, "no count line");
  });

  it("shortens very long labels", () => {
    assert.equal(
      renderTaskList([snapshot({ label: "x".repeat(500) })]),
      `bash-1 [bash] running — ${"x".repeat(119)}…`,
    );
    assert.equal(
      renderTaskList([snapshot({ label: "y".repeat(120) })]),
      `bash-1 [bash] running — ${"y".repeat(120)}`,
    );
  });
});

describe("renderTaskNotice", () => {
  it("matches the documented text", () => {
    assert.equal(
      renderTaskNotice(
        snapshot({ id: "bash-3", label: "command", status: "completed", exitCode: 0 }),
      ),
      "background task bash-3 (command) finished [status: completed, exit code: 0]. Read its output with task_output.",
    );
    assert.equal(
      renderTaskNotice(
        snapshot({ id: "bash-4", label: "sleep 9", status: "killed", signal: "SIGKILL" }),
      ),
      "background task bash-4 (sleep 9) finished [status: killed, signal: SIGKILL]. Read its output with task_output.",
    );
  });
});

describe("renderBackgroundStart and renderTaskKill", () => {
  it("acknowledges a start with exactly the documented text", () => {
    assert.equal(renderBackgroundStart("bash-7"), "started background task bash-7");
  });

  it("ends every kill reply with the status", () => {
    const killed = snapshot({ status: "killed", signal: "SIGTERM" });
    assert.equal(
      renderTaskKill("requested", killed),
      "stopped task bash-1; read what it printed with task_output\n[status: killed, signal: SIGTERM]",
    );
    assert.equal(
      renderTaskKill("already-finished", snapshot({ status: "completed", exitCode: 0 })),
      "task bash-1 had already finished; read its output with task_output\n[status: completed, exit code: 0]",
    );
    assert.match(
      renderTaskKill("requested", snapshot({ status: "stopping" })),
      /has not exited yet.*\n\[status: stopping\]$/,
    );
  });
});
