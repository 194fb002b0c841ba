import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { renderRunResult } from "../../../tool/mod.ts";
import { truncationMarkers } from "../../../tool/render/mod.ts";
import { runResult, stream } from "../_fakes.ts";

/** Runs `body` with the path of an existing file, removed afterwards. */
function withSpillFile(body: (path: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "shellseam-render-"));
  try {
    const path = join(dir, "out");
    writeFileSync(path, "bytes");
    body(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const STRAYS =
  "[stopped 2 background process(es) left running by the command; use run_in_background for servers]";

describe("renderRunResult", () => {
  // A remote run whose connection was lost has no exit code, no signal and no
  // strays: without a line the model read only the output, and could take a
  // command that ran (partly or fully) for one that never ran.
  it("says a lost connection leaves the command's state unknown, and to check before running it again", () => {
    const rendered = renderRunResult(runResult({
      exitCode: null,
      connectionLost: true,
      stdout: stream("step 1 done\n"),
    }));
    assert.equal(rendered.isError, true);
    const [output, marker, ...rest] = rendered.text.split("\n");
    assert.equal(output, "step 1 done");
    assert.deepEqual(rest, []);
    assert.match(marker ?? "", /^\[connection lost: .*\]$/);
    assert.match(marker ?? "", /connection to the remote host was lost/);
    assert.match(marker ?? "", /state is unknown/);
    assert.match(marker ?? "", /may not have run, or may have run partly or fully/);
    assert.match(marker ?? "", /check its effects .* before running it again/);
    // Only for a lost connection.
    assert.doesNotMatch(
      renderRunResult(runResult({ exitCode: null, signal: "SIGKILL" })).text,
      /connection lost/,
    );
    assert.doesNotMatch(renderRunResult(runResult({ connectionLost: false })).text, /connection/);
  });

  it("shows stdout then the exit code, and is not an error for exit 0", () => {
    assert.deepEqual(renderRunResult(runResult({ stdout: stream("hi\n") })), {
      text: "hi\n[exit code: 0]",
      isError: false,
    });
  });

  it("shows (no output) when both streams are empty or blank", () => {
    assert.equal(renderRunResult(runResult()).text, "(no output)\n[exit code: 0]");
    assert.equal(
      renderRunResult(runResult({ stdout: stream("\n"), stderr: stream(" ") })).text,
      "(no output)\n[exit code: 0]",
    );
  });

  it("puts stderr in its own section after stdout", () => {
    const rendered = renderRunResult(runResult({
      exitCode: 2,
      stdout: stream("out\n"),
      stderr: stream("warn: x\n"),
    }));
    assert.deepEqual(rendered, { text: "out\n[stderr]\nwarn: x\n[exit code: 2]", isError: true });
  });

  it("shows only the stderr section when stdout is empty", () => {
    assert.equal(
      renderRunResult(runResult({ stderr: stream("oops") })).text,
      "[stderr]\noops\n[exit code: 0]",
    );
  });

  it("strips ANSI escapes and carriage-return redraws from both streams", () => {
    const rendered = renderRunResult(runResult({
      stdout: stream("\x1b[32mgreen\x1b[0m\n 10%\r100%\n"),
      stderr: stream("\x1b[31mred\x1b[0m\r\n"),
    }));
    assert.equal(rendered.text, "green\n100%\n[stderr]\nred\n[exit code: 0]");
  });

  it("puts a truncation marker after each truncated stream", () => {
    withSpillFile((path) => {
      const rendered = renderRunResult(runResult({
        stdout: stream("head\n[...]\ntail\n", {
          truncated: true,
          omittedBytes: 1000,
          spillPath: path,
          spillComplete: true,
        }),
        stderr: stream("e-head\n[...]\ne-tail\n", { truncated: true, omittedBytes: 7 }),
      }));
      assert.equal(
        rendered.text,
        [
          "head\n[...]\ntail",
          `[output truncated: 1000 bytes omitted; full output: ${path}]`,
          "[stderr]",
          "e-head\n[...]\ne-tail",
          "[output truncated: 7 bytes omitted; full output: (unavailable)]",
          "[exit code: 0]",
        ].join("\n"),
      );
    });
  });

  it("keeps the marker exact when the spill file holds only the beginning, and names that file", () => {
    withSpillFile((path) => {
      const partial = stream("head\n[...]\ntail\n", {
        truncated: true,
        omittedBytes: 9,
        spillPath: path,
        spillComplete: false,
      });
      assert.deepEqual(truncationMarkers(partial), [
        "[output truncated: 9 bytes omitted; full output: (unavailable)]",
        `[only the beginning of the output was saved: ${path}]`,
      ]);
      assert.equal(
        renderRunResult(runResult({ stdout: partial })).text,
        [
          "head\n[...]\ntail",
          "[output truncated: 9 bytes omitted; full output: (unavailable)]",
          `[only the beginning of the output was saved: ${path}]`,
          "[exit code: 0]",
        ].join("\n"),
      );
    });
  });

  it("names no spill file that no longer exists (the spill budget may delete old ones)", () => {
    let gone = "";
    withSpillFile((path) => (gone = path));
    for (const spillComplete of [true, false]) {
      assert.deepEqual(
        truncationMarkers(
          stream("x", { truncated: true, omittedBytes: 3, spillPath: gone, spillComplete }),
        ),
        ["[output truncated: 3 bytes omitted; full output: (unavailable)]"],
      );
    }
  });

  it("has no truncation marker for a stream that was not truncated, even with a spill path", () => {
    assert.deepEqual(
      truncationMarkers(stream("x", { spillPath: "/s/2", spillComplete: true })),
      [],
    );
  });

  it("says after each stream the executor stopped reading before its end that the rest is missing", () => {
    const cut = "nothing came for 1000 ms after the command's processes were stopped";
    const rendered = renderRunResult(runResult({
      stdout: { ...stream("before\n"), cut },
      stderr: { ...stream("warn\n"), cut },
    }));
    assert.equal(
      rendered.text,
      "before\n" +
        `[stdout cut short: the executor stopped reading it before its end, so the rest of it is missing: ${cut}]\n` +
        "[stderr]\nwarn\n" +
        `[stderr cut short: the executor stopped reading it before its end, so the rest of it is missing: ${cut}]\n` +
        "[exit code: 0]",
    );
    assert.equal(
      renderRunResult(runResult({ stdout: stream("whole\n") })).text.includes("cut"),
      false,
    );
  });

  it("orders sandbox denial, escalation hint, timeout, exit code and strays", () => {
    const rendered = renderRunResult(
      runResult({
        exitCode: 1,
        timedOut: true,
        timeoutMs: 1000,
        stderr: stream("touch: cannot touch 'x': Read-only file system\n"),
        strays: { killed: 2, survivors: [] },
        sandbox: { mode: "read-only", backend: "bwrap", denied: true },
      }),
      { escalationModes: ["workspace-write", "danger-full-access"] },
    );
    assert.deepEqual(rendered.text.split("\n").slice(2), [
      "[sandbox: file access denied under read-only mode]",
      '[if the command needs that access, retry it once with sandbox_permissions "workspace-write" or "danger-full-access" and a justification; a person approves or rejects the retry]',
      "[timed out after 1000 ms]",
      "[exit code: 1]",
      STRAYS,
    ]);
    assert.equal(rendered.isError, true);
  });

  it("shows a signal instead of an exit code", () => {
    const rendered = renderRunResult(
      runResult({ exitCode: null, signal: "SIGKILL", timedOut: true, timeoutMs: 50 }),
    );
    assert.deepEqual(rendered, {
      text: "(no output)\n[timed out after 50 ms]\n[killed by signal: SIGKILL]",
      isError: true,
    });
  });

  it("reports a trapped timeout that exited 0 as a timeout and an error", () => {
    const rendered = renderRunResult(runResult({ exitCode: 0, timedOut: true, timeoutMs: 300 }));
    assert.deepEqual(rendered, {
      text: "(no output)\n[timed out after 300 ms]\n[exit code: 0]",
      isError: true,
    });
  });

  it("makes an aborted run an error result", () => {
    const rendered = renderRunResult(
      runResult({ exitCode: null, signal: "SIGTERM", aborted: true }),
    );
    assert.equal(rendered.isError, true);
    assert.equal(
      rendered.text,
      "(no output)\n[aborted: the tool call was cancelled before the command finished]\n[killed by signal: SIGTERM]",
    );
  });

  it("reports an idle timeout", () => {
    const rendered = renderRunResult(
      runResult({ exitCode: null, signal: "SIGTERM", idledOut: true }),
    );
    assert.match(
      rendered.text,
      /\n\[stopped: no output for too long \(idle timeout\)\]\n\[killed by signal: SIGTERM\]$/,
    );
    assert.equal(rendered.isError, true);
  });

  it("advises run_in_background for strays only when it is offered", () => {
    const strays = runResult({ strays: { killed: 1, survivors: [] } });
    assert.equal(
      renderRunResult(strays, { runInBackground: false }).text,
      "(no output)\n[exit code: 0]\n[stopped 1 background process(es) left running by the command]",
    );
    assert.equal(
      renderRunResult(strays, { runInBackground: true }).text.split("\n").at(-1),
      "[stopped 1 background process(es) left running by the command; use run_in_background for servers]",
    );
  });

  it("reports strays killed and survivors last", () => {
    const rendered = renderRunResult(runResult({ strays: { killed: 2, survivors: [41, 42] } }));
    assert.deepEqual(rendered.text.split("\n"), [
      "(no output)",
      "[exit code: 0]",
      STRAYS,
      "[2 process(es) left running by the command could not be stopped: pid 41, 42]",
    ]);
    assert.equal(rendered.isError, false);
  });

  it("says when the census of leftover processes failed, never that nothing was left", () => {
    const rendered = renderRunResult(runResult({
      strays: { killed: 0, survivors: [], censusFailed: "the watchdog exited" },
    }));
    assert.deepEqual(rendered.text.split("\n"), [
      "(no output)",
      "[exit code: 0]",
      "[could not check for processes left running by the command (the watchdog exited); " +
      "its process group was killed, but processes that left it may still run]",
    ]);
  });

  it("gives no escalation hint without escalation modes, or when none is wider", () => {
    const denied = runResult({
      exitCode: 1,
      sandbox: { mode: "read-only", backend: "landlock", denied: true },
    });
    assert.equal(
      renderRunResult(denied).text,
      "(no output)\n[sandbox: file access denied under read-only mode]\n[exit code: 1]",
    );
    const widest = runResult({
      exitCode: 1,
      sandbox: { mode: "danger-full-access", backend: "none", denied: true },
    });
    assert.doesNotMatch(
      renderRunResult(widest, { escalationModes: ["workspace-write", "danger-full-access"] }).text,
      /retry/,
    );
  });

  it("hints only the offered modes wider than the mode the command ran under", () => {
    const denied = runResult({
      exitCode: 1,
      sandbox: { mode: "workspace-write", backend: "bwrap", denied: true },
    });
    const text =
      renderRunResult(denied, { escalationModes: ["workspace-write", "danger-full-access"] }).text;
    assert.match(text, /sandbox_permissions "danger-full-access" and a justification/);
    assert.doesNotMatch(text, /"workspace-write"/);
  });

  it("names a network denial and hints only danger-full-access, the one mode that opens it", () => {
    const denied = runResult({
      exitCode: 1,
      stderr: stream("bash: connect: Network is unreachable\n"),
      sandbox: { mode: "read-only", backend: "bwrap", denied: true, denial: "network" },
    });
    const rendered = renderRunResult(denied, {
      escalationModes: ["workspace-write", "danger-full-access"],
    });
    assert.deepEqual(rendered.text.split("\n").slice(2), [
      "[sandbox: network access denied under read-only mode]",
      '[if the command needs that access, retry it once with sandbox_permissions "danger-full-access" and a justification; a person approves or rejects the retry]',
      "[exit code: 1]",
    ]);
    assert.equal(rendered.isError, true);
  });

  it("names each destination a network allow-list refused, with the hint when the command failed", () => {
    const denied = runResult({
      exitCode: 22,
      stderr: stream("curl: (22) The requested URL returned error: 403\n"),
      sandbox: {
        mode: "workspace-write",
        backend: "landlock",
        denied: true,
        denial: "network",
        refusedDestinations: ["evil.example", "10.0.0.1"],
      },
    });
    const rendered = renderRunResult(denied, { escalationModes: ["danger-full-access"] });
    assert.deepEqual(rendered.text.split("\n").slice(2), [
      "[sandbox: network access to evil.example denied by policy]",
      "[sandbox: network access to 10.0.0.1 denied by policy]",
      '[if the command needs that access, retry it once with sandbox_permissions "danger-full-access" and a justification; a person approves or rejects the retry]',
      "[exit code: 22]",
    ]);
    // A command that went on despite a refusal still hears of it, without the hint.
    const passed = runResult({
      stdout: stream("fallback used\n"),
      sandbox: {
        mode: "workspace-write",
        backend: "bwrap",
        denied: false,
        refusedDestinations: ["evil.example"],
      },
    });
    assert.equal(
      renderRunResult(passed, { escalationModes: ["danger-full-access"] }).text,
      "fallback used\n[sandbox: network access to evil.example denied by policy]\n[exit code: 0]",
    );
  });

  it("says a secret is withheld by policy, with no retry hint even when escalation is offered", () => {
    const denied = runResult({
      exitCode: 1,
      stderr: stream("cat: /home/u/.ssh/id_ed25519: Permission denied\n"),
      sandbox: { mode: "workspace-write", backend: "bwrap", denied: true, denial: "secret" },
    });
    const rendered = renderRunResult(denied, { escalationModes: ["danger-full-access"] });
    assert.deepEqual(rendered.text.split("\n").slice(2), [
      "[sandbox: read withheld by policy under workspace-write mode: the path is in the sandbox's denyRead list (credentials are kept from commands); it exists but cannot be read here, and no retry or other route will read it; if the task needs it, tell the user]",
      "[exit code: 1]",
    ]);
    assert.equal(rendered.isError, true);
  });

  it("redacts the values of scrubbed variables from both streams, longest first", () => {
    const result = runResult({
      stdout: stream("token ghp_abcdefgh123 and ghp_abcdefgh\n"),
      stderr: stream("\x1b[31mghp_abc\x1b[0mdefgh123\n"),
    });
    const secrets = { SHORT_TOKEN: "ghp_abcdefgh", GITHUB_TOKEN: "ghp_abcdefgh123", PIN: "1234" };
    assert.equal(
      renderRunResult(result, { secrets }).text,
      "token [redacted: GITHUB_TOKEN] and [redacted: SHORT_TOKEN]\n" +
        "[stderr]\n[redacted: GITHUB_TOKEN]\n[exit code: 0]",
    );
    assert.equal(
      renderRunResult(runResult({ stdout: stream("1234\n") }), { secrets }).text,
      "1234\n[exit code: 0]",
    );
  });

  it("redacts by default what the environment scrub keeps from commands", () => {
    const name = "TEST_REDACT_TOKEN_X";
    process.env[name] = "value-that-must-not-show";
    try {
      assert.equal(
        renderRunResult(runResult({ stdout: stream("value-that-must-not-show\n") })).text,
        `[redacted: ${name}]\n[exit code: 0]`,
      );
    } finally {
      delete process.env[name];
    }
  });

  it("gives a network denial no hint when danger-full-access is not offered", () => {
    const denied = runResult({
      exitCode: 1,
      sandbox: { mode: "read-only", backend: "landlock", denied: true, denial: "network" },
    });
    assert.equal(
      renderRunResult(denied, { escalationModes: ["workspace-write"] }).text,
      "(no output)\n[sandbox: network access denied under read-only mode]\n[exit code: 1]",
    );
  });

  it("keeps the file marker and every wider offered mode for a filesystem denial", () => {
    const denied = runResult({
      exitCode: 1,
      sandbox: { mode: "read-only", backend: "landlock", denied: true, denial: "filesystem" },
    });
    assert.deepEqual(
      renderRunResult(denied, { escalationModes: ["workspace-write"] }).text.split("\n"),
      [
        "(no output)",
        "[sandbox: file access denied under read-only mode]",
        '[if the command needs that access, retry it once with sandbox_permissions "workspace-write" and a justification; a person approves or rejects the retry]',
        "[exit code: 1]",
      ],
    );
  });

  it("reports a sandbox runner failure, not a denial, even when denied is also set", () => {
    const rendered = renderRunResult(
      runResult({
        exitCode: 1,
        sandbox: { mode: "read-only", backend: "bwrap", denied: true, runnerFailed: true },
      }),
      { escalationModes: ["workspace-write"] },
    );
    assert.equal(rendered.isError, true);
    assert.doesNotMatch(rendered.text, /file access denied|retry/);
    assert.match(
      rendered.text,
      /^\(no output\)\n\[sandbox failure: the bwrap sandbox itself failed, .*this is not a permission denial.*\]\n\[exit code: 1\]$/,
    );
  });

  it("is an error whenever the sandbox flags the run, even with exit code 0", () => {
    for (
      const sandbox of [
        { mode: "read-only", backend: "bwrap", denied: true },
        { mode: "read-only", backend: "landlock", denied: false, runnerFailed: true },
      ] as const
    ) {
      assert.equal(renderRunResult(runResult({ sandbox })).isError, true, JSON.stringify(sandbox));
    }
  });

  it("adds no sandbox line for a sandboxed run that was not denied", () => {
    const allowed = runResult({ sandbox: { mode: "read-only", backend: "bwrap", denied: false } });
    assert.deepEqual(renderRunResult(allowed), {
      text: "(no output)\n[exit code: 0]",
      isError: false,
    });
  });
  it("says where each protected path the command planted was moved, after the other sandbox lines", () => {
    const rendered = renderRunResult(runResult({
      exitCode: 1,
      sandbox: {
        mode: "workspace-write",
        backend: "bwrap",
        denied: false,
        runnerFailed: false,
        violations: [
          { path: "/ws/.git", quarantinedTo: "/tmp/shellseam-x/quarantine/1-.git" },
          { path: "/ws/sub/.git", quarantinedTo: null },
        ],
      },
    }));
    assert.equal(
      rendered.text,
      "(no output)\n" +
        "[sandbox: the command created or replaced the protected path /ws/.git, which commands may not write; it was moved to /tmp/shellseam-x/quarantine/1-.git]\n" +
        "[sandbox: the command created or replaced the protected path /ws/sub/.git, which could not be moved away; do not run git (or what reads it) there, and tell the user]\n" +
        "[exit code: 1]",
    );
    const undone = runResult({
      sandbox: {
        mode: "workspace-write",
        backend: "landlock",
        denied: false,
        violations: [{ path: "/ws/.git", quarantinedTo: "/q/1-.git" }],
      },
    });
    assert.equal(renderRunResult(undone).isError, true, "the sandbox undid part of an exit 0");
    // With a person to approve it, the model learns how to get one written.
    assert.equal(
      renderRunResult(undone, { escalationModes: ["danger-full-access"] }).text,
      "(no output)\n" +
        "[sandbox: the command created or replaced the protected path /ws/.git, which commands may not write; it was moved to /q/1-.git]\n" +
        '[if the task needs a protected path written, retry the command once with sandbox_permissions "danger-full-access" and a justification; a person approves or rejects the retry]\n' +
        "[exit code: 0]",
    );
    const hidden = runResult({
      sandbox: {
        mode: "workspace-write",
        backend: "bwrap",
        denied: false,
        violations: [{ path: "/ws/cover", quarantinedTo: "/q/2-cover", unlisted: true }],
      },
    });
    assert.ok(
      renderRunResult(hidden).text.includes(
        "[sandbox: the command made the directory /ws/cover and left it unreadable, so it could not be checked for protected paths; it was moved to /q/2-cover]",
      ),
    );
  });

  it("says when the command filled a writable root past the walk, and is an error even after exit 0", () => {
    for (
      const [walkBound, how] of [["entries", "more entries"], [
        "depth",
        "folders nested deeper",
      ]] as const
    ) {
      const rendered = renderRunResult(runResult({
        sandbox: {
          mode: "workspace-write",
          backend: "landlock",
          denied: false,
          violations: [
            { path: "/ws", quarantinedTo: null, walkBound },
            { path: "/ws/many/sub/.git", quarantinedTo: "/q/1-.git" },
          ],
        },
      }));
      assert.equal(
        rendered.text,
        "(no output)\n" +
          `[sandbox: the command filled /ws with ${how} than the check for protected paths walks, so nothing past that was kept read-only; the protected paths it created there were moved away (each listed); do not run git or direnv below it before checking, and tell the user]\n` +
          "[sandbox: the command created or replaced the protected path /ws/many/sub/.git, which commands may not write; it was moved to /q/1-.git]\n" +
          "[exit code: 0]",
      );
      assert.equal(rendered.isError, true);
    }
  });
});
