// Escape attempts by a confined root, over each backend: host processes,
// kernel keyrings, device ioctls, descriptors inherited from the executor's
// parent, symlinks planted where a writable root will be resolved, UDP and
// abstract Unix sockets under a denied network. Each must fail; where a
// regression would change the host, the test undoes it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { once } from "node:events";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { randomUUID } from "node:crypto";
import { BashSpawnError, SandboxUnavailableError } from "../../seam/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { METADATA_GAP } from "../../sandbox/backends/landlock/_landlock.ts";
import {
  assertRunnerRefused,
  executorFor,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  skipWithoutPython,
  tempWorkspace,
} from "../sandbox/_fixtures.ts";

const statuses = await probeHere();
const deno = findDeno(process.env.PATH);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

for (const backend of SANDBOX_BACKENDS) {
  const skip = skipUnless(statuses, backend);

  describe(`sandbox escapes over ${backend}`, { skip }, () => {
    it("host processes can be neither signalled nor inspected", async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const pid = process.pid;
      for (
        const command of [
          `kill -0 ${pid}`,
          `cat /proc/${pid}/environ`,
          `ls /proc/${pid}/cwd/`,
          `echo x > /proc/${pid}/cwd/shellseam-escape-${randomUUID()}`,
        ]
      ) {
        const result = await executor.run(executor.resolve({ command }));
        assert.notEqual(result.exitCode, 0, `${command} succeeded: ${result.stdout.text}`);
      }
    });

    it(
      "the kernel keyrings, shared with the host, cannot be written",
      { skip: skipWithoutPython() },
      async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
        const description = `shellseam-escape-${randomUUID()}`;
        // add_key("user", description, "v", 1, KEY_SPEC_USER_KEYRING): the user
        // keyring of root is every root process's on this host.
        const script = `import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr = {"x86_64": 248, "aarch64": 217}[__import__("platform").machine()]
key = libc.syscall(nr, b"user", b"${description}", b"v", 1, ctypes.c_int(-4))
print(key, ctypes.get_errno())`;
        const run = (mode: "workspace-write" | "danger-full-access", code: string) =>
          executor.run(executor.resolve({
            command: `python3 -c '${code}'`,
            sandboxPolicy: { mode, workspaceRoot: workspace.root, network: "deny" },
          }));
        const result = await run("workspace-write", script);
        try {
          assert.equal(result.exitCode, 0, result.stderr.text);
          assert.equal(result.stdout.text, "-1 13\n", "add_key was not refused with EACCES");
          assert.equal(readFileSync("/proc/keys", "utf8").includes(description), false);
        } finally {
          const key = /^(\d+) 0$/.exec(result.stdout.text.trim())?.[1];
          if (key !== undefined) {
            // KEYCTL_INVALIDATE, outside the sandbox: undo what a regression added.
            await run(
              "danger-full-access",
              `import ctypes; ctypes.CDLL(None).syscall(${
                process.arch === "arm64" ? 219 : 250
              }, 21, ${key})`,
            );
          }
        }
      },
    );

    it(
      "System V IPC and message queues of the host are out of reach",
      { skip: skipWithoutPython() },
      async () => {
        using workspace = tempWorkspace();
        await using executor = executorFor(backend, workspace);
        const key = `0x${randomUUID().slice(0, 7)}`;
        const host = (command: string) =>
          executor.run(executor.resolve({
            command,
            sandboxPolicy: {
              mode: "danger-full-access",
              workspaceRoot: workspace.root,
              network: "deny",
            },
          }));
        // A segment of the host's, owned by root: a confined root must not reach it.
        const made = await host(
          `python3 -c 'import ctypes; print(ctypes.CDLL(None).shmget(${key}, 4096, 0o1600))'`,
        );
        const id = made.stdout.text.trim();
        assert.match(id, /^\d+$/, made.stderr.text);
        const queueKey = `0x0${randomUUID().slice(0, 7)}`;
        let queues = "";
        try {
          const result = await executor.run(executor.resolve({
            command: `python3 -c 'import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
attached = libc.shmat(${id}, None, 0) not in (None, 2**64 - 1)
print(libc.shmget(${key}, 0, 0), attached)
libc.msgget(${queueKey}, 0o1600)'`,
          }));
          assert.equal(result.exitCode, 0, result.stderr.text);
          assert.equal(result.stdout.text, "-1 False\n", "the host's shared memory was reached");
        } finally {
          await host(`ipcrm -m ${id}`);
          // A queue made in bubblewrap's own IPC namespace dies with it; none on the host.
          queues = (await host(
            `n=$(ipcs -q | grep -ci '^${queueKey} '); [ "$n" = 0 ] || ipcrm -Q ${queueKey}; echo "$n"`,
          )).stdout.text.trim();
        }
        assert.equal(queues, "0", "a message queue was made on the host");
      },
    );

    it("modes, timestamps and extended attributes outside the writable roots stay", async () => {
      using workspace = tempWorkspace();
      const outside = join(workspace.base, "outside.txt");
      writeFileSync(outside, "x");
      chmodSync(outside, 0o644);
      const before = statSync(outside);
      await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
      const result = await executor.run(executor.resolve({
        command: `chmod 4755 '${outside}'; touch -d 2001-01-01 '${outside}'; ` +
          `setfattr -n user.x -v 1 '${outside}' 2>/dev/null; ` +
          "echo in > in.txt && chmod 700 in.txt && touch -d 2001-01-01 in.txt && echo inside",
      }));
      assert.equal(result.stdout.text, "inside\n", result.stderr.text);
      const after = statSync(outside);
      const root = process.getuid?.() === 0;
      if (backend === "landlock" && !root) {
        // A user's own files: only root can mount the read-only view; the gap says so.
        assert.ok(result.sandbox?.enforcement?.gaps.includes(METADATA_GAP));
        chmodSync(outside, 0o644);
        return;
      }
      assert.equal(after.mode & 0o7777, 0o644, "the mode changed");
      assert.equal(after.mtimeMs, before.mtimeMs, "the timestamp changed");
      assert.match(result.stderr.text, /chmod: changing permissions of .*: Read-only file system/);
      assert.equal(result.sandbox?.enforcement?.filesystem, "full");
      assert.equal(statSync(join(workspace.root, "in.txt")).mode & 0o777, 0o700);
    });

    it("BASH_ENV runs only inside the sandbox, never in what wraps it", async () => {
      using workspace = tempWorkspace();
      const marker = join(workspace.base, "bash-env-ran");
      const script = join(workspace.base, "bash_env.sh");
      writeFileSync(script, `echo ran >> '${marker}'\n`);
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(
        executor.resolve({ command: "echo ok", env: { BASH_ENV: script } }),
      );
      assert.equal(result.stdout.text, "ok\n");
      assert.equal(existsSync(marker), false, "BASH_ENV ran outside the sandbox");
    });

    it("a device opened for reading takes no ioctl", { skip: skipWithoutPython() }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      // BLKGETSIZE64 on the first loop device: harmless, but any ioctl allowed
      // here would allow LOOP_SET_FD, which changes the host.
      const result = await executor.run(executor.resolve({
        command: `python3 -c 'import fcntl, array
f = open("/dev/loop0", "rb")
fcntl.ioctl(f, 0x80081272, array.array("Q", [0]))
print("ioctl worked")'`,
      }));
      assert.notEqual(result.exitCode, 0);
      assert.equal(result.stdout.text, "");
      assert.match(result.stderr.text, /PermissionError|FileNotFoundError|OSError/);
    });

    it(
      "the host's terminals are neither listed nor read",
      { skip: skipWithoutPython() },
      async () => {
        // A stand-in for the user's own terminal: a pseudo-terminal this test holds.
        const holder = spawn("python3", [
          "-c",
          "import os, pty, sys; m, s = pty.openpty(); print(os.ttyname(s), flush=True); sys.stdin.read()",
        ], { stdio: ["pipe", "pipe", "inherit"] });
        try {
          const [line] = await once(holder.stdout, "data") as [Uint8Array];
          const terminal = new TextDecoder().decode(line).trim();
          assert.match(terminal, /^\/dev\/pts\/\d+$/);
          using workspace = tempWorkspace();
          await using executor = executorFor(backend, workspace);
          const result = await executor.run(executor.resolve({
            command: `ls /dev/pts; timeout 2 head -c1 ${terminal} && echo read`,
          }));
          assert.doesNotMatch(
            result.stdout.text,
            new RegExp(`^${terminal.slice("/dev/pts/".length)}$`, "m"),
          );
          assert.doesNotMatch(result.stdout.text, /read/);
          assert.match(result.stderr.text, /No such file or directory/);
        } finally {
          holder.stdin.end();
          await once(holder, "close");
        }
      },
    );

    it("a writable root planted as a symlink by a confined command is not followed", async () => {
      using workspace = tempWorkspace();
      const victim = join(workspace.base, "victim");
      mkdirSync(victim);
      const cache = join(workspace.root, "cache");
      await using executor = executorFor(backend, workspace, {
        defaultMode: "workspace-write",
        writableRoots: [cache],
      });
      const plant = await executor.run(executor.resolve({ command: `ln -s '${victim}' cache` }));
      assert.equal(plant.exitCode, 0, plant.stderr.text);
      const write = await executor.run(executor.resolve({ command: `echo x > '${victim}/x'` }));
      assert.equal(existsSync(join(victim, "x")), false, "the planted symlink was followed");
      assert.equal(write.sandbox?.denied, true, write.stderr.text);
      // A later session resolving the same configuration does not follow it either.
      await using later = executorFor(backend, workspace, {
        defaultMode: "workspace-write",
        writableRoots: [cache],
      });
      const again = await later.run(later.resolve({ command: `echo x > cache/x` }));
      assert.notEqual(again.exitCode, 0);
      assert.equal(existsSync(join(victim, "x")), false, "a new executor followed it");
    });

    it("paths swapped for symlinks after resolve are refused or skipped, never followed", async () => {
      using workspace = tempWorkspace();
      const victim = join(workspace.base, "victim");
      mkdirSync(victim);
      const extra = join(workspace.base, "extra");
      mkdirSync(extra);
      await using executor = executorFor(backend, workspace, {
        defaultMode: "workspace-write",
        writableRoots: [extra],
      });
      const spec = executor.resolve({ command: `echo x > '${victim}/x'` });
      // What a command under a wider writable root (or anything else) could do
      // between resolve and launch.
      renameSync(extra, `${extra}.old`);
      symlinkSync(victim, extra);
      const skipped = await executor.run(spec);
      assert.equal(skipped.sandbox?.denied, true, skipped.stderr.text);
      assert.equal(existsSync(join(victim, "x")), false, "a swapped writable root was followed");

      renameSync(workspace.root, `${workspace.root}.old`);
      symlinkSync(victim, workspace.root);
      await assert.rejects(
        executor.run(executor.resolve({ command: "echo x > x" })),
        (error: unknown) =>
          error instanceof BashSpawnError && /now resolves to ".*victim"/.test(error.message),
      );
      assert.equal(existsSync(join(victim, "x")), false, "a swapped workspace was followed");
    });

    it("the executor's private directory inside a writable root cannot be tampered with", async () => {
      using workspace = tempWorkspace();
      const outside = join(workspace.base, "escaped");
      mkdirSync(outside);
      // The executor's private directory lands in the workspace.
      const previous = process.env.TMPDIR;
      process.env.TMPDIR = join(workspace.root, "tmp");
      mkdirSync(process.env.TMPDIR);
      try {
        await using executor = executorFor(backend, workspace, { defaultMode: "workspace-write" });
        if (backend === "landlock") {
          // Landlock cannot narrow a writable root, and deno reads the launcher's
          // folder there before the launcher restricts itself: passed over.
          await assert.rejects(
            executor.run(executor.resolve({ command: "true" })),
            (error: unknown) =>
              error instanceof SandboxUnavailableError &&
              /^The Landlock launcher's folder ".*\/deno" is read before the sandbox applies/.test(
                error.attempts[0]?.reason ?? "",
              ),
          );
          return;
        }
        const first = await executor.run(executor.resolve({
          command: "head -c 100000 /dev/zero",
          stdoutMaxBytes: 1000,
        }));
        assert.ok(first.stdout.spillPath !== undefined, first.stderr.text);
        const echo = await executor.run(executor.resolve({ command: 'echo "$TMPDIR"' }));
        const tmpDir = echo.stdout.text.trim();
        assert.ok(tmpDir.startsWith(process.env.TMPDIR!), tmpDir);
        const files = () =>
          Object.fromEntries(
            readdirSync(process.env.TMPDIR!, { recursive: true, encoding: "utf8" })
              .map((name) => join(process.env.TMPDIR!, name))
              .filter((path) => statSync(path).isFile())
              .map((path) => [path, readFileSync(path, "latin1")]),
          );
        const before = files();
        // Replacing TMPDIR by a symlink would make the next launch bind its
        // target writable; rewriting a spill file would change the record.
        const tamper = await executor.run(executor.resolve({
          command: `mv '${tmpDir}' '${tmpDir}.old' && ln -s '${outside}' '${tmpDir}'; ` +
            `s=$?; for f in $(find tmp -type f); do echo x > "$f"; done; exit $s`,
        }));
        assert.notEqual(tamper.exitCode, 0);
        assert.equal(tamper.sandbox?.denial, "filesystem", tamper.stderr.text);
        // The empty report files of the namespace's counts come and go with the calls
        // (a standby opens its own, a call reads and removes it): every other file is as it was.
        const counts = (all: Record<string, string>) =>
          Object.fromEntries(
            Object.entries(all).filter(([path, text]) =>
              !(basename(path).startsWith("strays-") && text === "")
            ),
          );
        assert.deepEqual(
          counts(files()),
          counts(before),
          "a file of the private directory changed",
        );
        const next = await executor.run(executor.resolve({ command: 'touch "$TMPDIR/x"' }));
        assert.equal(next.exitCode, 0, next.stderr.text);
        assert.deepEqual(readdirSync(outside), [], "TMPDIR was replaced");
      } finally {
        if (previous === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = previous;
      }
    });

    it("a program run before confinement that lies in a writable root is refused, not replaced", async () => {
      using workspace = tempWorkspace();
      const outside = join(workspace.base, "escaped");
      // A perl (which runs the Landlock launcher) or a bwrap in the workspace's node_modules.
      const program = backend === "bwrap" ? "bwrap" : "perl";
      const real = findOnPath(program, process.env.PATH);
      assert.ok(real !== null);
      const bin = join(workspace.root, "node_modules", ".bin");
      mkdirSync(bin, { recursive: true });
      symlinkSync(real, join(bin, program));
      await using executor = executorFor(backend, workspace, {
        searchPath: `${bin}:${process.env.PATH}`,
      });
      // Not even its probe runs it: an earlier session's command may have replaced it.
      await assert.rejects(
        executor.run(executor.resolve({ command: "echo ok" })),
        SandboxUnavailableError,
      );
      const replace = `rm node_modules/.bin/${program} && ` +
        `printf '#!/bin/sh\\ntouch ${outside}\\n' > node_modules/.bin/${program} && ` +
        `chmod +x node_modules/.bin/${program}`;
      await assertRunnerRefused(executor, workspace, replace, join(bin, program));
      assert.equal(existsSync(outside), false, "a replaced runner ran unconfined");
      assert.equal(readFileSync(join(bin, program)).length > 1000, true, "the runner was replaced");
    });

    it("network deny: UDP and abstract Unix sockets on the host are not reached", {
      skip: skipWithoutPython(),
    }, async () => {
      using workspace = tempWorkspace();
      const udp = createSocket("udp4");
      let datagrams = 0;
      udp.on("message", () => datagrams++);
      await new Promise<void>((done) => udp.bind(0, "127.0.0.1", done));
      const name = `shellseam-escape-${randomUUID()}`;
      let connections = 0;
      const abstract = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((done) => abstract.listen(`\0${name}`, done));
      try {
        const command = (port: number) =>
          `echo hi > /dev/udp/127.0.0.1/${port}; ` +
          `python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("\\0${name}")'`;
        {
          await using executor = executorFor(backend, workspace);
          await executor.run(executor.resolve({ command: command(udp.address().port) }));
          await new Promise((done) => setTimeout(done, 300));
          assert.equal(datagrams, 0, "a datagram reached the host");
          assert.equal(connections, 0, "an abstract socket on the host was reached");
        }
        // The control: with the network allowed, the datagram lands.
        await using open = executorFor(backend, workspace, { network: "allow" });
        await open.run(open.resolve({ command: command(udp.address().port) }));
        const deadline = Date.now() + 5000;
        while (datagrams === 0 && Date.now() < deadline) {
          await new Promise((done) => setTimeout(done, 20));
        }
        assert.equal(datagrams, 1);
      } finally {
        udp.close();
        await new Promise((done) => abstract.close(done));
      }
    });
  });
}

