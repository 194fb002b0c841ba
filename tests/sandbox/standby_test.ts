// A confined command run by a standby: a bwrap wrapper or a Landlock launcher
// started ahead, which joined the next command's cgroups while nothing waited
// for it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { pause } from "../local/_helpers.ts";
import {
  executorFor,
  oneStandby,
  probeHere,
  readingInput,
  SANDBOX_BACKENDS_HERE,
  settledStandby,
  setUpStandbys,
  skipUnless,
  STANDBY_TOKENS,
  standbys,
  tempWorkspace,
  until,
} from "./_fixtures.ts";

const statuses = await probeHere();
const support = cgroupSupport();
const noCgroup = "unavailable" in support.processes
  ? `no cgroup for "processes" here (standbys hold cgroups): ${support.processes.unavailable}`
  : false;

/** What a command sees of its launch: workdir, stdin, seccomp, rlimit, cgroups, fds, marker. */
const PROBE = 'echo "$PWD"; [ -c /dev/stdin ] && echo "stdin is /dev/null"; ' +
  "grep ^Seccomp: /proc/self/status; ulimit -f; grep -c shellseam-exec- /proc/self/cgroup; " +
  'echo $(ls /proc/self/fd); echo "${SHELLSEAM_WATCHDOG##*.}"';

