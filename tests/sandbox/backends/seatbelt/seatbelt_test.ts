import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LaunchOutcome } from "../../../../engine/mod.ts";
import {
  SEATBELT_FAILURE_EXIT,
  SEATBELT_UNVERIFIED_GAP,
  seatbeltDenied,
  seatbeltEnforcement,
  seatbeltRunnerFailed,
} from "../../../../sandbox/backends/seatbelt/mod.ts";
import { LATE_SOCKETS_GAP, PROXY_PORTS_GAP, SETSID_GAP } from "../../../../sandbox/backends/mod.ts";
import { confinedPolicy as policy } from "../_policy.ts";

const TMP = "/run/private/tmp";

function failed(stderrText: string, exitCode: number | null = 1): LaunchOutcome {
  return { exitCode, signal: null, stderrText, killedByExecutor: false };
}

const writable = policy({
  mode: "workspace-write",
  writableRoots: ["/srv/cache"],
  readOnlyPaths: ["/srv/ws/.git"],
  protectedPaths: [".git", ".vscode"],
  masks: [
    { path: "/home/u/.ssh", directory: true, kind: "secret" },
    { path: "/run/agent.sock", directory: false, kind: "socket" },
  ],
});

describe("seatbeltDenied", () => {
  it("reads Seatbelt's EPERM on a write outside the roots as a filesystem denial", () => {
    for (
      const line of [
        "bash: /etc/x: Operation not permitted",
        "touch: /usr/local/x: Operation not permitted",
        "Error: EPERM: operation not permitted, open '/opt/x'",
      ]
    ) {
      assert.equal(seatbeltDenied(failed(line), writable, "/srv/ws", TMP), "filesystem", line);
    }
  });

  it("reads a write to a protected name or a read-only path in a root as a filesystem denial", () => {
    for (
      const line of [
        "bash: /srv/ws/sub/.git: Operation not permitted",
        "touch: /srv/cache/.vscode/settings.json: Operation not permitted",
        "bash: .git/config: Operation not permitted",
      ]
    ) {
      assert.equal(seatbeltDenied(failed(line), writable, "/srv/ws", TMP), "filesystem", line);
    }
  });

  it("does not read an EPERM on a writable path, or a refusal without a path, as the sandbox's", () => {
    for (
      const line of [
        "chmod: /srv/ws/other-users-file: Operation not permitted",
        `touch: ${TMP}/x: Operation not permitted`,
        "kill: (1) - Operation not permitted",
        "cat: /etc/shadow: Permission denied",
      ]
    ) {
      assert.equal(seatbeltDenied(failed(line), writable, "/srv/ws", TMP), undefined, line);
    }
  });

  it("reads any write in read-only mode, but TMPDIR, as a filesystem denial", () => {
    const readOnly = policy();
    assert.equal(
      seatbeltDenied(failed("bash: /srv/ws/x: Operation not permitted"), readOnly, "/srv/ws", TMP),
      "filesystem",
    );
  });

  it("reads a refusal at a mask as a secret, at a masked socket as the network", () => {
    assert.equal(
      seatbeltDenied(
        failed("cat: /home/u/.ssh/id_ed25519: Operation not permitted"),
        writable,
        "/",
        TMP,
      ),
      "secret",
    );
    assert.equal(
      seatbeltDenied(
        failed("socat: connect(/run/agent.sock): Operation not permitted"),
        writable,
        "/",
        TMP,
      ),
      "network",
    );
  });

  it("reads a refused connection or lookup as the network's, unless the network is allowed", () => {
    for (
      const line of [
        "bash: connect: Operation not permitted",
        "bash: /dev/tcp/1.1.1.1/80: Operation not permitted",
        "curl: (6) Could not resolve host: example.com",
      ]
    ) {
      assert.equal(seatbeltDenied(failed(line), writable, "/", TMP), "network", line);
      assert.equal(
        seatbeltDenied(failed(line), { ...writable, network: "allow" }, "/", TMP),
        undefined,
        line,
      );
    }
  });

  it("reads nothing from a command that succeeded", () => {
    assert.equal(
      seatbeltDenied(failed("bash: /etc/x: Operation not permitted", 0), writable, "/", TMP),
      undefined,
    );
  });
});

describe("seatbeltEnforcement", () => {
  it("enforces the filesystem and the network, and says it is not yet verified on a Mac, nor holds what leaves the session", () => {
    assert.deepEqual(seatbeltEnforcement(policy()), {
      filesystem: "full",
      network: "full",
      gaps: [SEATBELT_UNVERIFIED_GAP, SETSID_GAP],
    });
    assert.equal(
      SEATBELT_UNVERIFIED_GAP,
      "Seatbelt: implemented, not yet verified on macOS hardware",
    );
  });

  it("names the sockets bound after launch and the allow-list's ports", () => {
    assert.deepEqual(seatbeltEnforcement(policy({ unixSockets: true })).gaps, [
      SEATBELT_UNVERIFIED_GAP,
      LATE_SOCKETS_GAP,
      SETSID_GAP,
    ]);
    assert.deepEqual(seatbeltEnforcement(policy({ network: "proxy" })).gaps, [
      SEATBELT_UNVERIFIED_GAP,
      PROXY_PORTS_GAP,
      SETSID_GAP,
    ]);
  });
});

describe("seatbeltRunnerFailed", () => {
  it("is true for the launch's own shells and for sandbox-exec's own errors", () => {
    for (
      const [line, exit] of [
        ["shellseam-seatbelt: no environment on stdin", SEATBELT_FAILURE_EXIT],
        ["shellseam-seatbelt: cannot run /usr/bin/sandbox-exec", SEATBELT_FAILURE_EXIT],
        ["shellseam: could not move the command into the cgroup of /x, so it was not run", 125],
        ["sandbox-exec: sandbox_apply: Operation not permitted", 71],
      ] as const
    ) {
      assert.equal(seatbeltRunnerFailed(failed(line, exit)), true, line);
    }
  });

  it("is false for the command's own failures", () => {
    assert.equal(seatbeltRunnerFailed(failed("shellseam-seatbelt: x", 1)), false);
    assert.equal(seatbeltRunnerFailed(failed("bash: /etc/x: Operation not permitted", 1)), false);
    assert.equal(seatbeltRunnerFailed(failed("", SEATBELT_FAILURE_EXIT)), false);
  });

  it("goes by whether the launch said its command started, which no stderr line overrides", () => {
    for (
      const [line, exit] of [
        ["sandbox-exec: sandbox_apply: Operation not permitted", 71],
        ["shellseam-seatbelt: no environment on stdin", SEATBELT_FAILURE_EXIT],
      ] as const
    ) {
      // A command that prints the runner's line and exits as it does is still the command.
      assert.equal(seatbeltRunnerFailed({ ...failed(line, exit), started: true }), false, line);
    }
    // A launch that ended before its command started is the runner's, whatever it printed.
    assert.equal(seatbeltRunnerFailed({ ...failed("", 1), started: false }), true);
  });
});
