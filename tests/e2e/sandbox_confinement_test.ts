// Real bash, real bubblewrap, the real Landlock launcher, as whoever runs the
// tests (root on our machines, which must be confined too). One body, run
// once per backend.
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
import process from "node:process";
import type { BashProcess } from "../../seam/mod.ts";
import {
  closeServer,
  executorFor,
  listener,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  skipWithoutPython,
  tempWorkspace,
} from "../sandbox/_fixtures.ts";
import {
  assertNoneLeft,
  largeHeredoc,
  marker,
  processesWith,
  waitForProcess,
} from "../local/_helpers.ts";
import { SETSID_GAP } from "../../sandbox/backends/_backend.ts";

const statuses = await probeHere();

async function settled(process: BashProcess): Promise<BashProcess> {
  await process.done;
  return process;
}

for (const backend of SANDBOX_BACKENDS) {
  const skip = skipUnless(statuses, backend);
  const landlock = backend === "landlock";

  describe(`sandbox confinement over ${backend}`, { skip }, () => {
    it("read-only denies a write to the workspace and to /etc, and says so", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const etcFile = `/etc/shellseam-test-${randomUUID()}`;
      try {
        for (const target of [join(workspace.root, "out.txt"), etcFile]) {
          const result = await executor.run(executor.resolve({ command: `echo x > '${target}'` }));
          assert.notEqual(result.exitCode, 0);
          assert.equal(existsSync(target), false, `${target} was written`);
          assert.equal(result.sandbox?.denied, true, result.stderr.text);
          assert.equal(result.sandbox?.denial, "filesystem", result.stderr.text);
          assert.equal(result.sandbox?.mode, "read-only");
          assert.equal(result.sandbox?.backend, backend);
          assert.equal(result.sandbox?.runnerFailed, false);
          assert.equal(result.sandbox?.enforcement?.filesystem, "full");
        }
      } finally {
        rmSync(etcFile, { force: true });
      }
    });

    it("reads work and a clean run is not a denial", async () => {
      using workspace = tempWorkspace();
      writeFileSync(join(workspace.root, "in.txt"), "content\n");
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(
        executor.resolve({ command: "cat in.txt; head -c 4 /etc/hostname >/dev/null && echo etc" }),
      );
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, "content\netc\n");
      assert.equal(result.sandbox?.denied, false);
    });

    it("a failure without the denial signature is not a denial", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(executor.resolve({ command: "echo broken >&2; exit 3" }));
      assert.equal(result.exitCode, 3);
      assert.equal(result.sandbox?.denied, false);
      assert.equal(result.sandbox?.runnerFailed, false);
    });

    it("runs a command longer than the kernel's argument limit (a large heredoc)", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const { command, body } = largeHeredoc("out.txt");
      const result = await executor.run(executor.resolve({ command }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.sandbox?.backend, backend);
      assert.match(result.stdout.text, /^\S+ 0 4003\n\d+\n$/);
      assert.equal(readFileSync(join(workspace.root, "out.txt"), "utf8"), `${body}\n`);
    });

    it("limits a confined command by default, names the gaps, and a command cannot raise them", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { limits: { cpuSeconds: 30 } });
      const result = await executor.run(executor.resolve({
        command:
          "ulimit -u; ulimit -d; ulimit -f; ulimit -t; ulimit -f unlimited || echo refused; " +
          "grep -c /shellseam-exec- /proc/self/cgroup || true",
      }));
      // Where cgroups hold processes and memory, the whole sandbox runs in the
      // command's cgroups (one per v1 hierarchy, one in v2) and no rlimit is set for them.
      const cgroups = new Set(
        Object.values(cgroupSupport()).filter((found) => "dir" in found).map((found) =>
          found.version === 2 ? "v2" : found.dir
        ),
      ).size;
      const [processes, memory] = cgroups === 0
        ? ["4096", String(8 * 1024 * 1024)]
        : [/^\d+$/.exec(result.stdout.text.split("\n")[0] ?? "")?.[0], "unlimited"];
      assert.equal(
        result.stdout.text,
        `${processes}\n${memory}\n${16 * 1024 * 1024}\n30\nrefused\n${cgroups}\n`,
        result.stderr.text,
      );
      assert.equal(
        result.limits?.mechanisms.processes,
        cgroups === 0 ? "rlimit" : result.limits?.mechanism,
      );
      assert.deepEqual(result.limits?.limits, {
        processes: 4096,
        memoryBytes: 8 * 1024 ** 3,
        cpuSeconds: 30,
        fileSizeBytes: 16 * 1024 ** 3,
      });
      const gaps = result.sandbox?.enforcement?.gaps ?? [];
      for (const gap of result.limits?.gaps ?? []) assert.ok(gaps.includes(gap), gap);
      assert.ok(gaps.some((gap) => gap.includes("apply to each process on its own")));
      const full = await executor.run(executor.resolve({
        command: "ulimit -u",
        sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
      }));
      assert.deepEqual(full.limits?.limits, { cpuSeconds: 30 });
    });

    it("a write past the file size limit is cut and reported inside the sandbox", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const result = await executor.run(executor.resolve({
        command: "head -c 100000 /dev/zero > out",
        limits: { fileSizeBytes: 10_000 },
      }));
      assert.notEqual(result.exitCode, 0);
      // ulimit (bwrap's wrapper) sets whole KiB; the Landlock launcher sets the bytes asked for.
      const cut = backend === "landlock" ? 10_000 : 10 * 1024;
      assert.equal(readFileSync(join(workspace.root, "out")).length, cut);
      assert.equal(result.limitHit?.limit, "fileSize", result.stderr.text);
      assert.equal(result.limitHit?.certain, false);
    });

    it("a small process limit in a cgroup holds the command, not the launcher's threads", {
      skip: !landlock
        ? "only the Landlock launcher is a multi-threaded program before the command"
        : "unavailable" in cgroupSupport().processes
        ? "no cgroup this process can make for processes here"
        : false,
    }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      // Deno's threads count as processes: the launcher joins the cgroup with
      // the thread that execs the command, and Deno starts outside it.
      const result = await executor.run(executor.resolve({
        command: "echo started; for i in 1 2 3; do sleep 0.3 & done; wait",
        limits: { processes: 3 },
      }));
      assert.equal(result.sandbox?.runnerFailed, false, result.stderr.text);
      assert.equal(result.stdout.text, "started\n", result.stderr.text);
      assert.match(result.stderr.text, /fork: (retry: )?Resource temporarily unavailable/);
      assert.deepEqual(result.limitHit, { limit: "processes", evidence: "cgroup", certain: true });
    });

    it("confined runs still work, TMPDIR included, after a command removed the private folder", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { maxOutputBytes: 1000 });
      const spilled = await executor.run(executor.resolve({ command: "seq 1 5000" }));
      const privateDir = dirname(spilled.stdout.spillPath ?? "");
      assert.match(privateDir, /\/shellseam-/);
      const removal = await executor.run(executor.resolve({
        command: `rm -rf '${privateDir}'`,
        sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
      }));
      assert.equal(removal.exitCode, 0, removal.stderr.text);
      const later = await executor.run(
        executor.resolve({ command: 'echo x > "$TMPDIR/f" && cat "$TMPDIR/f"; seq 1 5000' }),
      );
      assert.equal(later.exitCode, 0, later.stderr.text);
      assert.equal(later.sandbox?.runnerFailed, false);
      assert.ok(later.stdout.text.startsWith("x\n1\n"));
      assert.equal(later.stdout.spillComplete, true);
      // Two launches that both find it gone both make it again, whichever comes first.
      await executor.run(executor.resolve({
        command: `rm -rf '${privateDir}'`,
        sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
      }));
      const both = await Promise.all(
        [1, 2].map((n) =>
          executor.run(executor.resolve({ command: `echo ${n} > "$TMPDIR/${n}"` }))
        ),
      );
      assert.deepEqual(both.map((result) => result.exitCode), [0, 0], both[1]?.stderr.text);
    });

    it("workspace-write lands a file inside the workspace, not beside it nor in $HOME", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const landed = await executor.run(
        executor.resolve({
          command: "mkdir -p sub && echo inside > sub/in.txt && mv sub/in.txt moved.txt",
        }),
      );
      assert.equal(landed.exitCode, 0, landed.stderr.text);
      assert.equal(readFileSync(join(workspace.root, "moved.txt"), "utf8"), "inside\n");
      assert.equal(landed.sandbox?.denied, false);
      assert.equal(landed.sandbox?.mode, "workspace-write");

      const home = join(homedir(), `shellseam-test-${randomUUID()}`);
      try {
        for (const target of [join(workspace.base, "beside.txt"), home]) {
          const result = await executor.run(executor.resolve({ command: `echo x > '${target}'` }));
          assert.notEqual(result.exitCode, 0);
          assert.equal(existsSync(target), false, `${target} was written`);
          assert.equal(result.sandbox?.denied, true, result.stderr.text);
        }
      } finally {
        rmSync(home, { force: true });
      }
    });

    it("the private TMPDIR is writable in read-only mode", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(
        executor.resolve({ command: 'f=$(mktemp) && echo t > "$f" && cat "$f"' }),
      );
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, "t\n");
    });

    // Landlock cannot narrow a subtree; the launcher's read-only mount view
    // (as root, or in a user namespace) binds .git back read-only as
    // bubblewrap does. Without one, the gap must be named.
    it("<workspace>/.git/hooks is not writable under workspace-write, or the gap is named", async () => {
      using workspace = tempWorkspace();
      mkdirSync(join(workspace.root, ".git", "hooks"), { recursive: true });
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const hook = join(workspace.root, ".git", "hooks", "pre-commit");
      const result = await executor.run(
        executor.resolve({ command: "echo 'exit 0' > .git/hooks/pre-commit" }),
      );
      const named = result.sandbox?.enforcement?.gaps.some((gap) =>
        gap.startsWith("`.git`, `.gitconfig`") &&
        gap.includes("can be created, replaced or written")
      );
      if (named) {
        assert.ok(landlock && process.getuid?.() !== 0, "only Landlock without root may name it");
        assert.equal(result.exitCode, 0, result.stderr.text);
        assert.equal(existsSync(hook), true);
      } else {
        assert.notEqual(result.exitCode, 0);
        assert.equal(existsSync(hook), false);
        assert.equal(result.sandbox?.denied, true, result.stderr.text);
      }
    });

    it("a symlink inside the workspace pointing outside cannot be written through", async () => {
      using workspace = tempWorkspace();
      const outsideDir = join(workspace.base, "outside");
      mkdirSync(outsideDir);
      writeFileSync(join(workspace.base, "outside.txt"), "original\n");
      symlinkSync(outsideDir, join(workspace.root, "dirlink"));
      symlinkSync(join(workspace.base, "outside.txt"), join(workspace.root, "filelink"));
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      for (const command of ["echo x > dirlink/new.txt", "echo x > filelink"]) {
        const result = await executor.run(executor.resolve({ command }));
        assert.notEqual(result.exitCode, 0, command);
        assert.equal(result.sandbox?.denied, true, result.stderr.text);
      }
      assert.equal(existsSync(join(outsideDir, "new.txt")), false);
      assert.equal(readFileSync(join(workspace.base, "outside.txt"), "utf8"), "original\n");
    });

    it("network deny blocks a TCP connect to a listener on 127.0.0.1", async () => {
      using workspace = tempWorkspace();
      const { port, accepted, server } = await listener();
      const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
      try {
        {
          await using executor = executorFor(backend, workspace);
          const result = await executor.run(executor.resolve({ command: connect }));
          assert.notEqual(result.exitCode, 0);
          assert.equal(result.stdout.text, "");
          assert.equal(result.sandbox?.denied, true, result.stderr.text);
          assert.equal(result.sandbox?.denial, "network", result.stderr.text);
          // Under Landlock, the seccomp filter refuses IP sockets (this machine's
          // architecture has one), so UDP and the rest are confined too.
          const enforcement = result.sandbox?.enforcement;
          assert.equal(enforcement?.network, "full");
          assert.deepEqual(enforcement?.gaps, [
            ...(landlock ? [SETSID_GAP] : []),
            // The default resource limits' gaps come last.
            ...(result.limits?.gaps ?? []),
          ]);
        }
        assert.equal(accepted(), 0, "the listener saw a connection");
        // The control: with the network allowed, the same connect lands.
        await using open = executorFor(backend, workspace, { network: "allow" });
        const allowed = await open.run(open.resolve({ command: connect }));
        assert.equal(allowed.exitCode, 0, allowed.stderr.text);
        assert.equal(allowed.stdout.text, "connected\n");
        assert.equal(allowed.sandbox?.denied, false);
        assert.equal(allowed.sandbox?.denial, undefined);
        assert.equal(allowed.sandbox?.enforcement?.network, "full");
      } finally {
        await closeServer(server);
      }
    });

    it("a background denial is reported on the settled process", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const process = await executor.start(
        executor.resolve({ command: "sleep 0.2; echo x > out.txt" }),
      );
      assert.equal(process.sandbox === undefined, true, "facts appear only once settled");
      await settled(process);
      assert.equal(process.exitCode, 1);
      assert.equal(process.sandbox?.denied, true);
      assert.equal(process.sandbox?.backend, backend);
      assert.equal(existsSync(join(workspace.root, "out.txt")), false);
    });

    it("two overlapping background commands in different modes keep their own facts", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const narrow = await executor.start(
        executor.resolve({ command: "sleep 0.3; echo a > a.txt" }),
      );
      const wide = await executor.start(executor.resolve({
        command: "echo b > b.txt; sleep 0.1",
        sandboxPolicy: { mode: "workspace-write", workspaceRoot: workspace.root, network: "deny" },
      }));
      await Promise.all([settled(narrow), settled(wide)]);
      assert.equal(narrow.sandbox?.mode, "read-only");
      assert.equal(narrow.sandbox?.denied, true);
      assert.equal(wide.sandbox?.mode, "workspace-write");
      assert.equal(wide.sandbox?.denied, false);
      assert.equal(existsSync(join(workspace.root, "a.txt")), false);
      assert.equal(readFileSync(join(workspace.root, "b.txt"), "utf8"), "b\n");
    });

    it("root is confined too: no capabilities, kernel settings and hostname unchanged", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const caps = await executor.run(
        executor.resolve({
          command: "grep -E '^(Cap(Inh|Prm|Eff|Amb)|NoNewPrivs)' /proc/self/status",
        }),
      );
      assert.equal(caps.exitCode, 0, caps.stderr.text);
      const lines = caps.stdout.text.trim().split("\n");
      assert.equal(lines.length, 5);
      for (const line of lines) {
        // No capability now, and none to gain by exec (no new privileges).
        assert.match(line, /^(Cap\w+:\s+0+|NoNewPrivs:\s+1)$/);
      }
      // Each writes back the value it read, so even a regression changes nothing.
      for (
        const command of [
          "cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname",
          'hostname "$(hostname)"',
        ]
      ) {
        const result = await executor.run(executor.resolve({ command }));
        assert.notEqual(result.exitCode, 0, `${command} succeeded`);
      }
    });

    it("a Unix socket in the host filesystem is out of reach under network deny, not under allow", {
      skip: skipWithoutPython(),
    }, async () => {
      using workspace = tempWorkspace();
      const path = join(workspace.base, "daemon.sock");
      let accepted = 0;
      const server = createServer((socket) => {
        accepted++;
        socket.destroy();
      });
      await new Promise<void>((done) => server.listen(path, done));
      try {
        await using executor = executorFor(backend, workspace);
        const command =
          `python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("${path}")'`;
        const refused = await executor.run(executor.resolve({ command }));
        assert.notEqual(refused.exitCode, 0);
        assert.equal(refused.sandbox?.denial, "network", refused.stderr.text);
        assert.equal(
          refused.sandbox?.enforcement?.gaps.includes("Unix sockets not confined"),
          false,
        );
        assert.equal(accepted, 0);
        const open = await executor.run(executor.resolve({
          command,
          sandboxPolicy: { ...executor.defaultPolicy, network: "allow" },
        }));
        assert.equal(open.exitCode, 0, open.stderr.text);
        assert.equal(accepted, 1);
      } finally {
        await closeServer(server);
      }
    });

    it("stdin, env and the exit code pass through the sandbox", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(executor.resolve({
        command: 'cat; echo "$GREETING"; exit 7',
        stdin: "from stdin\n",
        env: { GREETING: "hello" },
      }));
      assert.equal(result.stdout.text, "from stdin\nhello\n");
      assert.equal(result.exitCode, 7);
      assert.equal(result.sandbox?.denied, false);
    });

    it("a timeout kills the confined command and everything it started", async () => {
      using workspace = tempWorkspace();
      const token = marker();
      await using executor = executorFor(backend, workspace, { killGraceMs: 500 });
      const result = await executor.run(
        executor.resolve({ command: `sleep ${token} & sleep ${token}`, timeoutMs: 300 }),
      );
      assert.equal(result.timedOut, true);
      assert.equal(result.exitCode, null);
      assert.equal(result.sandbox?.denied, false);
      assert.equal(result.sandbox?.backend, backend);
      await assertNoneLeft(token);
    });

    it("a foreground run leaves nothing behind", async () => {
      using workspace = tempWorkspace();
      const token = marker();
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(
        executor.resolve({ command: `sleep ${token} & (sleep ${token} &) ; echo started` }),
      );
      assert.equal(result.stdout.text, "started\n");
      assert.equal(result.sandbox?.denied, false);
      await assertNoneLeft(token);
    });

    it("works with the runtime's detached sessions too", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { sessionStrategy: "detached" });
      const result = await executor.run(executor.resolve({ command: "echo x > out.txt" }));
      assert.equal(result.sandbox?.denied, true, result.stderr.text);
      assert.equal(existsSync(join(workspace.root, "out.txt")), false);
    });

    it("a kill that lands while the sandbox sets up leaves nothing either", async () => {
      using workspace = tempWorkspace();
      const token = marker();
      await using executor = executorFor(backend, workspace, { killGraceMs: 200 });
      // The race is narrow: try it at a spread of moments after the spawn.
      for (let attempt = 0; attempt < 20; attempt++) {
        const started = await executor.start(executor.resolve({ command: `sleep ${token}` }));
        await new Promise((done) => setTimeout(done, attempt % 10));
        await started.kill();
        await started.done;
      }
      try {
        await assertNoneLeft(token);
      } finally {
        for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
      }
    });

    it("disposal kills sandboxed background processes, leaving nothing", async () => {
      using workspace = tempWorkspace();
      const token = marker();
      const executor = executorFor(backend, workspace);
      // Under bubblewrap even a child that left the session dies with the pid
      // namespace; under Landlock that escape is the local executor's gap.
      const escapee = landlock ? "" : `setsid sleep ${token} & `;
      const process = await executor.start(
        executor.resolve({ command: `${escapee}sleep ${token} & sleep ${token}; wait` }),
      );
      const expected = landlock ? 2 : 3;
      const deadline = Date.now() + 5000;
      while ((await waitForProcess(`sleep\0${token}`)).length < expected) {
        assert.ok(Date.now() < deadline, "the sleeps did not all start");
        await new Promise((done) => setTimeout(done, 20));
      }
      await executor[Symbol.asyncDispose]();
      assert.equal(process.status, "killed");
      assert.equal(process.sandbox?.enforcement?.gaps.includes(SETSID_GAP), landlock);
      await assertNoneLeft(token);
    });
  });
}