for (const backend of SANDBOX_BACKENDS_HERE) {
  const skip = skipUnless(statuses, backend) || noCgroup;
  describe(`a ${backend} standby (a confined launch started ahead)`, () => {
    it("runs the next command as a cold start would, and is gone with the executor", {
      skip,
    }, async () => {
      using workspace = tempWorkspace();
      const executor = executorFor(backend, workspace, {
        defaultMode: "read-only",
      });
      try {
        if (backend === "bwrap") {
          // Its first standby starts at construction (see ahead_test.ts): killed, so that the
          // first command starts cold.
          process.kill(await oneStandby(backend), "SIGKILL");
          await pause(100);
        } else assert.deepEqual(standbys(backend), [], "none before a confined command ran");
        const cold = await executor.run({ command: PROBE });
        const first = await oneStandby(backend);
        const warm = await executor.run({ command: PROBE });
        assert.equal(warm.exitCode, 0, warm.stderr.text);
        const [cwd, stdin, seccomp, fsize, cgroups, fds, number] = warm.stdout.text.split("\n");
        assert.deepEqual(
          [cwd, stdin, seccomp, fsize, cgroups, fds],
          [
            workspace.root,
            "stdin is /dev/null",
            "Seccomp:\t2",
            String(16 * 1024 ** 2),
            "2",
            "0 1 2 3",
          ],
        );
        const coldNumber = Number(cold.stdout.text.split("\n")[6]);
        assert.ok(Number(number) > coldNumber, "its own marker");
        assert.equal(
          cold.stdout.text.replace(/\d+\n$/, `${number}\n`),
          warm.stdout.text,
          "what a cold start saw",
        );
        assert.deepEqual(warm.strays, { killed: 0, survivors: [] });
        assert.equal(warm.limits?.mechanisms.processes, "cgroup v1");
        // It became the command: another waits now.
        assert.notEqual(await oneStandby(backend), first);
        // A call with stdin starts as usual and leaves the standby waiting.
        const piped = await executor.run({ command: "cat", stdin: "ping" });
        assert.equal(piped.stdout.text, "ping");
        assert.equal(standbys(backend).length, 1);
        // One that died while waiting is dropped (bwrap's with its report file, which no call
        // reads); the next command starts as usual.
        const dead = await settledStandby(backend);
        let report: string | undefined;
        if (backend === "bwrap") {
          // Set up ahead: its reporter, bwrap's child, holds the report file (bwrap may not have
          // made that child yet: the standby's command line is bwrap's from its exec on).
          let reporter = "";
          await until(
            () => {
              [reporter = ""] = readFileSync(`/proc/${dead}/task/${dead}/children`, "utf8").split(
                " ",
              );
              return reporter !== "" && existsSync(`/proc/${reporter}/fd/9`);
            },
            30_000,
            "the set-up standby's reporter",
          );
          report = readlinkSync(`/proc/${reporter}/fd/9`);
          assert.ok(existsSync(report), report);
        }
        process.kill(dead, "SIGKILL");
        await pause(100);
        const after = await executor.run({ command: "echo fine" });
        assert.equal(after.stdout.text, "fine\n");
        if (report !== undefined) {
          await until(() => !existsSync(report), 10_000, `${report} removed`);
        }
        await oneStandby(backend);
      } finally {
        await executor[Symbol.asyncDispose]();
      }
      assert.deepEqual(standbys(backend), [], "disposal kills the standby");
    });

    it("starts the next standby while the command that took one runs", {
      skip,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      await executor.run({ command: "true" });
      // Under bwrap, once it is set up ahead: the workspace is made, and the one that waits for
      // its options until then gives way to one.
      const first = await settledStandby(backend);
      // The command waits for "go", which the test makes once another standby waits.
      const call = executor.run({
        command: "for i in $(seq 1200); do [ -e go ] && exit 0; sleep 0.05; done; exit 1",
      });
      const next = await oneStandby(backend, first);
      writeFileSync(join(workspace.root, "go"), "");
      const result = await call;
      assert.equal(result.exitCode, 0, "the command ended before another standby waited");
      if (backend === "landlock") {
        assert.deepEqual(standbys(backend), [next], "the one started meanwhile waits on");
      } else {
        // It waits for its options (a setup made while the command runs would slow it); once
        // the command settled, one set up ahead takes its place.
        assert.ok(!setUpStandbys().includes(next), "set up while the command ran");
        assert.notEqual(await settledStandby(backend), next);
      }
    });

    it("gives a command the caller's variables named as the standby's own, warm as cold", {
      skip,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const managedEnv = {
        SHELLSEAM_STANDBY_COMMAND: "mine",
        SHELLSEAM_STANDBY_LIMITS: "-f 1 1 --",
      } as const;
      const command = 'printf "%s|%s|" "$SHELLSEAM_STANDBY_COMMAND" "$SHELLSEAM_STANDBY_LIMITS"; ' +
        "ulimit -f";
      // The file size limit every call gets, which the variable must not change.
      const limit = (await executor.run({ command: "ulimit -f" })).stdout.text;
      for (let call = 0; call < 3; call++) {
        const result = await executor.run({ command, managedEnv });
        assert.equal(result.stdout.text, `mine|-f 1 1 --|${limit}`, `call ${call}`);
      }
    });

    it("cannot be handed a launch nor signalled by a confined command running meanwhile", {
      skip,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, {
        defaultMode: "workspace-write",
      });
      await executor.run({ command: "true" });
      await oneStandby(backend);
      // It takes the standby; the next call starts cold, and a new standby waits after it.
      // What only a waiting standby shows: bwrap reading its options (its reporter, which
      // the command runs under, has the standby's token too), the launcher's flag.
      const text = backend === "bwrap"
        ? "--args 4"
        : STANDBY_TOKENS[backend].replaceAll("\0", " ").trimEnd();
      // The last character in brackets: the pattern does not match the command's own line.
      const pattern = `${text.slice(0, -1)}[${text.slice(-1)}]`;
      // It looks once the new standby waits (the test makes "go" then), not after a
      // fixed time: under load the call and the standby's start can take longer.
      const meddler = await executor.start({
        command: "exec > tried.txt 2>&1; for i in $(seq 1200); do [ -e go ] && break; " +
          "sleep 0.05; done; for p in /proc/[0-9]*; do " +
          `tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q -- ${
            JSON.stringify(pattern)
          } || continue; ` +
          'echo "found ${p#/proc/}"; echo \'{"cwd":"/","args":[]}\' > $p/fd/0 && echo wrote; ' +
          'kill -0 "${p#/proc/}" && echo signalled; done; exit 0',
      });
      await executor.run({ command: "true" });
      const waiting = await oneStandby(backend);
      writeFileSync(join(workspace.root, "go"), "");
      await meddler.done;
      const tried = readFileSync(join(workspace.root, "tried.txt"), "utf8");
      assert.doesNotMatch(tried, /wrote|signalled/, tried);
      // Without a pid namespace the command sees the launcher waiting, and is refused.
      if (backend === "landlock") assert.match(tried, new RegExp(`found ${waiting}\n`), tried);
      const next = await executor.run({ command: "echo fine" });
      assert.equal(next.stdout.text, "fine\n", next.stderr.text);
      assert.ok(!standbys(backend).includes(waiting), "the standby ran it");
    });

    it("that never says it runs the launch holds the call no longer than a cold start would", {
      skip,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      await executor.run({ command: "true" });
      // Stopped, as a setup that hangs (a mask on a hung mount) or a loaded machine leaves it.
      const stuck = await oneStandby(backend);
      process.kill(stuck, "SIGSTOP");
      // The call's abort ends it, as it ends a cold start's wait for its setup.
      const call = executor.run({ command: "echo ran", signal: AbortSignal.timeout(500) });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settled = await Promise.race([
        call.then((result) => result.aborted, (error: unknown) => String(error)),
        new Promise<string>((done) => timer = setTimeout(() => done("still waiting"), 30_000)),
      ]);
      clearTimeout(timer);
      assert.equal(settled, true);
    });

    it("holds only its launches' seccomp filter, and gives way to one for another rule", {
      skip: skip || (backend !== "bwrap" && "the Landlock launcher builds its filter inside"),
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "read-only" });
      const policy = (network: "allow" | "deny") => ({
        mode: "read-only" as const,
        workspaceRoot: workspace.root,
        network,
      });
      // An IP socket: made under "allow", refused by the filter under "deny".
      const socket = {
        command: "python3 -c 'import socket; socket.socket(); print(\"made\")' 2>&1 | tail -n 1",
      };
      // The first call's standby, started at construction, waits for its options. Its
      // descriptors once bwrap waits for them: stdio, the one filter's pipe (each filter held
      // costs a fork), the options' pipe and the report file. Before that, it still holds what
      // it inherited.
      const first = await oneStandby(backend);
      await readingInput(first, 4);
      assert.deepEqual(readdirSync(`/proc/${first}/fd`).sort(), ["0", "1", "2", "3", "4", "9"]);
      await executor.run({ command: "true" });
      const denying = await settledStandby(backend);
      // Another rule's call starts as usual; a standby for that rule takes the place.
      const cold = await executor.run({ ...socket, sandboxPolicy: policy("allow") });
      assert.equal(cold.stdout.text, "made\n", cold.stderr.text);
      // The one for deny gives way (the wait fails when it stays).
      const allowing = await oneStandby(backend, denying);
      const warm = await executor.run({ ...socket, sandboxPolicy: policy("allow") });
      assert.equal(warm.stdout.text, "made\n", warm.stderr.text);
      assert.ok(!standbys(backend).includes(allowing), "the standby ran it");
      // Back to deny: a standby for deny runs it, under deny's filter.
      await executor.run({ command: "true" });
      const again = await oneStandby(backend, allowing);
      const refused = await executor.run(socket);
      assert.ok(!standbys(backend).includes(again), "the standby ran it");
      assert.match(refused.stdout.text, /Permission denied|not permitted/, refused.stdout.text);
    });

    it("holds the command in the cgroups it joined: a fork bomb meets the process limit", {
      skip,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, {
        defaultMode: "read-only",
        limits: { processes: 64 },
      });
      await executor.run({ command: "true" });
      const standby = await oneStandby(backend);
      // It ends once a fork of the bomb failed, not after a fixed time: under load
      // the bomb may not reach the limit in half a second. Bash says so on the
      // bomb's stderr, a pipe opened before the bomb that the shell reads (read -t
      // starts no process).
      const result = await executor.run({
        command: "exec 3<> <(:); bomb() { sleep 30 & bomb | bomb & }; bomb 2>&3; " +
          "for i in {1..1200}; do read -r -t 0.05 -u 3 && break; done; echo survived",
        timeoutMs: 90_000,
      });
      assert.ok(!standbys(backend).includes(standby), "the standby ran it");
      assert.deepEqual(result.limitHit, { limit: "processes", evidence: "cgroup", certain: true });
      assert.deepEqual(result.strays.survivors, []);
      const next = await executor.run({ command: "echo fine" });
      assert.equal(next.limitHit, undefined, "the bomb's refusals are not the next command's");
    });
  });
}