describe("descriptors the executor's process inherited", {
  skip: !("Deno" in globalThis)
    ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
    : "reason" in deno
    ? deno.reason
    : false,
}, () => {
  it("do not reach a confined command under either backend", async () => {
    assert.ok(!("reason" in deno));
    using workspace = tempWorkspace();
    const outside = join(workspace.base, "outside.txt");
    writeFileSync(outside, "");
    const script = join(workspace.base, "inherit.ts");
    const backends = SANDBOX_BACKENDS.filter((backend) => statuses[backend].works);
    writeFileSync(
      script,
      `import { SandboxBashExecutor } from ${JSON.stringify(join(ROOT, "sandbox/mod.ts"))};
for (const backend of ${JSON.stringify(backends)}) {
  await using executor = new SandboxBashExecutor({
    workspaceRoot: ${JSON.stringify(workspace.root)},
    backends: [backend],
  });
  const result = await executor.run(
    executor.resolve({ command: "echo escaped >&7; ls /proc/self/fd" }),
  );
  console.log(backend, result.stdout.text.trim().split("\\n").join(","));
}
`,
    );
    await using executor = new LocalBashExecutor({ cwd: workspace.base });
    const result = await executor.run(executor.resolve({
      command: `exec 7>>'${outside}' && "$DENO" run --no-config --no-lock --allow-all inherit.ts`,
      env: { DENO: deno.path },
      timeoutMs: 60_000,
    }));
    assert.equal(result.exitCode, 0, result.stderr.text);
    assert.equal(readFileSync(outside, "utf8"), "", "a command wrote through fd 7");
    assert.deepEqual(
      result.stdout.text.trim().split("\n"),
      backends.map((backend) => `${backend} 0,1,2,3`),
    );
  });
});
